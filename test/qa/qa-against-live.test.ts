/**
 * `trove qa --against-live`: pages an HTTP crawl captured (no capture-time screenshot) are scored
 * against the live page loaded in the same Chromium and viewport, and robots.txt is obeyed —
 * a page it disallows for Trove is not loaded live and is scored on replay alone. The fixture
 * site's robots.txt disallows /p/42.html only for Trove's agent token, so the crawl (run with
 * `robots: ignore`) still captured it.
 *
 * Then QA of a WACZ made by another tool (the "Done when"): GNU wget (Debian) writes
 * WARCs of two pages of the same site — one with its page requisites, one without (its image is
 * missing; its stylesheet is the one the other page fetched) — @harvard-lil/js-wacz packs them, Trove imports the package,
 * and `trove qa` scores it replay-only and `--against-live`: the whole page good, the one whose
 * resources are missing worse.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQa } from '../../core/qa/qa-run.ts';
import { listQaPages, qaShotPath } from '../../core/archive/qa-store.ts';
import { runCrawl, type CrawlRun } from '../helpers/run-crawl.ts';
import { startQaSite, type QaSite } from '../helpers/qa-site.ts';
import { findChromium, NO_CHROMIUM_MESSAGE } from '../e2e/harness.ts';
import { runCli } from '../../core/cli/main.ts';

const execFileAsync = promisify(execFile);
/** js-wacz's command, run with this Node (the system's may be older than it needs). */
const JS_WACZ = fs.realpathSync(path.join(import.meta.dirname, '../../node_modules/.bin/js-wacz'));

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

  it('a WACZ made by js-wacz from wget\'s WARCs, imported: replay-only and --against-live, the page missing its resources scores worse', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-qa-jswacz-'));
    try {
      const warcs = path.join(tmp, 'warcs');
      fs.mkdirSync(warcs);
      // Asynchronously: the fixture site is served by this very process.
      const wget = (name: string, url: string, requisites: boolean) =>
        execFileAsync('wget', [...(requisites ? ['--page-requisites'] : []), '--no-verbose', '--tries=1', '--timeout=10', '--warc-file=' + path.join(warcs, name), '--directory-prefix=' + path.join(tmp, 'files'), url], { timeout: 60_000 }).catch((err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOENT') throw new Error('GNU wget is needed for this test (Debian: apt-get install wget)');
          throw err;
        });
      await wget('whole', site.pageUrl(40), true);
      await wget('bare', site.pageUrl(41), false);
      const wacz = path.join(tmp, 'wget.wacz');
      await execFileAsync(process.execPath, [JS_WACZ, 'create', '-f', path.join(warcs, '*.warc.gz'), '-o', wacz, '--log-level', 'error'], { timeout: 120_000 });
      const imported = path.join(tmp, 'imported');
      const io = { stdout: { write: () => true }, stderr: { write: () => true } };
      expect(await runCli(['import', '--archive', imported, wacz], io as never)).toBe(0);

      const pageOf = (n: number) => listQaPages(imported).find((p) => p.url === site.pageUrl(n))!;
      const replayOnly = await runQa(imported, { tabs: 2, chromiumPath: chromium! });
      expect(replayOnly.references).toEqual({ 'replay-only': 2 });
      const [whole, bare] = [pageOf(40), pageOf(41)];
      console.log(`js-wacz import, replay-only: p/40 ${whole.band} res ${whole.resourceScore}; p/41 ${bare.band} res ${bare.resourceScore} missing ${bare.missingUrls.join(' ')}`);
      expect(whole.band).toBe('good');
      expect(bare.band).not.toBe('good');
      // Its stylesheet is the one page 40 uses, which wget fetched with page 40: only its image is missing.
      expect(bare.missingUrls).toEqual([`${site.origin}/img/41.png`]);

      const live = await runQa(imported, { againstLive: true, tabs: 2, chromiumPath: chromium! });
      expect(live.references).toEqual({ live: 2 });
      const [wholeLive, bareLive] = [pageOf(40), pageOf(41)];
      console.log(`js-wacz import, against live: p/40 ${wholeLive.band} shot ${wholeLive.screenshotScore?.toFixed(3)} text ${wholeLive.textScore?.toFixed(3)}; ` +
        `p/41 ${bareLive.band} shot ${bareLive.screenshotScore?.toFixed(3)} text ${bareLive.textScore?.toFixed(3)}`);
      expect(wholeLive.band).toBe('good');
      expect(bareLive.band).not.toBe('good');
      expect(bareLive.screenshotScore!).toBeLessThan(wholeLive.screenshotScore!);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }, 300_000);
});
