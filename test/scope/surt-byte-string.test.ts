import { describe, expect, it } from 'vitest';
import { escapeOnce, unescapeRepeatedly } from '../../core/scope/surt-canonicalizer.ts';
import { fromByteString, toByteString } from '../../core/scope/surt-url-parts.ts';

// The byte-string helpers and the canonicalizer's escapes return an ASCII (or unescaped,
// or nothing-to-escape) string as it is (issue 20); each must give what the full path gives.
describe('python-surt byte strings and escapes: the short paths give what the full ones give', () => {
  let seed = 3;
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) % n;
  const pieces = ['http://a.example/', 'p', '/', '%', '%41', '%2525', '%zz', ' ', '\t', '#', '?', 'é', 'ü', '\u00ff', '\u0100', '\ud800', '\u{1F600}', '\x7f', '\x00', 'A', '~', '"'];
  const strings = ['', ...Array.from({ length: 5000 }, () => Array.from({ length: 1 + rand(8) }, () => pieces[rand(pieces.length)]).join(''))];

  it('converts to and from byte strings as a Buffer round trip does', () => {
    for (const s of strings) {
      expect(toByteString(s), JSON.stringify(s)).toBe(Buffer.from(s, 'utf8').toString('latin1'));
      expect(fromByteString(s), JSON.stringify(s)).toBe(Buffer.from(s, 'latin1').toString('utf8'));
    }
  });

  it('unescapes and escapes as the regex passes alone do', () => {
    const unescape = (s: string) => {
      for (;;) {
        const next = s.replace(/%([0-9a-fA-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
        if (next === s) return s;
        s = next;
      }
    };
    const escape = (s: string) =>
      s.replace(/[^A-Za-z0-9!"$&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
    for (const s of strings.map(toByteString)) {
      expect(unescapeRepeatedly(s), JSON.stringify(s)).toBe(unescape(s));
      expect(escapeOnce(s), JSON.stringify(s)).toBe(escape(s));
    }
  });
});
