/**
 * Trap defence: the default rules stop path repeats and depth; the detector flags a host whose
 * accepted URLs keep growing with one numeric or query shape (a calendar, endless pagination)
 * and proposes an exclude rule, which really does match those URLs — it never excludes by itself.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrapDetector, urlShape } from '../../core/crawl/trap-detector.ts';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import { startFixtureSite, type FixtureSite } from '../fixtures/fixture-site.ts';

describe('trap detector', () => {
  it('reduces URLs to shapes and proposes an exclude that matches them', () => {
    const s = urlShape('http://example.org/calendar/2026/11/21?view=day&x=1')!;
    expect(s.shape).toBe('/calendar/N/N/N?view&x');
    const re = new RegExp(s.pattern);
    expect(re.test('http://example.org/calendar/1999/01/02?view=week')).toBe(true);
    expect(re.test('http://example.org/about')).toBe(false);
    expect(re.test('http://other.org/calendar/2026/11/21?view=day')).toBe(false);
  });

  it('flags a shape only past its threshold, and never plain paths', () => {
    const d = new TrapDetector();
    for (let i = 0; i < 2000; i++) d.observe(`http://example.org/docs/page-name-${String.fromCharCode(97 + (i % 26))}${i % 7}.html`.replace(/\d/g, 'z'));
    expect(d.warnings()).toEqual([]);
    for (let i = 0; i < 499; i++) d.observe(`http://example.org/cal?day=${i}`);
    expect(d.warnings()).toEqual([]);
    d.observe('http://example.org/cal?day=500');
    const [w] = d.warnings();
    expect(w).toMatchObject({ host: 'example.org', pattern: '/cal?day', count: 500 });
  });

  describe('in a crawl of an endless calendar', () => {
    let site: FixtureSite;
    let dir: string;
    beforeAll(async () => {
      site = await startFixtureSite({
        routes: {
          '/': (_q, r) => {
            r.writeHead(200, { 'Content-Type': 'text/html' });
            r.end('<a href="/calendar?day=0">calendar</a>');
          },
          '/calendar': (q, r) => {
            const day = Number(new URL(q.url!, 'http://x').searchParams.get('day'));
            r.writeHead(200, { 'Content-Type': 'text/html' });
            r.end(`<a href="/calendar?day=${day + 1}">next</a> <a href="/calendar?day=${day + 2}">next 2</a>`);
          },
        },
      });
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-trap-'));
    });
    afterAll(async () => {
      await site.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('is stopped by the default hop limit', async () => {
      const crawl = await startCrawl({
        dir: path.join(dir, 'default'),
        settings: { seeds: [site.origin + '/'], delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0 },
      });
      const final = await crawl.finished();
      expect(final.finishReason).toBe('frontier-empty');
      expect(Object.keys(final.scopeRejections).some((rule) => /hops/.test(rule))).toBe(true);
    }, 60_000);

    it('without a hop limit, warns with a suggested exclude while the crawl goes on', async () => {
      const crawl = await startCrawl({
        dir: path.join(dir, 'no-hop-limit'),
        settings: { seeds: [site.origin + '/'], delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, maxHops: 100_000, limitUris: 520 },
      });
      const said: string[] = [];
      crawl.on((e) => e.type === 'log' && said.push(e.message));
      const final = await crawl.finished();
      expect(final.finishReason).toBe('limit-uris');
      const trap = final.traps.find((t) => t.pattern === '/calendar?day');
      expect(trap).toBeDefined();
      expect(new RegExp(trap!.suggestedExclude).test(`${site.origin}/calendar?day=12345`)).toBe(true);
      expect(said.filter((m) => m.startsWith('possible crawler trap')).length).toBe(1);
    }, 60_000);
  });
});
