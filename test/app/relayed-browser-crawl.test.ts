/**
 * Browser crawls from the app drive tabs the crawl worker does not own. In the app those are
 * Electron's hidden windows in the main process; Electron cannot run here, so the main test
 * thread plays the host with tabs of Debian's Chromium through playwright-core CDP sessions (the
 * same CdpSession interface `debuggerSession(webContents.debugger)` gives the Electron host).
 *
 * - the relay itself: commands, answers, CDP errors and events cross a MessagePort; closing the
 *   worker's side, or the worker thread ending without closing it, closes the host's tabs; the
 *   tab pool over relayed tabs replaces a broken one;
 * - a crawl in a real worker thread through the app's CrawlRunner, browser mode on: what the
 *   fixture site's scripts load is in the archive (read back with warcio), no Chromium was
 *   launched by the worker (every tab came from the host), and every tab is closed at the end;
 * - with no tab opener and no Chromium, starting a browser crawl fails with a clear error.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MessageChannel, Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CrawlRunner, type RunnerEvent } from '../../core/app/crawl-runner.ts';
import { findChromium } from '../e2e/harness.ts';
import { launchChromiumTabs } from '../../core/browser/chromium-tab-source.ts';
import { RelayedTabSource } from '../../core/browser/relayed-cdp-session.ts';
import { serveTabs } from '../../core/browser/tab-relay-host.ts';
import { TabPool } from '../../core/browser/tab-pool.ts';
import type { OpenTab, TabSource } from '../../core/browser/tab-source.ts';
import { TroveError } from '../../core/errors.ts';
import { startBrowserSite, type BrowserSiteServer } from '../helpers/browser-site-server.ts';
import { verifyCrawlDir } from '../helpers/verify-crawl-dir.ts';

const chromium = findChromium();

const fast = { concurrency: 4, perHost: 2, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, maxRetries: 0 };

/** The host's opener, counting the tabs it opened and those still open. */
function countingOpener(source: TabSource): { open: OpenTab; opened: () => number; openNow: () => number } {
  let opened = 0;
  let closed = 0;
  return {
    opened: () => opened,
    openNow: () => opened - closed,
    open: async () => {
      const tab = await source.open();
      opened++;
      let done = false;
      return {
        session: tab.session,
        close: async () => {
          if (done) return;
          done = true;
          await tab.close();
          closed++;
        },
      };
    },
  };
}

describe.skipIf(!chromium)('browser crawl through relayed tabs', () => {
  let browser: TabSource;
  let site: BrowserSiteServer;
  const dirs: string[] = [];
  beforeAll(async () => {
    browser = await launchChromiumTabs({ executablePath: chromium! });
    site = await startBrowserSite();
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('relays commands, answers, errors and events, and closing the worker side closes the tabs', async () => {
    const host = countingOpener(browser);
    const { port1, port2 } = new MessageChannel();
    const served = serveTabs(port1, host.open);
    const relayed = new RelayedTabSource(port2);
    const tab = await relayed.open();
    expect(host.openNow()).toBe(1);

    const value = await tab.session.send('Runtime.evaluate', { expression: '6 * 7', returnByValue: true });
    expect(value.result.value).toBe(42);
    await expect(tab.session.send('No.suchMethod')).rejects.toThrow(/No\.suchMethod|not found/i);

    const loaded = new Promise<{ frame: { url: string } }>((resolve) => {
      const l = (p: { frame: { url: string } }) => {
        tab.session.off('Page.frameNavigated', l);
        resolve(p);
      };
      tab.session.on('Page.frameNavigated', l);
    });
    await tab.session.send('Page.enable');
    await tab.session.send('Page.navigate', { url: `${site.origin}/spa.html` });
    expect((await loaded).frame.url).toBe(`${site.origin}/spa.html`);

    await relayed.open();
    expect(host.openNow()).toBe(2);
    await relayed.close();
    await served.closed;
    expect(host.openNow()).toBe(0);
    expect(served.openTabs).toBe(0);
    await expect(tab.session.send('Runtime.evaluate', { expression: '1' })).rejects.toThrow(/closed/);
  }, 60_000);

  it("the tab pool over relayed tabs replaces a broken tab and closes them all with the pool", async () => {
    const host = countingOpener(browser);
    const { port1, port2 } = new MessageChannel();
    const served = serveTabs(port1, host.open);
    const pool = await TabPool.open(new RelayedTabSource(port2), 2);
    expect(host.openNow()).toBe(2);
    const tab = await pool.acquire();
    await pool.release(tab, { broken: true });
    expect(host.opened()).toBe(3);
    expect(host.openNow()).toBe(2);
    const again = await pool.acquire();
    expect((await again.session.send('Runtime.evaluate', { expression: '1 + 1', returnByValue: true })).result.value).toBe(2);
    await pool.close();
    await served.closed;
    expect(host.openNow()).toBe(0);
  }, 60_000);

  it('closes the tabs when the worker thread ends without closing its port', async () => {
    const host = countingOpener(browser);
    const { port1, port2 } = new MessageChannel();
    const served = serveTabs(port1, host.open);
    // A worker that opens a tab and exits at once, as a crashed crawl worker would.
    const worker = new Worker(
      `const { workerData } = require('node:worker_threads');
       workerData.port.on('message', (m) => { if (m.type === 'opened') process.exit(3); });
       workerData.port.postMessage({ type: 'open', id: 1 });`,
      { eval: true, workerData: { port: port2 }, transferList: [port2] },
    );
    const code = await new Promise((resolve) => worker.once('exit', resolve));
    expect(code).toBe(3);
    await served.closed;
    expect(host.opened()).toBe(1);
    expect(host.openNow()).toBe(0);
  }, 60_000);

  it("crawls the fixture site in a worker thread with the host's tabs, captures what scripts load, and closes the tabs", async () => {
    const host = countingOpener(browser);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-relayed-crawl-'));
    dirs.push(dir);
    const before = site.hits.length;
    const exit = await new Promise<Extract<RunnerEvent, { type: 'exit' }>>((resolve, reject) => {
      const runner = new CrawlRunner({ openTab: host.open, onEvent: (_id, e) => e.type === 'exit' && resolve(e) });
      // No browser path, and TROVE_CHROMIUM is not read: every tab must come from the host.
      runner.start('relayed', dir, { ...fast, seeds: [`${site.origin}/`], browser: { enabled: true, tabs: 2 } }).catch(reject);
    });
    expect(exit.error).toBeNull();
    expect(exit.snapshot?.finishReason).toBe('frontier-empty');
    expect(host.opened()).toBeGreaterThanOrEqual(2);
    // The worker closed its port when the crawl ended; the host then closes every tab.
    await vi.waitFor(() => expect(host.openNow()).toBe(0), { timeout: 10_000 });

    const check = await verifyCrawlDir(dir);
    expect(check.openFiles).toEqual([]);
    expect(check.warcOnly).toEqual([]);
    expect(check.indexOnly).toEqual([]);
    const inArchive = new Set(check.records.filter((r) => r.type === 'response' || r.type === 'revisit').map((r) => r.targetUri!));
    const requested = new Set(site.hits.slice(before).filter((h) => h.method === 'GET').map((h) => site.origin + h.url));
    expect([...requested].filter((u) => !inArchive.has(u))).toEqual([]);
    // Only script knows these: the SPA's JSON and the article links it renders.
    for (const u of ['/api/articles.json', '/articles/dynamic.html']) expect(inArchive.has(site.origin + u)).toBe(true);
    const spa = `${site.origin}/spa.html`;
    expect(check.records.some((r) => r.type === 'resource' && r.targetUri === `urn:view:${spa}`)).toBe(true);
    const log = fs.readFileSync(path.join(dir, 'logs', 'crawl.log'), 'utf8');
    expect(log).toMatch(new RegExp(`${spa.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} .*browser:\\d+`));
  }, 240_000);

  it('a crawl without browser mode opens no tab and lets the relay go', async () => {
    const host = countingOpener(browser);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-relayed-crawl-'));
    dirs.push(dir);
    const exit = await new Promise<Extract<RunnerEvent, { type: 'exit' }>>((resolve, reject) => {
      const runner = new CrawlRunner({ openTab: host.open, onEvent: (_id, e) => e.type === 'exit' && resolve(e) });
      runner.start('plain', dir, { ...fast, seeds: [`${site.origin}/spa.html`], maxHops: 0 }).catch(reject);
    });
    expect(exit.error).toBeNull();
    expect(host.opened()).toBe(0);
  }, 60_000);
});

describe('browser crawl from the app without tabs', () => {
  it('says that there is no browser and what to do, when there is no tab opener and no Chromium', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-relayed-crawl-'));
    try {
      const runner = new CrawlRunner({ onEvent: () => {} });
      // This machine has a Chromium; the only candidate the worker may try is a file that is
      // not one (explicit paths are the only one tried), as on a machine without any.
      const missing = path.join(dir, 'not-a-chromium');
      fs.writeFileSync(missing, 'not an executable\n', { mode: 0o644 });
      const err = await runner.start('none', path.join(dir, 'crawl'), { ...fast, seeds: ['http://127.0.0.1:9/'], browser: { enabled: true, tabs: 1, path: missing } }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(TroveError);
      expect((err as TroveError).code).toBe('BROWSER_NOT_FOUND');
      expect((err as TroveError).message).toMatch(/cannot open browser tabs for crawls and no Chromium is installed/);
      expect((err as TroveError).message).toContain('Install Chromium');
      expect((err as TroveError).message).toContain(missing);
      expect((err as TroveError).message).not.toContain('--browser-path');
      await runner.exited('none');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
