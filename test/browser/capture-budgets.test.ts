/**
 * capturePage in Chromium where a page would never let a naive capture finish or would hide its
 * traffic: an endless feed (stopped by the height budget, and by the time budget on a driven
 * clock), a seed that redirects (each hop an exchange, the page's status the final one), and a
 * service worker that answers a request itself (bypassed while recording, so the request goes to
 * the network and is archived), and requests made by a cross-site iframe (its own process) and a
 * dedicated worker, which the tab's own session does not see. Assertions are on outcomes, never on how long anything took.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium, NO_CHROMIUM_MESSAGE } from '../e2e/harness.ts';
import { startBrowserSite, type BrowserSiteServer } from '../helpers/browser-site-server.ts';
import { captureInBrowser, collectingSink } from '../helpers/browser-archive.ts';
import type { BrowserClock } from '../../core/browser/browser-clock.ts';

const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);

/** Virtual time: each sleep advances it by what was asked, after a real 2 ms yield to the browser. */
function drivenClock(): BrowserClock {
  let t = 0;
  return {
    now: () => t,
    sleep: (ms) =>
      new Promise((resolve) =>
        setTimeout(() => {
          t += ms;
          resolve();
        }, 2),
      ),
  };
}

describe.skipIf(!chromium)('capturePage budgets, redirects and service workers (Chromium)', () => {
  let browser: Browser;
  let site: BrowserSiteServer;
  let tmp: string;

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-browser-budgets-'));
    site = await startBrowserSite();
    const { chromium: pw } = await import('playwright-core');
    browser = await pw.launch({ executablePath: chromium!, args: CHROMIUM_ARGS });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('an endless feed stops at the height budget', async () => {
    const sink = collectingSink();
    const c = await captureInBrowser(browser, `${site.origin}/endless.html`, { sink, spoolDir: tmp, behaviors: { scrollMaxHeight: 6000, screenshot: false } });
    expect(c.behaviors.budgetsHit).toContain('scroll-height');
    expect(c.text).toContain('Endless item 10');
    expect(c.status).toBe(200);
  }, 120_000);

  it('an endless feed stops at the time budget (driven clock)', async () => {
    const sink = collectingSink();
    const c = await captureInBrowser(browser, `${site.origin}/endless.html`, {
      sink,
      spoolDir: tmp,
      behaviors: { clock: drivenClock(), scrollMaxMs: 5_000, scrollMaxHeight: 10_000_000, quietMs: 200, screenshot: false },
    });
    expect(c.behaviors.budgetsHit).toContain('scroll-time');
    expect(c.behaviors.budgetsHit).not.toContain('scroll-height');
    expect(c.behaviors.scrolls).toBeGreaterThan(0);
  }, 120_000);

  it('a seed that redirects: one exchange per hop, the page is the document it lands on', async () => {
    const sink = collectingSink();
    const c = await captureInBrowser(browser, `${site.origin}/go/spa`, { sink, spoolDir: tmp, behaviors: { screenshot: false } });
    expect(c.status).toBe(200);
    expect(c.finalUrl).toBe(`${site.origin}/spa.html`);
    const docs = sink.exchanges.filter((x) => x.isPageDocument).map((x) => [x.url, x.status]);
    expect(docs).toEqual([
      [`${site.origin}/go/spa`, 302],
      [`${site.origin}/spa.html`, 200],
    ]);
    expect(c.embeds).not.toContain(`${site.origin}/spa.html`);
    expect(c.text).toContain('Archiving the dynamic web');
  }, 120_000);

  it('service workers are bypassed: the request the worker would answer goes to the network and is recorded', async () => {
    // The control: without the recorder, the worker answers and the server never sees the request.
    const plain = await browser.newContext();
    try {
      const page = await plain.newPage();
      await page.goto(`${site.origin}/sw.html`);
      await expect.poll(() => page.locator('#out').textContent(), { timeout: 20_000 }).toBe('Data from the service worker.');
    } finally {
      await plain.close();
    }
    site.hits.length = 0;
    const sink = collectingSink();
    const c = await captureInBrowser(browser, `${site.origin}/sw.html`, { sink, spoolDir: tmp, behaviors: { screenshot: false } });
    expect(c.text).toContain('Data from the network.');
    expect(site.hits.map((h) => h.url)).toContain('/api/sw-data.json');
    const data = sink.exchanges.find((x) => x.url.endsWith('/api/sw-data.json'))!;
    expect(JSON.parse((data.body as Buffer).toString()).from).toBe('network');
  }, 120_000);

  it("a cross-site iframe's requests (through its own target) and a dedicated worker's are recorded", async () => {
    site.hits.length = 0;
    const sink = collectingSink();
    const c = await captureInBrowser(browser, `${site.origin}/frames.html`, { sink, spoolDir: tmp, behaviors: { screenshot: false } });
    const other = site.origin.replace('127.0.0.1', 'localhost');
    expect(c.text).toContain('The worker says: hello from a worker fetch');
    const recorded = new Set(sink.exchanges.map((x) => x.url));
    for (const u of [`${other}/spa.html`, `${other}/js/spa.js`, `${other}/api/articles.json`, `${other}/img/logo.png`, `${site.origin}/js/worker.js`, `${site.origin}/api/worker-data.json`]) {
      expect(recorded.has(u), u).toBe(true);
    }
    expect(sink.exchanges.find((x) => x.url === `${other}/api/echo`)?.requestBody?.toString()).toBe('{"viewed":"spa","count":3}');
    // Every request the server saw, from any frame or worker, is an exchange; one page document only.
    const paths = new Set(sink.exchanges.map((x) => `${x.method} ${new URL(x.url).pathname}`));
    expect(site.hits.map((h) => `${h.method} ${h.url}`).filter((h) => !paths.has(h))).toEqual([]);
    expect(c.requested.filter((u) => !recorded.has(u))).toEqual([]);
    expect(sink.exchanges.filter((x) => x.isPageDocument).map((x) => x.url)).toEqual([`${site.origin}/frames.html`]);
    expect(c.problems).toEqual([]);
  }, 120_000);

  it('a URL the browser cannot load fails with BROWSER_NAVIGATION_FAILED; an HTTP error status is a capture', async () => {
    const closed = await startBrowserSite();
    const dead = closed.origin;
    await closed.close();
    await expect(captureInBrowser(browser, `${dead}/spa.html`, { sink: collectingSink(), spoolDir: tmp, behaviors: { screenshot: false } })).rejects.toMatchObject({
      code: 'BROWSER_NAVIGATION_FAILED',
    });
    const sink = collectingSink();
    const c = await captureInBrowser(browser, `${site.origin}/no-such-page.html`, { sink, spoolDir: tmp, behaviors: { screenshot: false } });
    expect(c.status).toBe(404);
    expect(sink.exchanges.find((x) => x.isPageDocument)?.status).toBe(404);
  }, 120_000);

  it('an aborted capture fails with BROWSER_CAPTURE_ABORTED, after handing over what was recorded', async () => {
    const ac = new AbortController();
    const sink = collectingSink();
    const inner = sink.exchange.bind(sink);
    // Abort once the page's first batch of the endless feed is in: mid-behaviors.
    sink.exchange = async (x) => {
      await inner(x);
      if (x.isPageDocument) ac.abort();
    };
    await expect(captureInBrowser(browser, `${site.origin}/endless.html`, { sink, spoolDir: tmp, signal: ac.signal, behaviors: { screenshot: false } })).rejects.toMatchObject({
      code: 'BROWSER_CAPTURE_ABORTED',
    });
    expect(sink.exchanges.some((x) => x.isPageDocument)).toBe(true);
  }, 120_000);
});
