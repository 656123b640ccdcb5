/**
 * Layout at the sizes people use (1280×800, 1024×700), in the light and the dark theme, in real
 * Chromium: every library action reachable without sideways scrolling (a long name, a crawl and
 * an imported archive), names not cut while the table has room, a 200-character name leaving the
 * header's controls on screen, the WARC browser's record list keeping its columns and the useful
 * part of each URL beside the detail pane, no cut dropdown label, the dialogs holding focus
 * (WAI-ARIA dialog pattern), the scope preset buttons as a WAI-ARIA radio group (one Tab stop,
 * arrows move and select, focus ring not clipped), and an import of a file that is not a WARC
 * leaves no empty archive row. Screenshots go to test-artifacts/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startFixtureSite, type FixtureSite } from '../app/fixture-site.ts';
import { startPacedSite } from '../fixtures/paced-site.ts';
import { ARTIFACTS, CHROMIUM_ARGS, findChromium, NO_CHROMIUM_MESSAGE, openApp, rendererDir, serveStatic, tempLibrary, type Harness, type StaticServer } from './harness.ts';
import { cutOffControls, narrowFields } from './layout-checks.ts';

const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);

const SIZES = [
  { width: 1280, height: 800 },
  { width: 1024, height: 700 },
] as const;
const THEMES = ['light', 'dark'] as const;
/** The longest name the crawl and import forms take (core/api/commands.ts: 200 characters). */
const LONGEST_NAME = `An import with the longest name the form takes ${'and then some more words '.repeat(7)}`.slice(0, 199) + '.';

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
    const files = fs.readdirSync(warcs).map((n) => path.join(warcs, n));
    await app.service.handlers['library.import']({ files, name: 'Imported copy', copy: true });
    await app.service.handlers['library.import']({ files, name: LONGEST_NAME, copy: true });
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await server?.close();
    await site?.close();
    if (libraryDir) fs.rmSync(libraryDir, { recursive: true, force: true });
    fs.rmSync(notWarc, { force: true });
  });

  for (const size of SIZES) for (const theme of THEMES) {
    it(`library: every action of every row is reachable, names use the room there is, at ${size.width}×${size.height} (${theme})`, async () => {
      await page.setViewportSize(size);
      await page.emulateMedia({ colorScheme: theme });
      await byTestId('nav-library').click();
      await expect.poll(() => byTestId('library-row').count()).toBe(3);
      const actions = page.locator('[data-testid=library-row] td.actions button');
      await shot(`l01-library-${size.width}-${theme}`);
      expect(await actions.count()).toBeGreaterThanOrEqual(8);
      expect(await cutOffControls(page, '[data-testid=library-row] td.actions button, [data-testid=library-row] .name-cell button')).toEqual([]);
      // Delete is visible and clickable without scrolling sideways.
      const del = page.locator('[data-testid^=delete-]').first();
      const box = (await del.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(size.width);
      expect(await page.locator('.table-wrap').evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
      // A name is cut only where the name column ends: the column takes the room the others
      // leave, and a long name gets two lines of it.
      const shown = await page.locator('[data-testid=library-row] .name-cell .name').evaluateAll((els) =>
        els.map((el) => {
          const box = el.getBoundingClientRect();
          const text = el.firstChild?.firstChild ?? el.firstChild;
          let chars = 0;
          const range = document.createRange();
          const len = (text?.textContent ?? '').length;
          for (let i = 0; text && i < len; i++) {
            range.setStart(text, i);
            range.setEnd(text, i + 1);
            const r = range.getBoundingClientRect();
            if (r.bottom <= box.bottom + 0.5 && r.right <= box.right + 0.5) chars++;
          }
          return { text: el.textContent ?? '', chars };
        }),
      );
      const crawlName = shown.find((n) => n.text.startsWith('A crawl of the fixture site'))!;
      expect(crawlName.chars).toBeGreaterThanOrEqual(size.width >= 1280 ? 40 : 30);
      expect(shown.find((n) => n.text.startsWith(LONGEST_NAME.slice(0, 40)))!.chars).toBeGreaterThanOrEqual(size.width >= 1280 ? 40 : 30);
    });
  }

  for (const size of SIZES) for (const theme of THEMES) {
    it(`header: a 200-character name leaves the header's controls on screen at ${size.width}×${size.height} (${theme})`, async () => {
      await page.setViewportSize(size);
      await page.emulateMedia({ colorScheme: theme });
      await byTestId('nav-library').click();
      await page.locator('[data-testid=library-row]', { hasText: LONGEST_NAME.slice(0, 30) }).locator('[data-testid^=browse-]').click();
      await expect.poll(() => byTestId('focus-chip').textContent()).toContain(LONGEST_NAME.slice(0, 30));
      await shot(`l05-header-long-name-${size.width}-${theme}`);
      expect(await cutOffControls(page, 'header.top button, header.top h1')).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
      // The whole name is still there for a reader who points at it.
      const stored = (await app.service.handlers['library.list']({})).find((e) => e.name.startsWith(LONGEST_NAME.slice(0, 40)))!.name;
      expect(await byTestId('focus-chip').locator('strong').getAttribute('title')).toBe(stored);
    });
  }

  for (const size of SIZES) for (const theme of THEMES) {
    it(`WARC browser: with the detail pane open the list keeps its columns and the useful part of each URL at ${size.width}×${size.height} (${theme})`, async () => {
      await page.setViewportSize(size);
      await page.emulateMedia({ colorScheme: theme });
      await byTestId('nav-library').click();
      await page.locator('[data-testid=library-row]', { hasText: 'A crawl of the fixture site' }).locator('[data-testid^=browse-]').click();
      await byTestId('view-records').click();
      await expect.poll(() => byTestId('record-row').count()).toBeGreaterThan(3);
      await byTestId('record-row').first().click();
      await expect.poll(() => byTestId('record-detail').locator('[data-testid=detail-url]').count()).toBe(1);
      await shot(`l06-browser-detail-${size.width}-${theme}`);
      const row = byTestId('record-row').first();
      const shown = async (sel: string) => row.locator(sel).evaluate((el) => (el as HTMLElement).offsetWidth > 0);
      // Date and size always; MIME too at 1280 px.
      expect(await shown('.c-date')).toBe(true);
      expect(await shown('.c-size')).toBe(true);
      if (size.width >= 1280) expect(await shown('.c-mime')).toBe(true);
      // Every record is on the fixture site: the list says its origin once and shows paths.
      const cells = await page.locator('[data-testid=record-row] .c-url').evaluateAll((els) => els.slice(0, 12).map((el) => (el as HTMLElement).innerText));
      for (const text of cells) expect(text.startsWith('http://127.0.0.1')).toBe(false);
      expect(await page.locator('[data-testid=record-table] .head').textContent()).toContain('127.0.0.1');
      expect(await cutOffControls(page, '[data-testid=record-detail] button, [data-testid=filters] button')).toEqual([]);
    });
  }

  /** Share of the element's pixels that stand out from its most common colour (text on a background), in the page. */
  async function inkShare(el: import('playwright-core').Locator): Promise<number> {
    const png = (await el.screenshot()).toString('base64');
    return page.evaluate(async (b64) => {
      const img = new Image();
      img.src = `data:image/png;base64,${b64}`;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.width;
      c.height = img.height;
      const ctx = c.getContext('2d')!;
      ctx.drawImage(img, 0, 0);
      const d = ctx.getImageData(0, 0, c.width, c.height).data;
      const lum = (i: number) => 0.2126 * d[i]! + 0.7152 * d[i + 1]! + 0.0722 * d[i + 2]!;
      const counts = new Map<number, number>();
      for (let i = 0; i < d.length; i += 4) counts.set(Math.round(lum(i) / 8), (counts.get(Math.round(lum(i) / 8)) ?? 0) + 1);
      const bg = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0] * 8;
      let ink = 0;
      for (let i = 0; i < d.length; i += 4) if (Math.abs(lum(i) - bg) > 90) ink++;
      return ink / (d.length / 4);
    }, png);
  }

  for (const theme of THEMES) {
    it(`replay: a text resource (CSS, robots.txt) is readable in the ${theme} theme`, async () => {
      await page.setViewportSize(SIZES[0]);
      await page.emulateMedia({ colorScheme: theme });
      await byTestId('nav-library').click();
      await page.locator('[data-testid=library-row]', { hasText: 'A crawl of the fixture site' }).locator('[data-testid^=browse-]').click();
      await byTestId('view-records').click();
      await page.locator('[data-testid=record-row][data-type=response]', { hasText: '/style.css' }).first().click();
      await byTestId('replay-button').click();
      const frame = byTestId('replay-frame');
      await expect.poll(() => frame.count()).toBe(1);
      await expect.poll(() => page.frames().some((f) => f.url().endsWith('/style.css'))).toBe(true);
      const inner = page.frames().find((f) => f.url().endsWith('/style.css'))!;
      await expect.poll(() => inner.evaluate(() => document.body?.innerText.length ?? 0)).toBeGreaterThan(10);
      await page.waitForTimeout(100); // one paint after the text is in
      await shot(`l08-replay-css-${theme}`);
      // Text pixels that stand out from the background: white on white has none.
      expect(await inkShare(frame)).toBeGreaterThan(0.002);
      await byTestId('nav-library').click();
    });
  }

  it('export: the tick stands beside what was saved, the counts read as words, the file name has single dashes', async () => {
    await page.setViewportSize(SIZES[1]);
    await byTestId('nav-library').click();
    await page.locator('[data-testid=library-row]', { hasText: 'Imported copy' }).locator('[data-testid^=browse-]').click();
    await byTestId('export-button').click();
    await byTestId('export-run').click();
    const done = byTestId('export-done');
    await expect.poll(() => done.count(), { timeout: 30_000 }).toBe(1);
    await shot('l09-export-done-1024');
    const tick = (await done.locator('svg').first().boundingBox())!;
    const saved = (await done.getByText('Saved').boundingBox())!;
    // On the first line of the text, to its left (not alone on a line of its own).
    expect(Math.abs(tick.y + tick.height / 2 - (saved.y + Math.min(saved.height, 20) / 2))).toBeLessThan(8);
    expect(tick.x + tick.width).toBeLessThanOrEqual(saved.x);
    const summary = (await done.textContent()) ?? '';
    expect(summary).toMatch(/\b1 WARC\b/);
    expect(summary).not.toMatch(/\b1 (warcs|WARCs)\b/);
    expect((await done.locator('strong.mono').textContent())!).not.toMatch(/--/);
    await page.keyboard.press('Escape');
    await expect.poll(() => byTestId('export-dialog').count()).toBe(0);
  });

  it('dialogs hold focus: Export and Delete take it, Tab and Shift+Tab stay inside, Escape closes, focus returns to the opener', async () => {
    await page.setViewportSize(SIZES[0]);
    await byTestId('nav-library').click();
    await page.locator('[data-testid=library-row]', { hasText: 'Imported copy' }).locator('[data-testid^=browse-]').click();
    const opener = byTestId('export-button');
    await opener.focus();
    await page.keyboard.press('Enter');
    const dialog = byTestId('export-dialog');
    await expect.poll(() => dialog.count()).toBe(1);
    const inDialog = (tid: string) => page.evaluate((t) => !!document.activeElement?.closest(`[data-testid=${t}]`), tid);
    expect(await inDialog('export-dialog')).toBe(true);
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      expect(await inDialog('export-dialog')).toBe(true);
    }
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Shift+Tab');
      expect(await inDialog('export-dialog')).toBe(true);
    }
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('export-button');

    await byTestId('nav-library').click();
    const del = page.locator('[data-testid=library-row]', { hasText: 'Imported copy' }).locator('[data-testid^=delete-]');
    await del.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => byTestId('delete-dialog').count()).toBe(1);
    // The harmless choice has focus first.
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Cancel');
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press('Tab');
      expect(await inDialog('delete-dialog')).toBe(true);
    }
    await page.keyboard.press('Escape');
    await expect.poll(() => byTestId('delete-dialog').count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toMatch(/^delete-/);
    await shot('l07-dialog-focus-1280');
  });

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

  for (const size of SIZES) for (const theme of THEMES) {
    it(`new crawl: no dropdown label is cut and no control is cut off at ${size.width}×${size.height} (${theme})`, async () => {
      await page.setViewportSize(size);
      await page.emulateMedia({ colorScheme: theme });
      await byTestId('nav-new-crawl').click();
      await byTestId('limits-card').scrollIntoViewIfNeeded();
      const backoff = byTestId('limits-card').locator('select');
      await backoff.selectOption('exponential');
      expect(await cutSelects(page)).toEqual([]);
      expect(await cutOffControls(page, 'main button, main input, main select, main textarea')).toEqual([]);
      await shot(`l02-new-crawl-limits-${size.width}-${theme}`);
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

  it('sidebar: a paused crawl is counted as paused, not crawling; the Monitor shows the running crawl when none is selected', async () => {
    await page.setViewportSize(SIZES[1]);
    const paced = await startPacedSite({ pages: 40, delayMs: 120 });
    const { id } = await app.service.handlers['crawl.start']({
      name: 'Paced crawl',
      settings: { seeds: [`${paced.origin}/`], politeness: 'fast', delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, perHost: 1, concurrency: 1 },
    });
    const state = async () => (await app.service.handlers['library.list']({})).find((e) => e.id === id)?.state;
    try {
      await byTestId('nav-library').click();
      await expect.poll(() => byTestId('sidebar-crawling').textContent(), { timeout: 15_000 }).toContain('1 crawling');
      await app.service.handlers['crawl.pause']({ id });
      await expect.poll(state, { timeout: 10_000 }).toBe('paused');
      await expect.poll(() => byTestId('sidebar-paused').textContent(), { timeout: 10_000 }).toContain('1 paused');
      expect(await byTestId('sidebar-crawling').count()).toBe(0);
      // An archive is in focus, not a crawl: the Monitor takes the crawl that runs.
      await page.locator('[data-testid=library-row]', { hasText: 'Imported copy' }).locator('[data-testid^=browse-]').click();
      await byTestId('nav-monitor').click();
      await expect.poll(() => byTestId('focus-chip').textContent(), { timeout: 10_000 }).toContain('Paced crawl');
      expect(await page.getByText('No crawl selected').count()).toBe(0);
      await shot(`l10-sidebar-paused-1024`);
    } finally {
      await app.service.handlers['crawl.stop']({ id, now: true });
      await expect.poll(async () => (await app.service.handlers['library.list']({})).find((e) => e.id === id)?.running, { timeout: 20_000 }).toBe(false);
      await paced.close();
    }
  }, 60_000);
});
