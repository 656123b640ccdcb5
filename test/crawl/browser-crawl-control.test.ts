/**
 * The crawl's controls hold in browser mode as they do for HTTP (real Chromium, the browser
 * fixture site on 127.0.0.1 port 0, WARCs read back with warcio):
 *
 * - `limitPages` captures exactly that many pages, each whole, and loads no page beyond it;
 * - pause lets the pages in the tabs finish and claims nothing new (the site sees no request
 *   while paused); resume goes on to the end, and every URI is captured once: one crawl.log
 *   line per URI, one response record per page, everything the browser asked for archived;
 * - the tabs send the crawl's User-Agent on pages and on everything they load, not Chromium's,
 *   and a per-host override's agent on that host's pages.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import { parseOverride } from '../../core/cli/crawl-options.ts';
import { findChromium } from '../e2e/harness.ts';
import type { CrawlState } from '../../core/api/crawl-snapshot.ts';
import { verifyCrawlDir } from '../helpers/verify-crawl-dir.ts';
import { startBrowserSite, type BrowserSiteServer } from '../helpers/browser-site-server.ts';

const chromium = findChromium();

const fast = { concurrency: 4, perHost: 2, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, maxRetries: 0 };

/** crawl.log lines (whitespace-split fields) of the URIs loaded in a tab. */
function browserLines(dir: string): string[][] {
  return fs
    .readFileSync(path.join(dir, 'logs', 'crawl.log'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split(/\s+/))
    .filter((f) => /browser:\d+/.test(f[11] ?? ''));
}

const isPagePath = (u: string) => /\.html$|\/$/.test(new URL(u, 'http://x').pathname);

describe.skipIf(!chromium)('browser crawl controls', () => {
  let site: BrowserSiteServer;
  const dirs: string[] = [];
  const newDir = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-browser-control-'));
    dirs.push(d);
    return d;
  };
  beforeAll(async () => {
    site = await startBrowserSite();
  });
  afterAll(async () => {
    await site.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('--limit-pages 3 captures exactly three pages with two tabs, and loads no fourth', async () => {
    const before = site.hits.length;
    const dir = newDir();
    const crawl = await startCrawl({ dir, settings: { ...fast, seeds: [`${site.origin}/`], limitPages: 3, browser: { enabled: true, tabs: 2, path: chromium! } } });
    const final = await crawl.finished();
    expect(final.finishReason).toBe('limit-pages');
    expect(final.pages).toBe(3);

    const check = await verifyCrawlDir(dir);
    expect(check.openFiles).toEqual([]);
    expect(check.warcOnly).toEqual([]);
    expect(check.indexOnly).toEqual([]);
    const pages = browserLines(dir).map((f) => f[3]);
    expect(pages).toHaveLength(3);
    // Each page has its document (read back by warcio) and its screenshot: captured whole.
    for (const p of pages) {
      expect(check.records.filter((r) => r.type === 'response' && r.targetUri === p), p).toHaveLength(1);
      expect(check.records.some((r) => r.type === 'resource' && r.targetUri === `urn:view:${p}`), p).toBe(true);
    }
    // The site was asked for three top-level pages, no more (iframes and fetches aside, which
    // are a page's own parts: only the URIs the crawl loaded as pages are counted here).
    const asked = new Set(site.hits.slice(before).filter((h) => h.method === 'GET' && isPagePath(h.url)).map((h) => site.origin + h.url));
    const loadedAsPages = [...asked].filter((u) => check.records.some((r) => r.type === 'resource' && r.targetUri === `urn:view:${u}`));
    expect(loadedAsPages.sort()).toEqual([...pages].sort());
  }, 180_000);

  it('pause lets the tabs finish and claims nothing; resume goes to the end with every URI captured once', async () => {
    const before = site.hits.length;
    const dir = newDir();
    const crawl = await startCrawl({ dir, settings: { ...fast, seeds: [`${site.origin}/`], browser: { enabled: true, tabs: 2, path: chromium! } } });
    const states: CrawlState[] = [];
    crawl.on((e) => e.type === 'state' && states.push(e.state));
    // Paused once the seed page is in and others are being captured.
    while (!fs.existsSync(path.join(dir, 'logs', 'crawl.log')) || browserLines(dir).length < 1) await new Promise((r) => setTimeout(r, 20));
    crawl.pause();
    while (crawl.state !== 'paused') await new Promise((r) => setTimeout(r, 20));
    expect(crawl.snapshot().inFlight).toBe(0);
    const pagesAtPause = browserLines(dir).length;
    const hitsAtPause = site.hits.length;
    // Nothing is asked of the site while paused (no page claimed, no tab still loading).
    await new Promise((r) => setTimeout(r, 1500));
    expect(site.hits.length).toBe(hitsAtPause);
    expect(browserLines(dir).length).toBe(pagesAtPause);
    crawl.resume();
    const final = await crawl.finished();
    expect(final.finishReason).toBe('frontier-empty');
    expect(states).toEqual(expect.arrayContaining(['running', 'pausing', 'paused', 'finished']));
    expect(pagesAtPause).toBeLessThan(final.pages);

    const check = await verifyCrawlDir(dir);
    expect(check.openFiles).toEqual([]);
    expect(check.warcOnly).toEqual([]);
    expect(check.indexOnly).toEqual([]);
    // Nothing lost: everything the browser asked the site for is archived.
    const archived = new Set(check.records.filter((r) => r.type === 'response' || r.type === 'revisit').map((r) => r.targetUri!));
    const requested = new Set(site.hits.slice(before).filter((h) => h.method === 'GET').map((h) => site.origin + h.url));
    expect([...requested].filter((u) => !archived.has(u))).toEqual([]);
    for (const p of ['/', '/spa.html', '/lazy.html', '/infinite.html', '/srcset.html', '/font-bg.html', '/video.html', '/load-more.html', '/articles/dynamic.html']) {
      expect(archived.has(site.origin + p), p).toBe(true);
    }
    // Once: each URI has one outcome in crawl.log, each page one response record and one screenshot.
    const log = fs.readFileSync(path.join(dir, 'logs', 'crawl.log'), 'utf8').trim().split('\n').map((l) => l.split(/\s+/)[3]);
    expect(log.filter((u, i) => log.indexOf(u) !== i)).toEqual([]);
    for (const f of browserLines(dir)) {
      expect(check.records.filter((r) => r.type === 'response' && r.targetUri === f[3]), f[3]).toHaveLength(1);
      expect(check.records.filter((r) => r.type === 'resource' && r.targetUri === `urn:view:${f[3]}`), f[3]).toHaveLength(1);
    }
    expect(browserLines(dir).length).toBe(final.pages);
  }, 240_000);

  it("the tabs send the crawl's User-Agent on pages and on what they load", async () => {
    const agent = 'TroveFixtureBot/1.0 (+https://example.org/bot)';
    const before = site.hits.length;
    const dir = newDir();
    const crawl = await startCrawl({ dir, settings: { ...fast, userAgent: agent, seeds: [`${site.origin}/spa.html`], limitPages: 1, browser: { enabled: true, tabs: 1, path: chromium! } } });
    const final = await crawl.finished();
    expect(final.pages).toBe(1);
    const hits = site.hits.slice(before);
    // The page, its script, its fetch()ed JSON and its POST: the document and its resources.
    for (const u of ['/robots.txt', '/spa.html', '/api/articles.json']) expect(hits.some((h) => h.url === u), u).toBe(true);
    expect(hits.filter((h) => h.url !== '/robots.txt').length).toBeGreaterThan(2);
    expect(hits.filter((h) => h.userAgent !== agent)).toEqual([]);
  }, 120_000);

  it("a per-host override's User-Agent is what the tabs send on that host's pages", async () => {
    const other = 'OtherAgent/2.0 (+https://example.org/bot)';
    const host = new URL(site.origin).hostname;
    const before = site.hits.length;
    const dir = newDir();
    const crawl = await startCrawl({
      dir,
      settings: { ...fast, seeds: [`${site.origin}/spa.html`], limitPages: 1, overrides: [parseOverride(`host=${host},user-agent=${other}`)], browser: { enabled: true, tabs: 1, path: chromium! } },
    });
    expect((await crawl.finished()).pages).toBe(1);
    const hits = site.hits.slice(before);
    expect(hits.some((h) => h.url === '/api/articles.json')).toBe(true);
    expect(hits.filter((h) => h.userAgent !== other)).toEqual([]);
  }, 120_000);
});
