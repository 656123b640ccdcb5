/**
 * A crawl over time in the app, in Chromium with `window.trove` wired to the real handlers: the
 * Library's "Over time" dialog crawls again, lists the series with what changed ("1 page
 * changed, 0 new, 0 gone"), refuses a cron expression croner cannot read and keeps a valid
 * schedule, and compares a page at the two crawls side by side. A browser crawl of a page that
 * changed between its two captures compares with the two screenshots side by side, their
 * pixelmatch diff overlay, and the text diff.
 */
import fs from 'node:fs';
import path from 'node:path';
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ARTIFACTS, findChromium, NO_CHROMIUM_MESSAGE, startAppSession, type AppSession, type Harness } from './harness.ts';
import { startFixtureSite, type FixtureSite } from '../fixtures/fixture-site.ts';

const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);

describe.skipIf(!chromium)('the series dialog: crawl again, schedule, compare (Chromium)', () => {
  let session: AppSession;
  let site: FixtureSite;
  let app: Harness;
  let page: Page;
  let version = 1;
  const byTestId = (tid: string) => page.getByTestId(tid);
  const html = (r: http.ServerResponse, body: string) => {
    r.writeHead(200, { 'Content-Type': 'text/html', ETag: `"${body.length}"` });
    r.end(body);
  };

  beforeAll(async () => {
    site = await startFixtureSite({
      routes: {
        '/': (_q, r) => html(r, '<!doctype html><title>Home</title><a href="/news.html">news</a> <a href="/about.html">about</a>'),
        '/news.html': (_q, r) => html(r, `<!doctype html><title>News</title><p>${version === 1 ? 'Nothing happened today.' : 'Something happened today, at last.'}</p>`),
        '/about.html': (_q, r) => html(r, '<!doctype html><title>About</title><p>About this site.</p>'),
      },
    });
    session = await startAppSession({ chromium: chromium!, viewport: { width: 1200, height: 900 } });
    ({ app, page } = session);
  }, 120_000);

  afterAll(async () => {
    await session?.close();
    await site?.close();
  });

  it('crawls again, shows what changed, keeps a schedule and compares a page', async () => {
    const { id } = await app.service.handlers['crawl.start']({ name: 'News', settings: { seeds: [`${site.origin}/`], politeness: 'fast', delayFactor: 0, minDelayMs: 0, maxDelayMs: 0 } });
    await expect.poll(async () => (await app.service.handlers['library.list']({})).find((e) => e.id === id)?.state, { timeout: 30_000 }).toBe('finished');
    version = 2;
    await byTestId('nav-library').click();
    await byTestId(`series-${id}`).click();
    await expect.poll(() => byTestId('series-row').count()).toBe(1);
    await byTestId('crawl-again').click();
    await expect.poll(() => byTestId('series-row').count(), { timeout: 30_000 }).toBe(2);
    await expect.poll(async () => (await byTestId('series-summary').allTextContents()).map((t) => t.trim()), { timeout: 150_000 }).toEqual(['first crawl', '1 page changed, 0 new, 0 gone']); // (a loaded machine may take a minute)

    await byTestId('schedule-cron').check();
    await byTestId('schedule-cron-text').fill('every tuesday');
    await byTestId('schedule-save').click();
    await expect.poll(() => byTestId('series-error').textContent()).toContain('every tuesday');
    await byTestId('schedule-cron-text').fill('30 4 * * *');
    await byTestId('schedule-save').click();
    await expect.poll(() => byTestId('schedule-next').isVisible()).toBe(true);
    expect(await byTestId('series-error').count()).toBe(0);

    await byTestId('compare-url').fill(`${site.origin}/news.html`);
    await byTestId('compare-button').click();
    await expect.poll(() => byTestId('compare-view').isVisible(), { timeout: 30_000 }).toBe(true);
    expect(await byTestId('compare-before').textContent()).toContain('Nothing happened today.');
    expect(await byTestId('compare-after').textContent()).toContain('Something happened today, at last.');
    expect(await page.locator('[data-testid=compare-after] .added').count()).toBeGreaterThan(0);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'series-dialog.png') });
  }, 300_000);

  it('compares two browser captures of a page: the screenshots side by side, the diff overlay, the text diff', async () => {
    await byTestId('series-dialog').getByRole('button', { name: 'Close' }).click();
    const look = (color: string, text: string) => `<!doctype html><title>Poster</title><body style="margin:0"><div style="background:${color};height:240px"></div><p>${text}</p></body>`;
    let shown = 1;
    const poster = await startFixtureSite({
      routes: { '/poster.html': (_q, r) => html(r, shown === 1 ? look('#0645ad', 'The blue poster.') : look('#d33', 'The red poster, changed.')) },
    });
    try {
      const { id } = await app.service.handlers['crawl.start']({
        name: 'Poster',
        settings: { seeds: [`${poster.origin}/poster.html`], maxHops: 0, politeness: 'fast', delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, browser: { enabled: true, tabs: 1, path: chromium! } },
      });
      await expect.poll(async () => (await app.service.handlers['library.list']({})).find((e) => e.id === id)?.state, { timeout: 90_000, interval: 500 }).toBe('finished');
      shown = 2;
      await byTestId(`series-${id}`).click();
      // Another series' dialog does not show the cron expression saved for the first one.
      await expect.poll(() => byTestId('schedule-cron-text').inputValue()).toBe('0 3 * * *');
      await byTestId('crawl-again').click();
      await expect.poll(async () => (await byTestId('series-summary').allTextContents()).map((t) => t.trim()), { timeout: 150_000 }).toEqual(['first crawl', '1 page changed, 0 new, 0 gone']);

      await byTestId('compare-url').fill(`${poster.origin}/poster.html`);
      await byTestId('compare-button').click();
      await expect.poll(() => byTestId('compare-view').isVisible(), { timeout: 30_000 }).toBe(true);
      // The two screenshots, decoded, side by side (same row, before on the left).
      const shots = byTestId('compare-view').locator('.col img');
      await expect.poll(() => shots.evaluateAll((imgs) => imgs.map((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0)), { timeout: 10_000 }).toEqual([true, true]);
      const [a, b] = [(await shots.nth(0).boundingBox())!, (await shots.nth(1).boundingBox())!];
      expect(Math.abs(a.y - b.y)).toBeLessThan(2);
      expect(b.x).toBeGreaterThanOrEqual(a.x + a.width);
      // The diff overlay: an image, and a score short of a match (the colour band and the text changed).
      const overlay = byTestId('compare-shot-diff');
      await expect.poll(() => overlay.locator('img').evaluate((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth), { timeout: 10_000 }).toBeGreaterThan(0);
      const score = Number(/match on ([\d.]+)%/.exec((await overlay.locator('figcaption').textContent()) ?? '')?.[1]);
      expect(score).toBeGreaterThan(0);
      expect(score).toBeLessThan(90);
      // The text diff beside them.
      expect(await byTestId('compare-before').textContent()).toContain('The blue poster.');
      expect(await byTestId('compare-after').textContent()).toContain('The red poster, changed.');
      expect(await page.locator('[data-testid=compare-before] .removed').count()).toBeGreaterThan(0);
      expect(await page.locator('[data-testid=compare-after] .added').count()).toBeGreaterThan(0);
      await page.screenshot({ path: path.join(ARTIFACTS, 'series-compare-screenshots.png') });
    } finally {
      await poster.close();
    }
  }, 300_000);
});
