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

  it('cuts where the split on /[;\\s]/ of the trimmed value cut, for every whitespace character', () => {
    const reference = (ct: string | null): string | null => {
      if (!ct) return null;
      const t = ct.trim().split(/[;\s]/, 1)[0]!.toLowerCase();
      return t === '' ? null : t;
    };
    const spaces = [...Array.from({ length: 0x3001 }, (_, c) => String.fromCharCode(c)).filter((ch) => /\s/.test(ch)), '\ufeff'];
    let seed = 5;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) % n;
    const parts = ['Text/HTML', 'image/png', ';', 'charset=UTF-8', '', 'x', '\u0085', '\u200b', 'É', ...spaces];
    for (let i = 0; i < 5000; i++) {
      const ct = Array.from({ length: 1 + rand(5) }, () => parts[rand(parts.length)]).join('');
      expect(mediaType(ct), JSON.stringify(ct)).toBe(reference(ct));
    }
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
