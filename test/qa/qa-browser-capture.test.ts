/**
 * Browser captures score good against their own capture-time reference (issue 34, "Measured:
 * browser captures"): the browser-site fixtures are crawled with the browser (`startCrawl` with
 * `browser: { enabled: true }`, as `trove crawl --browser` runs it, seeded with the fixture pages),
 * the site is shut, and `trove qa` replays each page and compares it with the `urn:view:`
 * screenshot and `urn:text:` text the crawl stored. Every fixture page must be good, scored
 * against its capture (not replay alone); the scores are printed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import { runQa } from '../../core/qa/qa-run.ts';
import { listQaPages, qaShotPath } from '../../core/archive/qa-store.ts';
import { BROWSER_SITE_PAGES, startBrowserSite } from '../helpers/browser-site-server.ts';
import { findChromium, NO_CHROMIUM_MESSAGE } from '../e2e/harness.ts';

const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);

describe.skipIf(!chromium)('trove qa on a browser crawl: every page good against its capture', () => {
  let tmp: string;
  let dir: string;
  let origin = '';

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-qa-browser-'));
    dir = path.join(tmp, 'crawl');
    const site = await startBrowserSite();
    origin = site.origin;
    try {
      const crawl = await startCrawl({
        dir,
        settings: {
          seeds: BROWSER_SITE_PAGES.map((p) => origin + p),
          concurrency: 4,
          perHost: 2,
          delayFactor: 0,
          minDelayMs: 0,
          maxDelayMs: 0,
          minFreeDiskBytes: 0,
          maxRetries: 0,
          browser: { enabled: true, tabs: 2, path: chromium! },
        },
      });
      expect((await crawl.finished()).finishReason).toBe('frontier-empty');
    } finally {
      await site.close();
    }
  }, 300_000);

  afterAll(() => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('scores every fixture page good against its capture-time screenshot and text', async () => {
    await runQa(dir, { tabs: 2, chromiumPath: chromium!, only: BROWSER_SITE_PAGES.map((p) => ({ url: origin + p, ts: '' })) });
    const pages = listQaPages(dir);
    for (const p of pages) {
      console.log(`${p.band.padEnd(8)} ${p.reference.padEnd(11)} shot ${p.screenshotScore?.toFixed(3)} text ${p.textScore?.toFixed(3)} res ${p.resourceScore.toFixed(2)} ${p.url}`, p.missingUrls, p.errorUrls);
    }
    for (const f of BROWSER_SITE_PAGES) {
      const p = pages.find((x) => x.url === origin + f);
      expect(p, f).toBeDefined();
      expect(p!.reference, f).toBe('capture');
      expect(p!.screenshotScore, f).not.toBeNull();
      expect(p!.textScore, f).not.toBeNull();
      expect(`${f} ${p!.band}`).toBe(`${f} good`);
      expect(qaShotPath(dir, p!.url, p!.ts, 'reference'), f).not.toBeNull();
      expect(qaShotPath(dir, p!.url, p!.ts, 'diff'), f).not.toBeNull();
    }
  }, 600_000);
});
