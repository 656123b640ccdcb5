/**
 * "Export to…" (issue #16 item 7): the archivist picks the folder an export is saved in. The
 * host's native dialog answers (here the harness, in Electron `dialog.showOpenDialog`), the host
 * hands the folder to the core: the renderer never names a path to write. The WACZ saved there
 * is read by independent ZIP readers; a cancelled dialog writes nothing and reports no error.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { findChromium, NO_CHROMIUM_MESSAGE, startAppSession, type AppSession, type Harness } from './harness.ts';
import { startPacedSite, type PacedSite } from '../fixtures/paced-site.ts';
import { readZipEverywhere } from '../export/independent-zip-readers.ts';

const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);

describe.skipIf(!chromium)('Export to a folder of the user\'s choosing, in Chromium', () => {
  let session: AppSession;
  let site: PacedSite;
  let app: Harness;
  let page: Page;
  let libraryDir: string;
  let chosen: string | null = null;
  const target = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-export-to-'));
  const byTestId = (tid: string) => page.getByTestId(tid);

  beforeAll(async () => {
    site = await startPacedSite({ pages: 6, delayMs: 0 });
    session = await startAppSession({ chromium: chromium!, chooseFolder: () => chosen, viewport: { width: 1024, height: 700 } });
    ({ app, page, libraryDir } = session);
  }, 120_000);

  afterAll(async () => {
    await session?.close();
    await site?.close();
    fs.rmSync(target, { recursive: true, force: true });
  });

  it('saves the WACZ in the chosen folder (read by yauzl, Python zipfile and unzip -t); a cancelled dialog writes nothing', async () => {
    const { id } = await app.service.handlers['crawl.start']({
      name: 'Export to',
      settings: { seeds: [`${site.origin}/`], politeness: 'fast', delayFactor: 0, minDelayMs: 0, maxDelayMs: 0 },
    });
    await expect.poll(async () => (await app.service.handlers['library.list']({})).find((e) => e.id === id)?.state, { timeout: 30_000 }).toBe('finished');
    await byTestId('nav-library').click();
    await byTestId(`browse-${id}`).click();
    await byTestId('export-button').click();
    await byTestId('export-wacz').click();

    // Cancelled: nothing written, no error shown, the dialog stays open.
    chosen = null;
    await byTestId('export-run-to').click();
    await expect.poll(() => byTestId('export-run-to').isEnabled()).toBe(true);
    expect(await byTestId('export-done').count()).toBe(0);
    expect(await page.locator('[data-testid=export-dialog] .error-text').count()).toBe(0);
    expect(fs.readdirSync(target)).toEqual([]);

    chosen = target;
    await byTestId('export-run-to').click();
    await expect.poll(() => byTestId('export-done').isVisible(), { timeout: 30_000 }).toBe(true);
    expect(await byTestId('export-path').textContent()).toContain(target);
    const saved = fs.readdirSync(target);
    expect(saved).toHaveLength(1);
    expect(saved[0]).toMatch(/\.wacz$/);
    const entries = await readZipEverywhere(path.join(target, saved[0]!));
    expect(entries.map((e) => e.name)).toEqual(expect.arrayContaining(['datapackage.json', 'pages/pages.jsonl']));
    // Not in the archive's own exports folder, and not listed there as an earlier export.
    expect(fs.existsSync(path.join(libraryDir, id, 'exports')) ? fs.readdirSync(path.join(libraryDir, id, 'exports')) : []).toEqual([]);
    expect(await byTestId('earlier-exports').count()).toBe(0);
  }, 120_000);
});
