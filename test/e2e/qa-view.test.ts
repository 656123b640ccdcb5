/**
 * The QA view end to end (issue 34, "Measured: App"), in Chromium through the harness with the
 * real handlers: a browser crawl started from the app captures four pages of the QA fixture
 * site (test/helpers/qa-site.ts) with their capture-time screenshots; a damaged copy of it,
 * added to the library, loses the records of the stylesheet two of them use
 * (test/helpers/qa-damage.ts). In the Browser screen's QA tab the archivist runs QA (real
 * Chromium replaying through Trove's replay, a progress bar while it runs), sees the two damaged
 * pages first and not good, opens one side by side (reference | replay | diff, the stylesheet
 * listed as missing), rejects it with a note, runs Patch with the site still up and sees the
 * page turn good; then the app is closed and opened again on the same library, and the results
 * and the note are still there, the verdict shown in the Pages view too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ARTIFACTS, CHROMIUM_ARGS, findChromium, NO_CHROMIUM_MESSAGE, openApp, rendererDir, serveStatic, tempLibrary, type Harness, type StaticServer } from './harness.ts';
import { startQaSite, type QaSite } from '../helpers/qa-site.ts';
import { damagedCopy } from '../helpers/qa-damage.ts';
import { expectNothingCutOff } from './layout-checks.ts';

const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);

/** Pages 0 and 1 use /css/alt.css (dropped from the damaged copy); 40 and 41 /css/main.css (kept). */
const DAMAGED = [0, 1];
const WHOLE = [40, 41];

describe.skipIf(!chromium)('the QA view', () => {
  let site: QaSite;
  let server: StaticServer;
  let browser: Browser;
  let libraryDir: string;
  let app: Harness;
  let page: Page;
  const byTestId = (t: string) => page.getByTestId(t);
  const rowUrls = () => page.locator('[data-testid=qa-row]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-url')));
  const rowBands = () => page.locator('[data-testid=qa-row]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-band')));
  const text = (testid: string) => page.getByTestId(testid).first().textContent().then((t) => (t ?? '').trim());
  const decoded = (testid: string) => page.getByTestId(testid).evaluate((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth);

  async function open(): Promise<void> {
    app = await openApp({ browser, origin: server.origin, libraryDir, viewport: { width: 1440, height: 900 } });
    page = app.page;
    page.on('pageerror', (err) => console.error('[page error]', err));
  }

  async function openQaView(id: string): Promise<void> {
    await byTestId('nav-library').click();
    await byTestId(`browse-${id}`).click();
    await byTestId('view-qa').click();
  }

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    site = await startQaSite();
    server = await serveStatic(await rendererDir());
    const { chromium: pw } = await import('playwright-core');
    browser = await pw.launch({ executablePath: chromium!, args: CHROMIUM_ARGS });
    libraryDir = tempLibrary();
    await open();
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.close();
    await site?.close();
    if (libraryDir) fs.rmSync(libraryDir, { recursive: true, force: true });
  });

  it('runs QA on a damaged archive and shows the damaged pages first, side by side', async () => {
    const { id } = await app.service.handlers['crawl.start']({
      name: 'QA site',
      settings: {
        seeds: [...DAMAGED, ...WHOLE].map((n) => site.pageUrl(n)),
        maxHops: 0,
        politeness: 'fast',
        delayFactor: 0,
        minDelayMs: 0,
        maxDelayMs: 0,
        browser: { enabled: true, tabs: 1, path: chromium! },
      },
    });
    await expect.poll(async () => (await app.service.handlers['library.list']({})).find((e) => e.id === id)?.state, { timeout: 120_000, interval: 500 }).toBe('finished');
    // The damaged copy: the crawl directory copied into the library, without alt.css's records.
    const { dropped } = await damagedCopy(path.join(libraryDir, id), path.join(libraryDir, 'Damaged'), new Set([`${site.origin}/css/alt.css`]));
    expect(dropped).toBeGreaterThan(0);
    await page.reload();

    await openQaView('Damaged');
    await byTestId('qa-empty').waitFor();
    await byTestId('qa-run').click();
    await byTestId('qa-progress').waitFor();
    // Pages done of the total, as soon as the engine has counted them.
    await expect.poll(() => text('qa-progress-count'), { timeout: 60_000 }).toMatch(/^\d \/ 4$/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'qa00-progress-1440.png') });
    await expect.poll(async () => (await page.locator('[data-testid=qa-row]').count()) || (await text('qa-job-error')), { timeout: 180_000, interval: 500 }).toBe(4);
    await byTestId('qa-progress').waitFor({ state: 'detached' });

    const urls = await rowUrls();
    const bands = await rowBands();
    expect(new Set(urls.slice(0, 2))).toEqual(new Set(DAMAGED.map((n) => site.pageUrl(n))));
    expect(bands.slice(0, 2).every((b) => b !== 'good'), `bands ${bands.join(', ')}`).toBe(true);
    expect(bands.slice(2), `the whole pages' bands`).toEqual(['good', 'good']);

    await page.locator('[data-testid=qa-row]').first().click();
    await byTestId('qa-detail').waitFor();
    await expect.poll(() => text('qa-missing'), { timeout: 10_000 }).toContain(`${site.origin}/css/alt.css`);
    for (const shot of ['qa-shot-reference-img', 'qa-shot-replay-img', 'qa-shot-diff-img']) await expect.poll(() => decoded(shot), { timeout: 10_000 }).toBeGreaterThan(0);
    // Side by side: the three pictures on one row.
    const boxes = await Promise.all(['qa-shot-reference', 'qa-shot-replay', 'qa-shot-diff'].map((t) => byTestId(t).boundingBox()));
    expect(boxes[0]!.x).toBeLessThan(boxes[1]!.x);
    expect(boxes[1]!.x).toBeLessThan(boxes[2]!.x);
    expect(Math.abs(boxes[0]!.y - boxes[2]!.y)).toBeLessThan(4);

    await byTestId('qa-note').fill('stylesheet missing: patch while the site is up');
    await byTestId('qa-reject').click();
    await expect.poll(() => page.locator('[data-testid=qa-row]').first().textContent(), { timeout: 10_000 }).toContain('rejected');
    await page.screenshot({ path: path.join(ARTIFACTS, 'qa01-side-by-side-1440.png') });
  }, 300_000);

  it('patches the archive while the site is up, and the page turns good', async () => {
    const opened = (await byTestId('qa-detail-url').textContent())!.trim();
    const altBefore = site.hits.get('/css/alt.css') ?? 0;
    await byTestId('qa-patch').click();
    await byTestId('qa-progress').waitFor();
    await byTestId('qa-progress').waitFor({ state: 'detached', timeout: 180_000 });
    expect(await byTestId('qa-job-error').count(), await text('qa-view')).toBe(0);
    expect(site.hits.get('/css/alt.css') ?? 0).toBeGreaterThan(altBefore);
    await byTestId('qa-patch-result').waitFor();
    expect(await rowBands()).toEqual(['good', 'good', 'good', 'good']);
    // The page opened side by side is read again: good now, nothing missing.
    // The detail pane reads the page again through the IPC gate: 10 s rather than poll's default 1 s on a loaded machine.
    await expect.poll(() => text('qa-detail-url'), { timeout: 10_000 }).toBe(opened);
    await expect.poll(() => byTestId('qa-detail').locator('.badge').first().textContent().then((t) => t?.trim()), { timeout: 10_000 }).toBe('good');
    await expect.poll(() => text('qa-missing'), { timeout: 10_000 }).toContain('None');
    await page.screenshot({ path: path.join(ARTIFACTS, 'qa02-after-patch-1440.png') });
  }, 240_000);

  it('keeps the results and the review note after closing and reopening the app', async () => {
    await app.close();
    await open();
    await openQaView('Damaged');
    await expect.poll(() => page.locator('[data-testid=qa-row]').count(), { timeout: 10_000 }).toBe(4);
    const rejected = page.locator('[data-testid=qa-row]', { hasText: 'rejected' });
    await expect.poll(() => rejected.count(), { timeout: 10_000 }).toBe(1);
    await rejected.click();
    await expect.poll(() => byTestId('qa-note').inputValue(), { timeout: 10_000 }).toBe('stylesheet missing: patch while the site is up');
    await expect.poll(() => byTestId('qa-reject').getAttribute('aria-pressed'), { timeout: 10_000 }).toBe('true');
    // A run cancelled part way is not an error, and the results stay listed.
    await byTestId('qa-run').click();
    await byTestId('qa-progress').waitFor();
    await byTestId('qa-cancel').click();
    await byTestId('qa-progress').waitFor({ state: 'detached', timeout: 120_000 });
    expect(await byTestId('qa-job-error').count(), await text('qa-view')).toBe(0);
    expect(await page.locator('[data-testid=qa-row]').count()).toBe(4);
    // The verdict and the note in the Pages view too.
    await byTestId('view-pages').click();
    // The Pages view lists through the IPC gate: on a loaded machine that takes longer than poll's default second.
    await expect.poll(() => page.locator('[data-testid=page-row]', { hasText: 'rejected' }).count(), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => text('page-note'), { timeout: 10_000 }).toContain('stylesheet missing');

    // A smaller window: the list, its buttons and the page side by side still fit.
    await page.setViewportSize({ width: 1024, height: 700 });
    await byTestId('view-qa').click();
    await page.locator('[data-testid=qa-row]').first().click();
    await byTestId('qa-detail').waitFor();
    await expectNothingCutOff(page, '[data-testid=qa-view] button, [data-testid=qa-view] input, [data-testid=qa-detail] button, [data-testid=qa-detail] textarea');
    await page.screenshot({ path: path.join(ARTIFACTS, 'qa03-reopened-1024.png') });
  }, 180_000);
});
