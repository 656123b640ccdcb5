import { describe, expect, it } from 'vitest';
import { elfHash, parseQueuePolicy, queueAssigner, queueKeyFor } from '../../core/frontier/queue-assignment.ts';

describe('elfHash', () => {
  // Worked by hand from the formula in docs/FORMATS.md: h = (h << 4) + c; x = h & 0xF0000000;
  // if (x) h ^= x >> 24; h &= ~x; result & 0x7FFFFFFF.
  it('matches hand-computed values', () => {
    expect(elfHash('')).toBe(0);
    expect(elfHash('a')).toBe(97);
    expect(elfHash('ab')).toBe(97 * 16 + 98); // 1650
    expect(elfHash('abc')).toBe(1650 * 16 + 99); // 26499
    // abcd 424084, abcde 6785445, abcdef 108567222 (still < 2^28, so x stays 0)
    expect(elfHash('abcdef')).toBe(108567222);
    // abcdefg: h = 108567222*16 + 103 = 1737075655 = 0x6789ABC7; x = 0x60000000;
    // h ^= 0x60 → 0x6789ABA7; h &= ~x → 0x0789ABA7 = 126462887
    expect(elfHash('abcdefg')).toBe(126462887);
    // abcdefgh: h = 0x0789ABA7*16 + 104 = 0x789ABAD8; x = 0x70000000; h ^= 0x70 → 0x789ABAA8;
    // h &= ~x → 0x089ABAA8 = 144358056
    expect(elfHash('abcdefgh')).toBe(144358056);
  });

  it('works in 32-bit arithmetic on long and non-ASCII input (checked against a C-style uint32 version)', () => {
    expect(elfHash('zzzzzzzzzzzz')).toBe(172246074);
    expect(elfHash('http://www.sina.com.cn/news/index.html')).toBe(80838604);
    expect(elfHash('http://example.com/é中')).toBe(31220653);
    const long = 'http://example.com/' + 'x'.repeat(5000);
    const h = elfHash(long);
    expect(Number.isInteger(h) && h >= 0 && h <= 0x7fffffff).toBe(true);
  });
});

describe('queueKeyFor', () => {
  it("'host' keys by host, sharing http and https, keeping a non-default port", () => {
    expect(queueKeyFor('http://Example.COM/a', 'host')).toBe('example.com');
    expect(queueKeyFor('https://example.com:443/b', 'host')).toBe('example.com');
    expect(queueKeyFor('http://example.com:80/c', 'host')).toBe('example.com');
    expect(queueKeyFor('http://example.com:8080/c', 'host')).toBe('example.com:8080');
    expect(queueKeyFor('https://example.com:80/c', 'host')).toBe('example.com:80');
    expect(queueKeyFor('http://127.0.0.1:4000/', 'host')).toBe('127.0.0.1:4000');
    expect(queueKeyFor('http://[::1]/', 'host')).toBe('[::1]');
    expect(queueKeyFor('http://www.example.com/', 'host')).toBe('www.example.com');
  });

  it("'elfhash:N' spreads one host over N queues by ELFHash of the URL", () => {
    const url = 'http://www.sina.com.cn/news/index.html';
    expect(queueKeyFor(url, 'elfhash:50')).toBe(`www.sina.com.cn#${80838604 % 50}`);
    const assign = queueAssigner('elfhash:50');
    const keys = new Set(Array.from({ length: 2000 }, (_, i) => assign(`http://news.test/article?id=${i}`)));
    expect(keys.size).toBe(50);
    for (const k of keys) expect(k).toMatch(/^news\.test#\d+$/);
    // A property of the formula, not a bug here: the hash's lowest bit is the last character's, so
    // with an even N every URL ending in `.html` ('l' = 108) lands in an even bucket: 25 of 50.
    const html = new Set(Array.from({ length: 2000 }, (_, i) => assign(`http://news.test/article/${i}.html`)));
    expect(html.size).toBe(25);
    for (const k of html) expect(Number(k.split('#')[1]) % 2).toBe(0);
    expect(queueKeyFor('http://a.test/', 'elfhash:1')).toBe('a.test#0');
  });

  it('rejects unknown policies and bad URLs with stable codes', () => {
    expect(parseQueuePolicy('host')).toEqual({ kind: 'host' });
    expect(parseQueuePolicy('elfhash:7')).toEqual({ kind: 'elfhash', buckets: 7 });
    for (const p of ['elfhash:0', 'elfhash:', 'elfhash:-3', 'domain', 'elfhash:1.5']) {
      expect(() => parseQueuePolicy(p)).toThrow(expect.objectContaining({ code: 'QUEUE_POLICY_INVALID' }));
    }
    expect(() => queueKeyFor('not a url', 'host')).toThrow(expect.objectContaining({ code: 'URL_INVALID' }));
  });
});
