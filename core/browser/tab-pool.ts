/**
 * The browser tabs of a crawl: N tabs from a tab source (tab-source.ts: a Chromium launched by
 * playwright-core, or Electron's own tabs relayed from the app's main process), each with its
 * own CDP session, handed out one URI at a time. A tab is a connection: the crawl takes one only
 * while it holds a fetch slot of the page's queue, so politeness counts it like an HTTP fetch.
 *
 * A tab whose capture failed is replaced by a fresh one, so a crashed renderer costs one page,
 * not the crawl.
 */
import { TroveError } from '../errors.ts';
import type { CdpSession } from './cdp-session.ts';
import { launchChromiumTabs, type ChromiumTabSourceOptions } from './chromium-tab-source.ts';
import type { SourceTab, TabSource } from './tab-source.ts';

export interface BrowserTab {
  readonly id: number;
  readonly session: CdpSession;
}

interface Tab extends BrowserTab {
  source: SourceTab;
}

export class TabPool {
  readonly size: number;
  private tabSource: TabSource;
  private idle: Tab[] = [];
  private waiters: { resolve: (t: Tab) => void; reject: (err: Error) => void }[] = [];
  /** Tabs that exist (idle or handed out): fewer than `size` once a replacement could not be opened. */
  private alive = 0;
  private nextId = 1;
  private closed = false;

  private constructor(source: TabSource, size: number) {
    this.tabSource = source;
    this.size = size;
  }

  /** Launch `executablePath` with `tabs` tabs of `viewport` size (the CLI's browser). */
  static async launch(opts: ChromiumTabSourceOptions & { tabs: number }): Promise<TabPool> {
    return TabPool.open(await launchChromiumTabs(opts), opts.tabs);
  }

  /** `tabs` tabs from `source`; the pool owns the source from here on (closing the pool closes it). */
  static async open(source: TabSource, tabs: number): Promise<TabPool> {
    const pool = new TabPool(source, tabs);
    try {
      for (let i = 0; i < tabs; i++) pool.idle.push(await pool.openTab());
      pool.alive = tabs;
    } catch (err) {
      for (const t of pool.idle) await t.source.close().catch(() => {});
      await source.close().catch(() => {});
      throw err;
    }
    return pool;
  }

  private async openTab(): Promise<Tab> {
    const source = await this.tabSource.open();
    return { id: this.nextId++, session: source.session, source };
  }

  /** A free tab, waiting for one if all are busy; fails once the browser has no tab left. */
  acquire(): Promise<BrowserTab> {
    if (this.closed || this.alive === 0) return Promise.reject(this.gone());
    const t = this.idle.pop();
    if (t) return Promise.resolve(t);
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  private gone(): TroveError {
    return this.closed ? new TroveError('BROWSER_CLOSED', "the crawl's browser is closed") : new TroveError('BROWSER_GONE', "the crawl's browser has no tab left (it crashed or was killed)");
  }

  /** Give a tab back; `broken` replaces it with a fresh one (after a failed or aborted capture). */
  async release(tab: BrowserTab, opts: { broken?: boolean } = {}): Promise<void> {
    let t = tab as Tab;
    if (this.closed) return;
    if (opts.broken) {
      await t.source.close().catch(() => {});
      try {
        t = await this.openTab();
      } catch {
        // The browser itself is gone: one tab fewer; with none left, every page waiting for one
        // fails (a −5 each, in crawl.log and the stats) instead of waiting for ever.
        this.alive--;
        if (this.alive === 0) for (const w of this.waiters.splice(0)) w.reject(this.gone());
        return;
      }
    }
    const w = this.waiters.shift();
    if (w) w.resolve(t);
    else this.idle.push(t);
  }

  /** Close the idle tabs and the source (which closes what is still open: its browser, or the relay). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const w of this.waiters.splice(0)) w.reject(this.gone());
    for (const t of this.idle.splice(0)) await t.source.close().catch(() => {});
    await this.tabSource.close().catch(() => {});
  }
}
