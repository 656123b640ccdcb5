/**
 * Layout at the sizes people use (1280×800, 1024×700), in real Chromium: every library action
 * reachable without sideways scrolling (a long name, a crawl and an imported archive), no cut
 * dropdown label, the scope preset buttons as a WAI-ARIA radio group (one Tab stop, arrows move
 * and select, focus ring not clipped), and an import of a file that is not a WARC leaves no
 * empty archive row. Screenshots go to test-artifacts/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startFixtureSite, type FixtureSite } from '../app/fixture-site.ts';
import { ARTIFACTS, CHROMIUM_ARGS, findChromium, NO_CHROMIUM_MESSAGE, openApp, rendererDir, serveStatic, tempLibrary, type Harness, type StaticServer } from './harness.ts';
import { cutOffControls, narrowFields } from './layout-checks.ts';

const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);

const SIZES = [
  { width: 1280, height: 800 },
  { width: 1024, height: 700 },
] as const;

/** Selects whose chosen label is wider than the room the select gives it. */
async function cutSelects(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const ctx = document.createElement('canvas').getContext('2d')!;
    const out: string[] = [];
    for (const sel of document.querySelectorAll<HTMLSelectElement>('select')) {
      if (sel.offsetWidth === 0) continue;
      const cs = getComputedStyle(sel);
      ctx.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
      const text = sel.selectedOptions[0]?.textContent ?? '';
      const need = ctx.measureText(text).width + parseFloat(cs.paddingLeft) + 16; // 16: the arrow
      if (need > sel.offsetWidth + 0.5) out.push(`"${text}" needs ${Math.ceil(need)} px, has ${sel.offsetWidth}`);
    }
    return out;
  });
}

describe.skipIf(!chromium)('layout at 1280×800 and 1024×700', () => {
  let browser: Browser;
  let server: StaticServer;
  let site: FixtureSite;
  let app: Harness;
  let page: Page;
  let libraryDir: string;
  let choose: string[] = [];
  const notWarc = path.join(ARTIFACTS, 'not-a-warc.txt');

  const byTestId = (id: string) => page.getByTestId(id);
  const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    fs.writeFileSync(notWarc, 'This is a plain text file, not a WARC.\n');
    const [dir, fixture] = await Promise.all([rendererDir(), startFixtureSite()]);
    site = fixture;
    server = await serveStatic(dir);
    const { chromium: pw } = await import('playwright-core');
    browser = await pw.launch({ executablePath: chromium!, args: CHROMIUM_ARGS });
    libraryDir = tempLibrary();
    app = await openApp({ browser, origin: server.origin, libraryDir, viewport: SIZES[0], chooseFiles: () => choose });
    page = app.page;
    page.on('pageerror', (err) => console.error('[page error]', err));
    // A finished crawl with a long name, and an archive imported from its WARCs.
    const { id } = await app.service.handlers['crawl.start']({
      name: 'A crawl of the fixture site with a rather long descriptive name for the table',
      settings: { seeds: [`${site.origin}/`], delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, perHost: 2 },
    });
    for (let i = 0; i < 300 && (await app.service.handlers['library.list']({})).find((e) => e.id === id)?.state !== 'finished'; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const warcs = path.join(libraryDir, id, 'warcs');
    await app.service.handlers['library.import']({ files: fs.readdirSync(warcs).map((n) => path.join(warcs, n)), name: 'Imported copy', copy: true });
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.close();
    await site?.close();
    if (libraryDir) fs.rmSync(libraryDir, { recursive: true, force: true });
    fs.rmSync(notWarc, { force: true });
  });

  for (const size of SIZES) {
    it(`library: every action of every row is reachable at ${size.width}×${size.height}`, async () => {
      await page.setViewportSize(size);
      await byTestId('nav-library').click();
      await expect.poll(() => byTestId('library-row').count()).toBe(2);
      const actions = page.locator('[data-testid=library-row] td.actions button');
      expect(await actions.count()).toBeGreaterThanOrEqual(8);
      expect(await cutOffControls(page, '[data-testid=library-row] td.actions button, [data-testid=library-row] .name-cell button')).toEqual([]);
      // Delete is visible and clickable without scrolling sideways.
      const del = page.locator('[data-testid^=delete-]').first();
      const box = (await del.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(size.width);
      expect(await page.locator('.table-wrap').evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
      await shot(`l01-library-${size.width}`);
    });
  }

  it('an import of a file that is not a WARC leaves no empty archive row', async () => {
    const before = (await app.service.handlers['library.list']({})).length;
    choose = [notWarc];
    await byTestId('import-button').click();
    await expect.poll(() => page.locator('.toast').allTextContents(), { timeout: 20_000 }).toContainEqual(expect.stringContaining('Nothing imported'));
    await expect.poll(() => byTestId('library-row').count(), { timeout: 10_000 }).toBe(before);
    // Why it was refused is still shown.
    expect(await page.locator('.problems').textContent()).toContain('not a WARC');
    await shot('l04-import-not-a-warc-1024');
    expect((await app.service.handlers['library.list']({})).length).toBe(before);
    expect(fs.readdirSync(libraryDir).filter((n) => n.startsWith('not-a-warc'))).toEqual([]);
  });

  for (const size of SIZES) {
    it(`new crawl: no dropdown label is cut and no control is cut off at ${size.width}×${size.height}`, async () => {
      await page.setViewportSize(size);
      await byTestId('nav-new-crawl').click();
      await byTestId('limits-card').scrollIntoViewIfNeeded();
      const backoff = byTestId('limits-card').locator('select');
      await backoff.selectOption('exponential');
      expect(await cutSelects(page)).toEqual([]);
      expect(await cutOffControls(page, 'main button, main input, main select, main textarea')).toEqual([]);
      await shot(`l02-new-crawl-limits-${size.width}`);
    });
  }

  it('new crawl at 1024×700: every field of Limits and WARC files is wide enough to use (Rotate at, File prefix…)', async () => {
    await page.setViewportSize(SIZES[1]);
    await byTestId('nav-new-crawl').click();
    await byTestId('warc-card').scrollIntoViewIfNeeded();
    await shot('l05-new-crawl-warc-1024');
    // 80 px holds a 7-digit number or a short prefix with room to click; before, Rotate at was 18 px.
    expect(await narrowFields(page, '[data-testid=limits-card] input, [data-testid=limits-card] select, [data-testid=warc-card] input, [data-testid=warc-card] select', 80)).toEqual([]);
    expect(await byTestId('warc-max').evaluate((e) => e.getBoundingClientRect().width)).toBeGreaterThanOrEqual(80);
    expect(await byTestId('warc-prefix').evaluate((e) => e.getBoundingClientRect().width)).toBeGreaterThanOrEqual(80);
  });

  it('scope presets are a radio group: one Tab stop, arrow keys move and select, the focus ring is not clipped', async () => {
    await page.setViewportSize(SIZES[1]);
    await byTestId('nav-new-crawl').click();
    await byTestId('scope-card').scrollIntoViewIfNeeded();
    const radios = byTestId('scope-card').locator('[role=radio]');
    const n = await radios.count();
    expect(n).toBeGreaterThan(2);
    const checkedIndex = async () => (await radios.evaluateAll((els) => els.findIndex((e) => e.getAttribute('aria-checked') === 'true')));
    const start = await checkedIndex();
    // Exactly one of them is in the Tab order: the checked one.
    expect(await radios.evaluateAll((els) => els.map((e) => (e as HTMLElement).tabIndex))).toEqual(Array.from({ length: n }, (_, i) => (i === start ? 0 : -1)));
    await radios.nth(start).focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(checkedIndex).toBe((start + 1) % n);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-checked'))).toBe('true');
    await page.keyboard.press('ArrowLeft');
    await expect.poll(checkedIndex).toBe(start);
    await page.keyboard.press('End');
    await expect.poll(checkedIndex).toBe(n - 1);
    await page.keyboard.press('ArrowRight'); // wraps
    await expect.poll(checkedIndex).toBe(0);
    // The roving tab stop followed the selection.
    expect(await radios.evaluateAll((els) => els.map((e) => (e as HTMLElement).tabIndex))).toEqual(Array.from({ length: n }, (_, i) => (i === 0 ? 0 : -1)));
    // The ring is drawn inside the button, so the segmented box (overflow: hidden) cannot clip it.
    const ring = await page.evaluate(() => {
      const cs = getComputedStyle(document.activeElement!);
      return { style: cs.outlineStyle, width: parseFloat(cs.outlineWidth), offset: parseFloat(cs.outlineOffset) };
    });
    expect(ring.style).toBe('solid');
    expect(ring.offset + ring.width).toBeLessThanOrEqual(0);
    await byTestId('scope-host').click();
    await byTestId('scope-host').focus();
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowRight');
    await shot('l03-scope-radio-focus-1024');
  });
});
