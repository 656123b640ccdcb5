/**
 * Screenshots in the app, in Chromium through the harness: a browser crawl started from the app
 * (real Chromium capturing the browser fixture site on 127.0.0.1) stores a screenshot per page;
 * the Pages view shows each page's thumbnail (a decoded image, naturalWidth > 0) and the
 * Monitor shows the last page's screenshot.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ARTIFACTS, findChromium, NO_CHROMIUM_MESSAGE, startAppSession, type AppSession, type Harness } from './harness.ts';
import { startBrowserSite, type BrowserSiteServer } from '../helpers/browser-site-server.ts';

const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);

describe.skipIf(!chromium)('page screenshots in the app', () => {
  let session: AppSession;
  let app: Harness;
  let page: Page;
  let site: BrowserSiteServer;
  let id = '';
  const byTestId = (t: string) => page.getByTestId(t);
  const decoded = (sel: string) => page.locator(sel).evaluateAll((imgs) => imgs.map((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth));

  beforeAll(async () => {
    site = await startBrowserSite();
    session = await startAppSession({ chromium: chromium!, viewport: { width: 1280, height: 800 } });
    ({ app, page } = session);
  }, 120_000);

  afterAll(async () => {
    await session?.close();
    await site?.close();
  });

  it('the Pages view shows a thumbnail per browser-captured page', async () => {
    ({ id } = await app.service.handlers['crawl.start']({
      name: 'Shots',
      settings: {
        seeds: [`${site.origin}/spa.html`, `${site.origin}/lazy.html`],
        maxHops: 0,
        politeness: 'fast',
        delayFactor: 0,
        minDelayMs: 0,
        maxDelayMs: 0,
        browser: { enabled: true, tabs: 1, path: chromium! },
      },
    }));
    await expect.poll(async () => (await app.service.handlers['library.list']({})).find((e) => e.id === id)?.state, { timeout: 90_000, interval: 500 }).toBe('finished');
    await byTestId('nav-library').click();
    await byTestId(`browse-${id}`).click();
    await byTestId('view-pages').click();
    await expect.poll(() => page.locator('[data-testid=page-row]').count(), { timeout: 10_000 }).toBe(2);
    await expect.poll(() => decoded('[data-testid=page-thumb]'), { timeout: 10_000 }).toEqual([expect.any(Number), expect.any(Number)]);
    const widths = (await decoded('[data-testid=page-thumb]')) as number[];
    for (const w of widths) expect(w).toBeGreaterThan(0);
    // Shown small (96 px wide at most; 64 px ones looked blank): the row, not the image, sets the size.
    const box = await page.locator('[data-testid=page-thumb]').first().boundingBox();
    expect(box!.width).toBeLessThanOrEqual(96);
    await page.screenshot({ path: path.join(ARTIFACTS, 's01-pages-thumbnails-1280.png') });
  }, 150_000);

  it('the Monitor of the browser crawl shows the last page’s screenshot', async () => {
    await byTestId('nav-library').click();
    await byTestId(`monitor-${id}`).click();
    await expect.poll(() => decoded('[data-testid=monitor-shot]'), { timeout: 10_000 }).toEqual([expect.any(Number)]);
    expect(((await decoded('[data-testid=monitor-shot]')) as number[])[0]).toBeGreaterThan(0);
    const newest = await app.service.handlers['records.screenshot']({ archiveId: id });
    expect(await byTestId('monitor-shot').getAttribute('alt')).toBe(`Screenshot of ${newest!.url}`);
    await page.screenshot({ path: path.join(ARTIFACTS, 's02-monitor-shot-1280.png') });
  }, 30_000);
});
