/** One media-type rule for the index, CDXJ, crawl statistics and extraction. */
import { describe, expect, it } from 'vitest';
import { headMediaType, isHtmlType, mediaType } from '../../core/formats/media-type.ts';

describe('media type', () => {
  it('is trimmed, cut before parameters and lower-cased', () => {
    expect(mediaType('Text/HTML; charset=UTF-8')).toBe('text/html');
    expect(mediaType('  application/json  ')).toBe('application/json');
    expect(mediaType('text/html ;charset=utf-8')).toBe('text/html');
    // A space where `;` belongs ends the type, as pywb and warcio cut it.
    expect(mediaType('text/html charset=utf-8')).toBe('text/html');
  });

  it('is null when there is no type', () => {
    expect(mediaType(null)).toBeNull();
    expect(mediaType(undefined)).toBeNull();
    expect(mediaType('')).toBeNull();
    expect(mediaType(' ; charset=utf-8')).toBeNull();
  });

  it('reads the first Content-Type of a head', () => {
    expect(headMediaType([['content-type', 'IMAGE/PNG'], ['Content-Type', 'text/html']])).toBe('image/png');
    expect(headMediaType([])).toBeNull();
  });

  it('names the HTML document types once', () => {
    for (const t of ['text/html', 'application/xhtml+xml', 'application/vnd.wap.xhtml+xml']) expect(isHtmlType(t)).toBe(true);
    for (const t of ['text/plain', 'text/css', null, '']) expect(isHtmlType(t)).toBe(false);
    expect(isHtmlType(mediaType('Text/HTML; charset=utf-8'))).toBe(true);
  });
});
