/**
 * The packaged-app path: the real Electron binary running out/main (built by `npm run build`),
 * driven by Playwright's Electron support. Skips with a message where the Electron binary is not
 * installed (it is downloaded by electron's postinstall; offline installs lack it).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { ElectronApplication } from 'playwright-core';

const require = createRequire(import.meta.url);

/**
 * The Electron executable, found the way `require('electron')` finds it but without its side
 * effect: when the binary is missing, `require('electron')` tries to download it.
 */
function electronBinary(): string | null {
  try {
    const pkg = path.dirname(require.resolve('electron/package.json'));
    const pathFile = path.join(pkg, 'path.txt');
    if (!fs.existsSync(pathFile)) return null;
    const rel = fs.readFileSync(pathFile, 'utf8').trim();
    const dist = process.env.ELECTRON_OVERRIDE_DIST_PATH || path.join(pkg, 'dist');
    const bin = path.join(dist, rel);
    return fs.existsSync(bin) ? bin : null;
  } catch {
    return null;
  }
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const binary = electronBinary();
const built = fs.existsSync(path.join(ROOT, 'out/main/index.js')) && fs.existsSync(path.join(ROOT, 'out/preload/index.cjs'));
const reason = !binary
  ? 'Electron e2e skipped: the Electron binary is not installed (node_modules/electron/dist is missing; run `npx install-electron` where the network allows, as the README says).'
  : !built
    ? 'Electron e2e skipped: run `npm run build` first (out/main, out/preload, out/renderer).'
    : null;
if (reason) console.warn(reason);

describe.skipIf(reason !== null)('Trove in Electron', () => {
  let electronApp: ElectronApplication | null = null;
  const library = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-electron-lib-'));

  afterAll(async () => {
    await electronApp?.close();
    fs.rmSync(library, { recursive: true, force: true });
  });

  it('opens a sandboxed window whose window.trove reaches the core through the IPC gate', async () => {
    const { _electron } = await import('playwright-core');
    electronApp = await _electron.launch({
      executablePath: binary!,
      args: [path.join(ROOT, 'out/main/index.js'), '--no-sandbox'],
      env: { ...process.env, TROVE_LIBRARY: library },
    });
    const page = await electronApp.firstWindow();
    await page.getByTestId('nav-library').waitFor();
    const info = await page.evaluate(() => window.trove.app.info());
    expect(info).toMatchObject({ ok: true, value: { shell: 'electron', libraryDir: library } });
    // No Node in the renderer, no generic IPC.
    expect(await page.evaluate(() => typeof (globalThis as { require?: unknown }).require)).toBe('undefined');
    expect(await page.evaluate(() => Object.keys(window.trove).sort())).toEqual(
      ['app', 'crawl', 'library', 'on', 'pathForFile', 'records', 'replay', 'robots', 'scope', 'shell'].sort(),
    );
    // Context isolation: the preload's world (and its ipcRenderer) is not the page's.
    expect(await page.evaluate(() => typeof (globalThis as { process?: unknown }).process)).toBe('undefined');
  });
});
