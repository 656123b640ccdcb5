/**
 * A recrawl's WACZ in ReplayWeb.page alone (issue 38): a site crawled, then crawled again with
 * `trove recrawl` (its unchanged pages 304 revisits and identical-payload revisits pointing into
 * the first crawl), exported by default — self-contained, with the originals it needs packed in
 * `archive/earlier-payloads.warc.gz` — and opened in ReplayWeb.page with the first crawl out of
 * reach (the site is shut, the first crawl's directory removed). Every page is listed and each
 * replays with the text the site served, and its raw capture (`id_`, unrewritten) is the body the
 * site served at the recrawl, byte for byte. ReplayWeb.page finds a revisit's original by its
 * WARC-Refers-To-Target-URI and WARC-Refers-To-Date, which is what this shows.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Frame, Page } from 'playwright-core';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import { planRecrawl, startRecrawl } from '../../core/crawl/recrawl.ts';
import { openArchive } from '../../core/archive/archive-dir.ts';
import { exportWacz } from '../../core/export/export-wacz.ts';
import { startFixtureSite, type FixtureSite } from '../fixtures/fixture-site.ts';
import { CHROMIUM_ARGS, findChromium, NO_CHROMIUM_MESSAGE } from './harness.ts';
import { serveReplayWebPage, type ReplayWebPageServer } from './replaywebpage-server.ts';

const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);

const fast = { delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, maxRetries: 0, concurrency: 2 };

/** Page path → the text of its <p>, as the site served it at the recrawl. */
const TEXTS: Record<string, string> = {
  '/etag.html': 'Answered 304 at the recrawl.',
  '/same.html': 'Answered 200 with the same bytes at the recrawl.',
  '/news.html': 'The news of the second crawl.',
};

describe.skipIf(!chromium)('ReplayWeb.page replays a recrawl from its WACZ alone (Chromium)', () => {
  let site: FixtureSite;
  let root: string;
  let wacz: string;
  let origin: string;
  let browser: Browser;
  let server: ReplayWebPageServer;
  let second = false;
  /** Path → the body the site served at the recrawl (base64), fetched before it is shut. */
  const live: Record<string, string> = {};

  beforeAll(async () => {
    const html = (r: http.ServerResponse, title: string, body: string, headers: Record<string, string> = {}) => {
      r.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', ...headers });
      r.end(`<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`);
    };
    site = await startFixtureSite({
      routes: {
        '/': (_q, r) => html(r, 'Home', '<p>Home.</p><a href="/etag.html">etag</a> <a href="/same.html">same</a> <a href="/news.html">news</a>', { ETag: '"home"' }),
        '/etag.html': (q, r) => {
          if (q.headers['if-none-match'] === '"e1"') {
            r.writeHead(304, { ETag: '"e1"' });
            return r.end();
          }
          html(r, 'Etag', `<p>${TEXTS['/etag.html']}</p><img src="/img/logo.png">`, { ETag: '"e1"' });
        },
        '/same.html': (_q, r) => html(r, 'Same', `<p>${TEXTS['/same.html']}</p>`),
        '/news.html': (_q, r) => html(r, 'News', `<p>${second ? TEXTS['/news.html'] : 'The news of the first crawl.'}</p>`),
      },
    });
    origin = site.origin;
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-rwp-recrawl-'));
    const first = path.join(root, 'site');
    await (await startCrawl({ dir: first, settings: { ...fast, seeds: [origin + '/'] } })).finished();
    second = true;
    const plan = planRecrawl(first, path.join(root, 'site-2'));
    await (await startRecrawl(plan)).finished();
    wacz = path.join(root, 'recrawl.wacz');
    const a = openArchive(plan.dir, { create: false });
    try {
      await exportWacz(a, wacz);
    } finally {
      a.close();
    }
    for (const p of [...Object.keys(TEXTS), '/img/logo.png']) live[p] = Buffer.from(await (await fetch(origin + p)).arrayBuffer()).toString('base64');
    await site.close();
    // Nothing of the first crawl is left to reach.
    fs.rmSync(first, { recursive: true, force: true });
    server = await serveReplayWebPage();
    const { chromium: pw } = await import('playwright-core');
    browser = await pw.launch({ executablePath: chromium!, args: CHROMIUM_ARGS });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  async function open(): Promise<{ page: Page; close(): Promise<void> }> {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    const source = server.addWacz('recrawl.wacz', wacz);
    await page.goto(`${server.origin}/?source=${encodeURIComponent(source)}#view=pages`);
    return { page, close: () => context.close() };
  }

  async function replay(page: Page, url: string): Promise<Frame> {
    await page.locator('wr-page-entry').filter({ has: page.locator(`keyword-mark[title="${url}"]`) }).locator('a').first().click();
    let frame: Frame | undefined;
    await expect
      .poll(() => {
        frame = page.frames().find((f) => /\/w\/[^/]+\/.*\d{14}mp_\//.test(f.url()) && f.url().endsWith('mp_/' + url));
        return frame !== undefined;
      }, { timeout: 30_000 })
      .toBe(true);
    await frame!.waitForFunction(() => document.readyState === 'complete' && [...document.images].every((i) => i.complete), undefined, { timeout: 30_000 });
    return frame!;
  }

  it('lists every page of the recrawl and replays each, unchanged ones through the packed originals', async () => {
    const { page, close } = await open();
    try {
      const urls = page.locator('wr-page-entry .page-url keyword-mark');
      await expect.poll(() => urls.count(), { timeout: 30_000 }).toBe(4);
      for (const [p, text] of Object.entries(TEXTS)) {
        await page.goto(`${server.origin}/?source=${encodeURIComponent(server.addWacz('recrawl.wacz', wacz))}#view=pages`);
        await expect.poll(() => urls.count(), { timeout: 30_000 }).toBe(4);
        const frame = await replay(page, origin + p);
        const seen = await frame.evaluate(() => ({ p: document.querySelector('p')?.textContent ?? null, images: [...document.images].map((i) => i.naturalWidth) }));
        expect([p, seen.p]).toEqual([p, text]);
        if (p === '/etag.html') expect(seen.images[0]).toBeGreaterThan(0);
        // Identical to the live site: the raw capture (id_ instead of mp_) is the body it served.
        const rawUrl = (u: string) => frame.url().replace(/mp_\/.*$/, 'id_/' + u);
        const raws: [string, string][] = [[p, live[p]!], ...(p === '/etag.html' ? ([['/img/logo.png', live['/img/logo.png']!]] as [string, string][]) : [])];
        for (const [q, want] of raws) {
          const got = await page.evaluate(async (u) => {
            const r = await fetch(u);
            const bytes = new Uint8Array(await r.arrayBuffer());
            let bin = '';
            for (const b of bytes) bin += String.fromCharCode(b);
            return { status: r.status, body: btoa(bin) };
          }, rawUrl(origin + q));
          expect([q, got.status, got.body]).toEqual([q, 200, want]);
        }
      }
    } finally {
      await close();
    }
  }, 120_000);
});
