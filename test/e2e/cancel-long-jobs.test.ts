/**
 * Cancelling the app's long jobs (issue 39), in Chromium with `window.trove` wired to the real
 * handlers: an import shows its progress with an ETA and a Cancel button; Cancel goes through the
 * IPC gate (library.cancelImport) to the import's worker, and the library is left as it was (no
 * new entry, no copied WARC). A WACZ export likewise (export.cancel) leaves no file in the
 * archive's exports/ folder. The WARC is made at test time: a few hundred pages and two bodies of
 * 64 MB, so each job runs long enough to be cancelled while it runs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { findChromium, NO_CHROMIUM_MESSAGE, startAppSession, type AppSession, type Harness } from './harness.ts';
import { writeBigArchiveWarc } from '../helpers/big-archive-warc.ts';

const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);

describe.skipIf(!chromium)('Cancel an import and an export, in Chromium', () => {
  let session: AppSession;
  let app: Harness;
  let page: Page;
  let libraryDir: string;
  let warc: string;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-cancel-e2e-'));
  const byTestId = (tid: string) => page.getByTestId(tid);
  const entries = () => fs.readdirSync(libraryDir).filter((n) => !n.startsWith('.'));

  beforeAll(async () => {
    warc = (await writeBigArchiveWarc(path.join(scratch, 'warc'), { pages: 300, bigBodies: 2, bigBodyBytes: 64 << 20 })).file;
    session = await startAppSession({ chromium: chromium!, chooseFiles: () => [warc], viewport: { width: 1024, height: 700 } });
    ({ app, page, libraryDir } = session);
  }, 180_000);

  afterAll(async () => {
    await session?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  // It passed 2 of 9 runs while the Library's listing cleared any message it found: the listing
  // that follows every import (and each library.changed event) wiped "Import cancelled" a moment
  // after it was shown (test/renderer/replay-and-library-state.test.ts shows it without timing).
  it('an import cancelled from its progress bar leaves the library as it was', async () => {
    await byTestId('nav-library').click();
    const before = entries();
    await byTestId('import-button').click();
    await byTestId('import-cancel').click({ timeout: 30_000 });
    await expect.poll(() => byTestId('library-error').textContent(), { timeout: 30_000 }).toContain('Import cancelled');
    expect(await byTestId('import-progress').count()).toBe(0);
    expect(entries()).toEqual(before);
    expect(await app.service.handlers['library.list']({})).toEqual([]);
  }, 120_000);

  it('a WACZ export cancelled from its progress bar leaves no file', async () => {
    const { id } = await app.service.handlers['library.import']({ files: [warc], copy: false });
    // The WARC changed since its fixity was recorded: the export hashes it again, which takes a while.
    fs.utimesSync(warc, new Date(), new Date(Date.now() + 60_000));
    await byTestId('nav-library').click();
    await byTestId(`browse-${id}`).click();
    await byTestId('export-button').click();
    await byTestId('export-wacz').click();
    await byTestId('export-run').click();
    // click() acts the moment the button is there and enabled (a poll of isEnabled() came up to a
    // second late, and a fast export had finished by then: 1 of 8 runs).
    await byTestId('export-cancel').click({ timeout: 30_000 });
    await expect.poll(() => page.locator('[data-testid=export-dialog] .error-text').textContent(), { timeout: 30_000 }).toContain('Export cancelled');
    const exportsDir = path.join(libraryDir, id, 'exports');
    expect(fs.existsSync(exportsDir) ? fs.readdirSync(exportsDir) : []).toEqual([]);
    expect(await app.service.handlers['export.list']({ archiveId: id })).toEqual([]);
  }, 180_000);
});
