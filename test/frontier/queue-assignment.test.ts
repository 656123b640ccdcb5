import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteFrontier } from '../../core/frontier/sqlite-frontier.ts';
import { openDatabase } from '../../core/storage/open-database.ts';
import { makeTempDir } from '../storage/temp-dir.ts';
import { cand } from './frontier-contract.ts';
import { elfHash, elfQueue, parseQueuePolicy, queueAssigner, queueKeyFor } from '../../core/frontier/queue-assignment.ts';

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
    expect(queueKeyFor(url, 'elfhash:50')).toBe(`www.sina.com.cn#${elfQueue(url, 50)}`);
    const assign = queueAssigner('elfhash:50');
    const keys = new Set(Array.from({ length: 2000 }, (_, i) => assign(`http://news.test/article?id=${i}`)));
    expect(keys.size).toBe(50);
    for (const k of keys) expect(k).toMatch(/^news\.test#\d+$/);
    // The plain `% 50` of the raw hash reached only the 25 even queues for URLs ending in `.html`.
    const html = new Set(Array.from({ length: 2000 }, (_, i) => assign(`http://news.test/article/${i}.html`)));
    expect(html.size).toBe(50);
    expect(queueKeyFor('http://a.test/', 'elfhash:1')).toBe('a.test#0');
  });

  // Coefficient of variation (stdev / mean) of the queue sizes: 0 is perfectly even.
  function spread(urls: string[], n: number): { cv: number; sizes: number[] } {
    const sizes = new Array<number>(n).fill(0);
    for (const u of urls) sizes[elfQueue(u, n)]!++;
    const mean = urls.length / n;
    const sd = Math.sqrt(sizes.reduce((a, s) => a + (s - mean) ** 2, 0) / n);
    return { cv: sd / mean, sizes };
  }

  const shapes: [string, (i: number) => string][] = [
    ['.html', (i) => `http://site.test/p/${i}.html`],
    ['digits', (i) => `http://site.test/p/${i}`],
    ['/-ending', (i) => `http://site.test/docs/section-${i}/`],
    ['query string', (i) => `http://site.test/view?id=${i}&lang=en`],
    ['image with version query', (i) => `http://site.test/img/${i % 97}.png?v=${i}`],
  ];
  it.each(shapes)('1,000 URLs of one site ending in %s spread over 8 queues with CV < 0.2', (_name, make) => {
    const urls = Array.from({ length: 1000 }, (_, i) => make(i));
    const { cv, sizes } = spread(urls, 8);
    expect(cv, `sizes ${sizes.join(' ')}`).toBeLessThan(0.2);
    expect(Math.min(...sizes)).toBeGreaterThan(0);
  });

  it('spreads evenly for any N, powers of two included', () => {
    const urls = Array.from({ length: 4000 }, (_, i) => `http://site.test/p/${i}.html`);
    for (const n of [2, 3, 4, 7, 8, 16, 32, 50]) expect(spread(urls, n).cv, `N=${n}`).toBeLessThan(0.2);
    // What the plain modulus did, pinned so the reason stays visible: one queue of 8 for `.html`.
    const plain = new Set(urls.map((u) => elfHash(u) % 8));
    expect(plain.size).toBe(1);
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

describe('queue keys on resume', () => {
  const tmp = makeTempDir('trove-queue-keys-');
  afterAll(() => tmp.remove());

  it('a URI keeps the queue it was queued under: keys of an older assignment survive a reopen', () => {
    const file = path.join(tmp.dir, 'crawl.sqlite');
    let db = openDatabase(file);
    // Queued by a build that reduced the raw hash modulo 8: every `.html` page in one queue.
    const urls = Array.from({ length: 40 }, (_, i) => `http://site.test/p/${i}.html`);
    const oldKey = (u: string) => `site.test#${elfHash(u) % 8}`;
    createSqliteFrontier(db, { defaultMaxInFlight: 100 }).schedule(urls.map((u) => cand(u, { queueKey: oldKey(u) })));
    db.close();
    db = openDatabase(file);
    const f = createSqliteFrontier(db, { defaultMaxInFlight: 100 });
    f.recoverInFlight();
    const claimed = new Map<string, string>();
    for (let c = f.claim(0); c; c = f.claim(0)) claimed.set(c.url, c.queueKey);
    db.close();
    expect(claimed.size).toBe(urls.length);
    for (const u of urls) expect(claimed.get(u)).toBe(oldKey(u));
    expect(new Set(claimed.values()).size).toBe(1);
    // URIs found after the resume get the mixed key: the crawl spreads from then on.
    expect(new Set(urls.map((u) => queueKeyFor(u, 'elfhash:8'))).size).toBe(8);
  });
});
