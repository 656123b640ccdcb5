/** One media-type rule for the index, CDXJ, crawl statistics and extraction. */
import { describe, expect, it } from 'vitest';
import { headMediaType, mediaType } from '../../core/formats/media-type.ts';

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
});
