/**
 * `trove qa --against-live`: pages an HTTP crawl captured (no capture-time screenshot) are scored
 * against the live page loaded in the same Chromium and viewport, and robots.txt is obeyed —
 * a page it disallows for Trove is not loaded live and is scored on replay alone. The fixture
 * site's robots.txt disallows /p/42.html only for Trove's agent token, so the crawl (run with
 * `robots: ignore`) still captured it.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQa } from '../../core/qa/qa-run.ts';
import { listQaPages, qaShotPath } from '../../core/archive/qa-store.ts';
import { runCrawl, type CrawlRun } from '../helpers/run-crawl.ts';
import { startQaSite, type QaSite } from '../helpers/qa-site.ts';
import { findChromium, NO_CHROMIUM_MESSAGE } from '../e2e/harness.ts';

const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);

describe.skipIf(!chromium)('trove qa --against-live', () => {
  let site: QaSite;
  let crawl: CrawlRun;

  beforeAll(async () => {
    site = await startQaSite({ robots: 'User-agent: Trove\nDisallow: /p/42.html\n' });
    crawl = await runCrawl({ seeds: [site.origin + '/'], robots: 'ignore' });
    expect(crawl.final.finishReason).toBe('frontier-empty');
  }, 120_000);

  afterAll(async () => {
    await site?.close();
    crawl?.cleanup();
  });

  it('scores against the live page where robots.txt allows it, on replay alone where it does not', async () => {
    const pages = [40, 41, 42].map((n) => ({ url: site.pageUrl(n), ts: '' }));
    const before = new Map(site.hits);
    const run = await runQa(crawl.dir, { againstLive: true, tabs: 2, chromiumPath: chromium!, only: pages });
    expect(run.references).toEqual({ live: 2, 'replay-only': 1 });
    const results = listQaPages(crawl.dir);
    for (const p of results) console.log(`${p.band} ${p.reference} shot ${p.screenshotScore?.toFixed(3)} text ${p.textScore?.toFixed(3)} ${p.url}`);
    for (const n of [40, 41]) {
      const p = results.find((x) => x.url === site.pageUrl(n))!;
      expect(p.reference).toBe('live');
      expect(p.screenshotScore!).toBeGreaterThanOrEqual(0.9);
      expect(p.textScore!).toBeGreaterThanOrEqual(0.9);
      expect(p.band).toBe('good');
      expect(fs.existsSync(qaShotPath(crawl.dir, p.url, p.ts, 'reference')!)).toBe(true);
      expect(site.hits.get(`/p/${n}.html`)).toBe((before.get(`/p/${n}.html`) ?? 0) + 1);
    }
    const refused = results.find((x) => x.url === site.pageUrl(42))!;
    expect(refused.reference).toBe('replay-only');
    expect(refused.band).toBe('good');
    // robots.txt was read, the disallowed page never requested live.
    expect(site.hits.get('/p/42.html')).toBe(before.get('/p/42.html'));
    expect(site.hits.get('/robots.txt')).toBeGreaterThan(before.get('/robots.txt') ?? 0);
  }, 300_000);
});
