/**
 * Replay like ReplayWeb.page (issue #16 item 4), in Chromium through the harness: a Pages view
 * (HTML pages with titles only, sortable, searchable), a URL bar, a capture picker, a "missing
 * resources" panel fed by the replay handler's not-archived answers, full-window mode, and a
 * not-archived banner that does not say ARCHIVED. The archive is written with warcio.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Frame, Page } from 'playwright-core';
import { ARTIFACTS, CHROMIUM_ARGS, findChromium, NO_CHROMIUM_MESSAGE, openApp, rendererDir, serveStatic, tempLibrary, type Harness, type StaticServer } from './harness.ts';
import { html, writeWarc } from '../replay/warc-fixture.ts';

const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);

const SITE = 'http://pages.example';
const doc = (title: string, body: string) => `<!doctype html><html><head><title>${title}</title><link rel="stylesheet" href="/s.css"></head><body>${body}</body></html>`;

describe.skipIf(!chromium)('Replay features in Chromium', () => {
  let browser: Browser;
  let server: StaticServer;
  let app: Harness;
  let page: Page;
  let libraryDir: string;
  let archiveId = '';
  const byTestId = (id: string) => page.getByTestId(id);
  const shot = async (name: string) => {
    for (const [w, h] of [[1280, 800], [1024, 700]] as const) {
      await page.setViewportSize({ width: w, height: h });
      await page.screenshot({ path: path.join(ARTIFACTS, `${name}-${w}x${h}.png`) });
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  };
  const frame = async (prefix: string): Promise<Frame> => {
    let found: Frame | undefined;
    await expect.poll(() => (found = page.frames().find((f) => f !== page.mainFrame() && f.url().startsWith(prefix))) !== undefined, { timeout: 10_000 }).toBe(true);
    return found!;
  };

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    libraryDir = tempLibrary();
    const warc = path.join(libraryDir, 'pages.warc.gz');
    await writeWarc(warc, [
      { url: `${SITE}/`, date: '2024-03-01T09:00:00Z', headers: html(), body: doc('Zebra home', '<h1>Home</h1><img src="/missing.png"><script src="/gone.js"></script><a href="/b.html">b</a>') },
      { url: `${SITE}/s.css`, date: '2024-03-01T09:00:01Z', headers: [['Content-Type', 'text/css']], body: 'h1 { color: rgb(1, 2, 3); }' },
      { url: `${SITE}/b.html`, date: '2024-03-01T09:00:02Z', headers: html(), body: doc('Aardvark page', '<h1>Old B</h1>') },
      { url: `${SITE}/b.html`, date: '2024-06-01T09:00:02Z', headers: html(), body: doc('Aardvark page', '<h1>New B</h1>') },
      { url: `${SITE}/c.html`, date: '2024-03-01T09:00:03Z', headers: html(), body: doc('Mango notes', '<h1>C</h1>') },
      { url: `${SITE}/logo.png`, date: '2024-03-01T09:00:04Z', headers: [['Content-Type', 'image/png']], body: Buffer.from([0x89, 0x50, 0x4e, 0x47]) },
    ]);
    server = await serveStatic(await rendererDir());
    const { chromium: pw } = await import('playwright-core');
    browser = await pw.launch({ executablePath: chromium!, args: CHROMIUM_ARGS });
    app = await openApp({ browser, origin: server.origin, libraryDir, viewport: { width: 1280, height: 800 } });
    page = app.page;
    page.on('pageerror', (err) => console.error('[page error]', err));
    archiveId = (await app.service.handlers['library.import']({ files: [warc], name: 'Pages', copy: false })).id;
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.close();
    if (libraryDir) fs.rmSync(libraryDir, { recursive: true, force: true });
  });

  const titles = () => page.locator('[data-testid=page-row] td.title').allTextContents();

  it('Pages view: HTML captures with titles only, sortable and searchable', async () => {
    await byTestId('nav-library').click();
    await byTestId(`browse-${archiveId}`).click();
    await byTestId('view-pages').click();
    await expect.poll(titles, { timeout: 10_000 }).toEqual(['Aardvark page', 'Aardvark page', 'Mango notes', 'Zebra home']);
    expect(await byTestId('pages-total').textContent()).toBe('4 pages');
    await byTestId('pages-sort-title').click();
    await expect.poll(titles, { timeout: 5000 }).toEqual(['Zebra home', 'Mango notes', 'Aardvark page', 'Aardvark page']);
    await byTestId('pages-sort-ts').click(); // newest first
    await expect.poll(() => page.locator('[data-testid=page-row] td.url').first().textContent(), { timeout: 5000 }).toBe(`${SITE}/b.html`);
    await byTestId('pages-search').fill('mango');
    await expect.poll(titles, { timeout: 5000 }).toEqual(['Mango notes']);
    await byTestId('pages-search').fill('B.HTML');
    await expect.poll(titles, { timeout: 5000 }).toEqual(['Aardvark page', 'Aardvark page']);
    await byTestId('pages-search').fill('');
    await expect.poll(titles, { timeout: 5000 }).toHaveLength(4);
    await shot('13-pages-view');
  });

  it('replays a page: missing resources listed, URL bar, capture picker', async () => {
    await page.locator('[data-testid=page-row]', { hasText: 'Zebra home' }).click();
    const home = await frame(`${SITE}/`);
    await expect.poll(() => home.evaluate(() => document.querySelector('h1')?.textContent), { timeout: 10_000 }).toBe('Home');
    expect(await byTestId('replay-state').textContent()).toContain('ARCHIVED');
    await expect.poll(() => byTestId('replay-missing-toggle').textContent(), { timeout: 10_000 }).toContain('2 missing');
    await byTestId('replay-missing-toggle').click();
    const listed = await byTestId('replay-missing').locator('li').allTextContents();
    expect(listed.sort()).toEqual([`${SITE}/gone.js`, `${SITE}/missing.png`]);
    await shot('14-replay-missing');
    await byTestId('replay-missing-toggle').click();

    // The URL bar: a bare host/path is taken as http://.
    await byTestId('replay-url').fill('pages.example/b.html');
    await byTestId('replay-url').press('Enter');
    await expect.poll(() => byTestId('replay-url').inputValue(), { timeout: 10_000 }).toBe(`${SITE}/b.html`);
    // The time shown stays (the home page's, March): the closest capture of b.html is the March one.
    const march = await frame(`${SITE}/b.html`);
    await expect.poll(() => march.evaluate(() => document.querySelector('h1')?.textContent), { timeout: 10_000 }).toBe('Old B');
    // Two captures: the picker lists both; the June one replays.
    await expect.poll(() => byTestId('replay-capture').locator('option').count(), { timeout: 10_000 }).toBe(2);
    expect(await byTestId('replay-missing-toggle').textContent()).toContain('0 missing');
    expect(await byTestId('replay-capture').inputValue()).toBe('20240301090002');
    await byTestId('replay-capture').selectOption('20240601090002');
    await expect
      .poll(async () => (await frame(`${SITE}/b.html`)).evaluate(() => document.querySelector('h1')?.textContent).catch(() => null), { timeout: 10_000 })
      .toBe('New B');
    expect(await byTestId('replay-capture').inputValue()).toBe('20240601090002');
    await shot('15-replay-capture-picker');
    // Compare on the timeline (issue 38): the June capture's text against March's, in place of the page.
    await byTestId('replay-compare').click();
    await expect.poll(() => byTestId('compare-view').isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await byTestId('compare-before').textContent()).toContain('Old B');
    expect(await byTestId('compare-after').textContent()).toContain('New B');
    expect(await page.locator('[data-testid=compare-after] .added').count()).toBeGreaterThan(0);
    await byTestId('replay-compare-close').click();
    await expect.poll(() => byTestId('compare-view').count()).toBe(0);
  });

  it('a URL not in the archive: the banner says so and never ARCHIVED', async () => {
    await byTestId('replay-url').fill(`${SITE}/never-captured.html`);
    await byTestId('replay-url').press('Enter');
    await expect.poll(() => byTestId('replay-state').textContent(), { timeout: 10_000 }).toContain('NOT IN ARCHIVE');
    const banner = await page.locator('[data-testid=replay-pane] .banner').textContent();
    expect(banner).not.toMatch(/\bARCHIVED\b/);
    await shot('16-replay-not-archived');
  });

  it('full-window mode fills the window and Escape leaves it', async () => {
    await byTestId('replay-url').fill(`${SITE}/`);
    await byTestId('replay-url').press('Enter');
    await expect.poll(() => byTestId('replay-state').textContent(), { timeout: 10_000 }).toContain('ARCHIVED');
    await byTestId('replay-fullwindow').click();
    const box = await byTestId('replay-pane').boundingBox();
    expect(box).toEqual({ x: 0, y: 0, width: 1280, height: 800 });
    await shot('17-replay-full-window');
    await page.keyboard.press('Escape');
    await expect.poll(async () => (await byTestId('replay-pane').boundingBox())!.width, { timeout: 5000 }).toBeLessThan(1280);
  });

  it('hex view (#16.7): says it shows decoded bytes, and keeps the ASCII column inside the pane at 1024 px', async () => {
    await byTestId('replay-close').click();
    await byTestId('view-records').click();
    await byTestId('filter-url').fill(`${SITE}/`);
    await expect.poll(() => byTestId('record-row').count(), { timeout: 10_000 }).toBe(1);
    await byTestId('record-row').first().click();
    await page.getByRole('button', { name: 'Hex', exact: true }).click();
    await expect.poll(() => byTestId('hex-caption').textContent(), { timeout: 5000 }).toContain('not the bytes stored in the WARC');
    for (const [w, h] of [[1280, 800], [1024, 700]] as const) {
      await page.setViewportSize({ width: w, height: h });
      const fits = await byTestId('hex-view').evaluate((pre) => {
        const asc = pre.querySelector('.asc')!.getBoundingClientRect();
        const box = pre.getBoundingClientRect();
        return asc.right <= box.right + 0.5 && pre.scrollWidth <= pre.clientWidth + 1;
      });
      expect(fits, `${w}x${h}`).toBe(true);
      await page.screenshot({ path: path.join(ARTIFACTS, `20-hex-view-${w}x${h}.png`) });
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});
