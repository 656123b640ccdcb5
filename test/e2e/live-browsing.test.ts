/**
 * Browsing a crawl while it runs (issue #16 item 2), in Chromium through the harness: the record
 * list and the Pages list grow as the crawl writes, and a record of the WARC still being written
 * (NAME.warc.gz.open) opens and replays. Pauses, not timers, hold the crawl still where the test
 * needs the file open.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Frame, Page } from 'playwright-core';
import { ARTIFACTS, findChromium, NO_CHROMIUM_MESSAGE, startAppSession, type AppSession, type Harness } from './harness.ts';
import { startPacedSite, type PacedSite } from '../fixtures/paced-site.ts';

const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);

describe.skipIf(!chromium)('Live browsing in Chromium', () => {
  let session: AppSession;
  let site: PacedSite;
  let app: Harness;
  let page: Page;
  let libraryDir: string;
  let id = '';
  const byTestId = (tid: string) => page.getByTestId(tid);
  const rows = () => byTestId('record-row').count();
  const state = async () => (await app.service.handlers['library.list']({})).find((e) => e.id === id)?.state;

  beforeAll(async () => {
    site = await startPacedSite({ pages: 40, delayMs: 120 });
    session = await startAppSession({ chromium: chromium!, viewport: { width: 1280, height: 800 } });
    ({ app, page, libraryDir } = session);
  }, 120_000);

  afterAll(async () => {
    if (id) await Promise.resolve(app?.service.handlers['crawl.stop']({ id, now: true })).catch(() => {});
    await session?.close();
    await site?.close();
  });

  it('the record list and the Pages list grow while the crawl writes; an .open record opens and replays', async () => {
    ({ id } = await app.service.handlers['crawl.start']({
      name: 'Live',
      settings: { seeds: [`${site.origin}/`], politeness: 'fast', delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, perHost: 1, concurrency: 1 },
    }));
    await byTestId('nav-library').click();
    await expect.poll(() => byTestId(`browse-${id}`).count(), { timeout: 10_000 }).toBe(1);
    await byTestId(`browse-${id}`).click();
    await byTestId('filter-type').selectOption('response');
    // Rows arrive while the crawl runs, without any reload by the user.
    await expect.poll(rows, { timeout: 20_000 }).toBeGreaterThanOrEqual(3);

    await app.service.handlers['crawl.pause']({ id });
    await expect.poll(state, { timeout: 10_000 }).toBe('paused');
    const pausedAt = await rows();
    await byTestId('view-pages').click();
    await expect.poll(() => byTestId('page-row').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    const pagesAt = await byTestId('page-row').count();

    await app.service.handlers['crawl.resume']({ id });
    await expect.poll(() => byTestId('page-row').count(), { timeout: 20_000 }).toBeGreaterThan(pagesAt);
    await byTestId('view-records').click();
    await expect.poll(rows, { timeout: 20_000 }).toBeGreaterThan(pausedAt);
    await app.service.handlers['crawl.pause']({ id });
    await expect.poll(state, { timeout: 10_000 }).toBe('paused');

    const warcs = path.join(libraryDir, id, 'warcs');
    expect(fs.readdirSync(warcs).filter((n) => n.endsWith('.warc.gz.open'))).toHaveLength(1);
    await byTestId('filter-url').fill(`${site.origin}/p/0`);
    await expect.poll(rows, { timeout: 10_000 }).toBe(1);
    await byTestId('record-row').first().click();
    await expect.poll(() => byTestId('record-detail').textContent(), { timeout: 10_000 }).toContain(`${site.origin}/p/0`);
    expect(await byTestId('record-detail').textContent()).not.toMatch(/ENOENT|cannot open/);
    await page.screenshot({ path: path.join(ARTIFACTS, '18-live-browsing-1280x800.png') });
    await page.setViewportSize({ width: 1024, height: 700 });
    await page.screenshot({ path: path.join(ARTIFACTS, '18-live-browsing-1024x700.png') });
    await page.setViewportSize({ width: 1280, height: 800 });

    const before = site.requests.length;
    await byTestId('replay-button').click();
    const frame = await replayFrame(page, `${site.origin}/p/0`);
    await expect.poll(() => frame.evaluate(() => document.readyState), { timeout: 10_000 }).toBe('complete');
    expect(await frame.evaluate(() => document.title)).not.toBe('Not archived');
    expect(await byTestId('replay-state').textContent()).toContain('ARCHIVED');
    expect(site.requests.length).toBe(before); // paused crawl, and replay never goes live
    await page.screenshot({ path: path.join(ARTIFACTS, '19-live-replay-1280x800.png') });
  }, 120_000);
});

async function replayFrame(page: Page, url: string): Promise<Frame> {
  let found: Frame | undefined;
  await expect.poll(() => (found = page.frames().find((f) => f !== page.mainFrame() && f.url() === url)) !== undefined, { timeout: 10_000 }).toBe(true);
  return found!;
}
