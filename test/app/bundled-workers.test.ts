/**
 * The Electron build bundles the crawl, extract, export and import workers as chunks of their own
 * (electron.vite.config.ts rewrites `new URL('./x-worker.ts', import.meta.url)`). When a fresh
 * `npm run build` is present, run a real crawl, an export and an import through them, and a
 * browser crawl whose tabs the host relays to the bundled worker (as Electron's main process does).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CrawlRunner, type RunnerEvent } from '../../core/app/crawl-runner.ts';
import { ExportRunner } from '../../core/app/export-runner.ts';
import { appSigningKeyFile } from '../../core/app/signing-key.ts';
import { ImportRunner } from '../../core/app/import-runner.ts';
import { startFixtureSite } from './fixture-site.ts';
import { findChromium } from '../../core/browser/find-chromium.ts';
import { launchChromiumTabs } from '../../core/browser/chromium-tab-source.ts';
import { startBrowserSite } from '../helpers/browser-site-server.ts';
import { readWarcDir } from '../helpers/read-warcs.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OUT = path.join(ROOT, 'out', 'main');

function newest(dir: string): number {
  let t = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs);
  }
  return t;
}

const workers = ['crawl-worker.js', 'extract-worker.js', 'export-worker.js', 'import-worker.js'].map((n) => path.join(OUT, n));
const fresh = workers.every((w) => fs.existsSync(w)) && Math.min(...workers.map((w) => fs.statSync(w).mtimeMs)) > newest(path.join(ROOT, 'core'));
if (!fresh) console.warn('bundled-worker test skipped: run `npm run build` (out/main is missing or older than core/)');

describe.skipIf(!fresh)('bundled workers', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-bundled-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('crawl, export and import through out/main/*-worker.js', async () => {
    const site = await startFixtureSite();
    try {
      const exit = await new Promise<Extract<RunnerEvent, { type: 'exit' }>>((resolve, reject) => {
        const runner = new CrawlRunner({
          workerUrl: pathToFileURL(workers[0]!),
          onEvent: (_id, e) => e.type === 'exit' && resolve(e),
        });
        runner.start('b', path.join(dir, 'crawl'), { seeds: [`${site.origin}/`], politeness: 'fast', minDelayMs: 0, maxDelayMs: 0, delayFactor: 0 }).catch(reject);
      });
      expect(exit.error).toBeNull();
      expect(exit.snapshot?.downloaded).toBeGreaterThan(5);
      // Signed with the key the app makes, as the app's Export dialog asks.
      const exporter = new ExportRunner({ workerUrl: pathToFileURL(workers[2]!), signingKeyFile: () => appSigningKeyFile(dir) });
      const wacz = await exporter.run('b', path.join(dir, 'crawl'), { archiveId: 'b', format: 'wacz', sign: true }, () => {});
      expect(wacz.summary.pages).toBeGreaterThan(3);
      expect(wacz.summary.signature).toBe('P-384');
      expect(wacz.warning).toBeUndefined();
      const report = await new ImportRunner({ workerUrl: pathToFileURL(workers[3]!) }).run(path.join(dir, 'imported'), [wacz.path], false, () => {});
      expect(report.problems).toEqual([]);
      expect(report.records).toBeGreaterThan(10);
    } finally {
      await site.close();
    }
  });

  it("a browser crawl through the bundled crawl worker drives the host's relayed tabs", async (t) => {
    let chromium: string;
    try {
      chromium = findChromium();
    } catch {
      return t.skip();
    }
    const browser = await launchChromiumTabs({ executablePath: chromium });
    const site = await startBrowserSite();
    let opened = 0;
    try {
      const exit = await new Promise<Extract<RunnerEvent, { type: 'exit' }>>((resolve, reject) => {
        const runner = new CrawlRunner({
          workerUrl: pathToFileURL(workers[0]!),
          openTab: async () => {
            opened++;
            return browser.open();
          },
          onEvent: (_id, e) => e.type === 'exit' && resolve(e),
        });
        runner.start('tabs', path.join(dir, 'browser-crawl'), { seeds: [`${site.origin}/spa.html`], maxHops: 0, politeness: 'fast', minDelayMs: 0, maxDelayMs: 0, delayFactor: 0, browser: { enabled: true, tabs: 1 } }).catch(reject);
      });
      expect(exit.error).toBeNull();
      expect(opened).toBeGreaterThanOrEqual(1);
      const urls = new Set((await readWarcDir(path.join(dir, 'browser-crawl', 'warcs'))).filter((r) => r.type === 'response').map((r) => r.targetUri));
      expect(urls.has(`${site.origin}/api/articles.json`)).toBe(true);
    } finally {
      await browser.close();
      await site.close();
    }
  }, 120_000);
});
