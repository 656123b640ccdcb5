/**
 * Fidelity of browser capture (issue #17, "Measured"). The archive is made by a real browser
 * crawl of the browser-site fixture (`startCrawl` with `browser: { enabled: true, tabs: 2 }`,
 * seeded with the fixture pages, links followed as any crawl does). The reference is each page
 * loaded live in a separate Chromium page with the same behaviors as the crawl's tabs (its text
 * and images after them). Then, with the live site shut, each page is replayed
 *   1. in Trove's replay: a Chromium page whose every request is paused over CDP (Fetch) and
 *      answered by `replayResponse`, the handler Electron's replay protocol uses, reading the
 *      crawl's directory as an archive; and
 *   2. in ReplayWeb.page, after `trove export <crawl dir> --wacz` (the real CLI),
 * with the same behaviors run in the replayed page. Each must show the live page's innerText,
 * with every lazy image loaded (naturalWidth > 0), no image broken, the web font loaded and
 * the video decoded.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type ExpectStatic } from 'vitest';
import type { Browser, BrowserContext, CDPSession, Frame, Page } from 'playwright-core';
import { openArchive, type Archive } from '../../core/archive/archive-dir.ts';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import { replayResponse } from '../../core/app/replay-bridge.ts';
import { realClock } from '../../core/browser/browser-clock.ts';
import type { CdpSession } from '../../core/browser/cdp-session.ts';
import { NetworkActivity } from '../../core/browser/network-activity.ts';
import { DEFAULT_BEHAVIORS, runBehaviors } from '../../core/browser/page-behaviors.ts';
import { BROWSER_SITE_PAGES, startBrowserSite } from '../helpers/browser-site-server.ts';
import { verifyCrawlDir } from '../helpers/verify-crawl-dir.ts';
import { repoRoot } from '../helpers/corpus.ts';
import { ARTIFACTS, CHROMIUM_ARGS, findChromium, NO_CHROMIUM_MESSAGE } from './harness.ts';
import { serveReplayWebPage, type ReplayWebPageServer } from './replaywebpage-server.ts';

const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);

/** What the fidelity compares: the text after behaviors, and the images on the page. */
interface Seen {
  text: string;
  lazyImages: { src: string; naturalWidth: number }[];
  brokenImages: string[];
  /** Web fonts that loaded. */
  fonts: string[];
  /** Decoded width of each <video> (0: its media did not load). */
  videoWidths: number[];
}

const SEEN = `(() => ({
  text: document.body.innerText,
  lazyImages: [...document.querySelectorAll('img.lazy')].map((i) => ({ src: i.currentSrc || i.src, naturalWidth: i.naturalWidth })),
  brokenImages: [...document.images].filter((i) => (i.currentSrc || i.src) && i.complete && i.naturalWidth === 0).map((i) => i.currentSrc || i.src),
  fonts: [...document.fonts].filter((f) => f.status === 'loaded').map((f) => f.family.replace(/["']/g, '')),
  videoWidths: [...document.querySelectorAll('video')].map((v) => v.videoWidth),
}))()`;

/** What, beyond the text, each page must show in replay as it did live. */
function expectMedia(expect: ExpectStatic, p: string, seen: Seen): void {
  if (p === '/lazy.html') expect(seen.lazyImages).toHaveLength(6);
  for (const img of seen.lazyImages) expect(img.naturalWidth, img.src).toBeGreaterThan(0);
  expect(seen.brokenImages, p).toEqual([]);
  if (p === '/font-bg.html') expect(seen.fonts, p).toContain('Fixture Mono');
  if (p === '/video.html') expect(seen.videoWidths, p).toEqual([64]);
}

const BEHAVIORS = { ...DEFAULT_BEHAVIORS, screenshot: false };

describe.skipIf(!chromium)('browser capture fidelity: live vs Trove replay vs ReplayWeb.page', () => {
  let browser: Browser;
  let tmp: string;
  let origin = '';
  let archiveDir = '';
  let wacz = '';
  const live = new Map<string, Seen>();

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-fidelity-'));
    const site = await startBrowserSite();
    origin = site.origin;
    const { chromium: pw } = await import('playwright-core');
    browser = await pw.launch({ executablePath: chromium!, args: CHROMIUM_ARGS });
    archiveDir = path.join(tmp, 'crawl');
    try {
      // The reference: each page as a person's browser shows it, live, after the behaviors; the
      // pages in contexts of their own, all at once, while the crawl runs (both only wait on the
      // pages' own timers and network, so doing them one after another only added their waits).
      const reference = Promise.all(
        BROWSER_SITE_PAGES.map(async (p) => {
          const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
          try {
            const page = await context.newPage();
            await page.goto(origin + p, { waitUntil: 'load' });
            live.set(p, await behaveAndLook(page, await context.newCDPSession(page), page.mainFrame()));
          } finally {
            await context.close();
          }
        }),
      );
      // The archive: a real browser crawl, as `trove crawl --browser --browser-tabs 2` runs it.
      const crawl = await startCrawl({
        dir: archiveDir,
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
      const [final] = await Promise.all([crawl.finished(), reference]);
      expect(final.finishReason).toBe('frontier-empty');
    } finally {
      // From here on nothing can come from the live site.
      await site.close();
    }
    const check = await verifyCrawlDir(archiveDir);
    expect(check.openFiles).toEqual([]);
    expect(check.warcOnly).toEqual([]);
    expect(check.indexOnly).toEqual([]);
    // Every fixture page was loaded in a tab (its screenshot is there), not fetched by HTTP.
    for (const p of BROWSER_SITE_PAGES) expect(check.records.some((r) => r.type === 'resource' && r.targetUri === `urn:view:${origin}${p}`), p).toBe(true);
    wacz = path.join(tmp, 'browser-site.wacz');
    // The real CLI, as an archivist exports (the live site is shut: spawnSync blocks nothing it needs).
    const exported = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'trove.js'), 'export', archiveDir, '--wacz', wacz], { encoding: 'utf8' });
    expect(exported.status, exported.stderr).toBe(0);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('the live pages show what the fixtures render only with script, and their media', () => {
    for (const p of BROWSER_SITE_PAGES) expectMedia(expect, p, live.get(p)!);
    expect(live.get('/spa.html')!.text).toContain('Archiving the dynamic web');
    expect(live.get('/infinite.html')!.text).toContain('Batch 3, item 5');
    expect(live.get('/load-more.html')!.text).toContain('Story 6');
  });

  describe("Trove's replay (CDP Fetch answered by the Electron replay handler)", () => {
    let archive: Archive;
    beforeAll(() => {
      archive = openArchive(archiveDir, { create: false });
    });
    afterAll(() => archive?.close());

    // The pages side by side (each in a context of its own): each only waits on its page.
    it.concurrent.for([...BROWSER_SITE_PAGES])('%s: same innerText as live; lazy images, font and video loaded', { timeout: 90_000 }, async (p, { expect }) => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const answered: { url: string; status: number }[] = [];
      try {
        const page = await context.newPage();
        const session = await context.newCDPSession(page);
        await session.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] });
        session.on('Fetch.requestPaused', (e) => {
          void (async () => {
            if (!/^https?:/.test(e.request.url)) {
              await session.send('Fetch.continueRequest', { requestId: e.requestId }).catch(() => {});
              return;
            }
            const r = await replayResponse(archive, { url: e.request.url, method: e.request.method, headers: Object.entries(e.request.headers) });
            answered.push({ url: e.request.url, status: r.status });
            await session
              .send('Fetch.fulfillRequest', {
                requestId: e.requestId,
                responseCode: r.status,
                ...(r.statusText ? { responsePhrase: r.statusText } : {}),
                responseHeaders: r.headers.map(([name, value]) => ({ name, value })),
                body: r.body.toString('base64'),
              })
              .catch(() => {});
          })();
        });
        await page.goto(origin + p, { waitUntil: 'load' });
        const seen = await behaveAndLook(page, session, page.mainFrame());
        await page.screenshot({ path: path.join(ARTIFACTS, `browser-fidelity-trove${p.replace(/\W+/g, '-')}.png`) });
        expect(seen.text, p).toBe(live.get(p)!.text);
        expectMedia(expect, p, seen);
        // Everything came out of the archive (the live site is shut): no not-archived answers.
        expect(answered.filter((a) => a.status === 404 && !a.url.endsWith('/favicon.ico')), p).toEqual([]);
      } finally {
        await context.close();
      }
    });
  });

  describe('ReplayWeb.page, after trove export --wacz', () => {
    let server: ReplayWebPageServer;
    let source = '';
    // One browser context for all the pages, as a person opens the package once and then its
    // pages: ReplayWeb.page's service worker registers and loads the WACZ's index once, not once
    // per page. The pages are then replayed side by side, each in a tab of its own.
    let context: BrowserContext;
    beforeAll(async () => {
      server = await serveReplayWebPage();
      source = server.addWacz('browser-site.wacz', wacz);
      context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const list = await context.newPage();
      await list.goto(`${server.origin}/?source=${encodeURIComponent(source)}#view=pages`);
      await list.locator('wr-page-entry').first().waitFor({ timeout: 60_000 });
      await list.close();
    }, 90_000);
    afterAll(async () => {
      await context?.close();
      await server?.close();
    });

    it.concurrent.for([...BROWSER_SITE_PAGES])('%s: same innerText as live; lazy images, font and video loaded', { timeout: 120_000 }, async (p, { expect }) => {
      const page = await context.newPage();
      try {
        await page.goto(`${server.origin}/?source=${encodeURIComponent(source)}#view=pages`);
        const url = origin + p;
        await page.locator('wr-page-entry').filter({ has: page.locator(`keyword-mark[title="${url}"]`) }).locator('a').first().click({ timeout: 30_000 });
        let frame: Frame | undefined;
        await expect
          .poll(() => (frame = page.frames().find((f) => /\/w\/[^/]+\/.*\d{14}mp_\//.test(f.url()) && f.url().endsWith('mp_/' + url))) !== undefined, { timeout: 30_000 })
          .toBe(true);
        await frame!.waitForFunction(() => document.readyState === 'complete', undefined, { timeout: 30_000 });
        const session = await context.newCDPSession(page);
        const seen = await behaveAndLook(page, session, frame!);
        await page.screenshot({ path: path.join(ARTIFACTS, `browser-fidelity-rwp${p.replace(/\W+/g, '-')}.png`) });
        expect(seen.text, p).toBe(live.get(p)!.text);
        expectMedia(expect, p, seen);
      } finally {
        await page.close();
      }
    });
  });
});

/**
 * The capture's behaviors, run in a replayed page (`frame`: the page itself, or ReplayWeb.page's
 * replay iframe), then what it shows. Page scripts are evaluated in the frame; the network
 * events that say when it is quiet come from the page's CDP session.
 */
async function behaveAndLook(page: Page, session: CDPSession, frame: Frame): Promise<Seen> {
  const cdp = session as unknown as CdpSession;
  const inFrame: CdpSession = {
    send: async (method, params) => {
      if (method !== 'Runtime.evaluate') return cdp.send(method, params);
      try {
        return { result: { value: await frame.evaluate(String(params!.expression)) } };
      } catch (err) {
        return { exceptionDetails: { text: String(err) } };
      }
    },
    on: (e, l) => cdp.on(e, l),
    off: (e, l) => cdp.off(e, l),
  };
  await cdp.send('Network.enable', {});
  const net = new NetworkActivity(inFrame, realClock);
  net.start();
  try {
    await net.waitForQuiet({ quietMs: BEHAVIORS.quietMs, maxMs: BEHAVIORS.quietMaxMs });
    await runBehaviors(inFrame, net, realClock, BEHAVIORS);
  } finally {
    net.stop();
  }
  void page;
  return (await frame.evaluate(SEEN)) as Seen;
}
