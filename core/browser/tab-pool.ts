/**
 * The browser tabs of a crawl: N tabs from a tab source (tab-source.ts: a Chromium launched by
 * playwright-core, or Electron's own tabs relayed from the app's main process), each with its
 * own CDP session, handed out one URI at a time. A tab is a connection: the crawl takes one only
 * while it holds a fetch slot of the page's queue, so politeness counts it like an HTTP fetch.
 *
 * A tab whose capture failed is replaced by a fresh one, so a crashed renderer costs one page,
 * not the crawl.
 *
 * Every tab carries the crawl's User-Agent (the Chromium source sets it on each context, so the
 * document, its subresources and its workers all send it; every tab's session also gets
 * `Network.setUserAgentOverride`, which is what an Electron tab relayed from the app needs): a
 * site sees the agent the crawl names and whose robots.txt rules it follows, not Chromium's own.
 * A page whose host has its own agent (a per-host override) is loaded with that one (`useAgent`).
 *
 * A lazy pool (`TabPool.lazy`, the tabs of `--capture auto`) starts its browser only when the
 * first page asks for a tab, or with `startNow` at once but without waiting for it (one tab, beside
 * the crawl's first fetches), and opens tabs one by one as pages wait for them, up to its size:
 * an auto crawl of a static site renders a page or two, and paid for Chromium's start and four
 * tabs before its first HTTP fetch (1 s on a quiet machine, 25 s at load 30). With
 * `idleCloseMs` it also closes its browser once every tab has been idle that long (no template
 * left to sample), and starts it again for the next page that needs one.
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
  /** The agent this tab's session sends now (the crawl's, or a host override's). */
  agent?: string;
}

export class TabPool {
  readonly size: number;
  private tabSource: TabSource | null;
  /** A lazy pool's way to its source, started by the first tab it opens. */
  private startSource: (() => Promise<TabSource>) | null = null;
  private sourceStarting: Promise<TabSource> | null = null;
  /** Tabs a lazy pool is opening now (they count towards `size`). */
  private opening = 0;
  /** A lazy pool's first tab, opened at its start (`startNow`), is on its way: the first page waits for it. */
  private warming = false;
  /** A lazy pool's idle time before its browser is closed, and the timer counting it. */
  private idleCloseMs: number | null = null;
  private idleTimer: ReturnType<typeof setTimeout> | null = null;
  private idle: Tab[] = [];
  private waiters: { resolve: (t: Tab) => void; reject: (err: Error) => void }[] = [];
  /** Tabs that exist (idle or handed out): fewer than `size` once a replacement could not be opened. */
  private alive = 0;
  private nextId = 1;
  private closed = false;
  /** The crawl's User-Agent, sent by every tab unless a host override says otherwise. */
  private userAgent: string | undefined;

  private constructor(source: TabSource | null, size: number) {
    this.tabSource = source;
    this.size = size;
  }

  /** Launch `executablePath` with `tabs` tabs of `viewport` size (the CLI's browser). */
  static async launch(opts: ChromiumTabSourceOptions & { tabs: number }): Promise<TabPool> {
    return TabPool.open(await launchChromiumTabs(opts), opts.tabs, { userAgent: opts.userAgent });
  }

  /** `tabs` tabs from `source`; the pool owns the source from here on (closing the pool closes it). */
  static async open(source: TabSource, tabs: number, opts: { userAgent?: string | undefined } = {}): Promise<TabPool> {
    const pool = new TabPool(source, tabs);
    pool.userAgent = opts.userAgent;
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

  /**
   * `tabs` tabs at most from the source `start` makes, started only when the first page asks for
   * a tab; each tab opened when a page waits and fewer than `tabs` exist. A source that fails to
   * start fails the page that asked (and is tried again by the next).
   */
  static lazy(start: () => Promise<TabSource>, tabs: number, opts: { userAgent?: string | undefined; idleCloseMs?: number; startNow?: boolean } = {}): TabPool {
    const pool = new TabPool(null, tabs);
    pool.startSource = start;
    pool.userAgent = opts.userAgent;
    pool.idleCloseMs = opts.idleCloseMs ?? null;
    // Started now with one tab, beside the crawl's first fetches, so that the first page that
    // needs a tab does not wait for Chromium's start; not needed within idleCloseMs, it is
    // closed. A failed start is tried again by the first page that asks.
    if (opts.startNow) {
      pool.warming = true;
      void pool.openLazily().then(
        (t) => {
          pool.warming = false;
          return pool.release(t);
        },
        () => {
          // The page that waited for it opens its own (and fails if the browser cannot start).
          pool.warming = false;
          const w = pool.waiters.shift();
          if (w) pool.openLazily().then((t) => w.resolve(t as Tab), w.reject);
        },
      );
    }
    return pool;
  }

  /** Every tab of a lazy pool idle: count down to closing its browser. */
  private armIdleClose(): void {
    if (this.idleCloseMs === null || !this.tabSource || this.idle.length !== this.alive || this.opening > 0 || this.waiters.length > 0) return;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.closeIdle(), this.idleCloseMs);
    this.idleTimer.unref?.();
  }

  private disarmIdleClose(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  /** Close an idle lazy pool's tabs and browser; the next page that asks starts it again. */
  private async closeIdle(): Promise<void> {
    this.idleTimer = null;
    if (this.closed || this.idle.length !== this.alive || this.opening > 0) return;
    const tabs = this.idle.splice(0);
    this.alive -= tabs.length;
    const source = this.tabSource;
    this.tabSource = null;
    this.sourceStarting = null;
    for (const t of tabs) await t.source.close().catch(() => {});
    await source?.close().catch(() => {});
  }

  private async source(): Promise<TabSource> {
    if (this.tabSource) return this.tabSource;
    this.sourceStarting ??= this.startSource!().then(
      (s) => (this.tabSource = s),
      (err: unknown) => {
        this.sourceStarting = null;
        throw err;
      },
    );
    return this.sourceStarting;
  }

  private async openTab(): Promise<Tab> {
    const source = await (await this.source()).open();
    const tab: Tab = { id: this.nextId++, session: source.session, source };
    if (this.userAgent) {
      try {
        await tab.session.send('Network.setUserAgentOverride', { userAgent: this.userAgent });
      } catch (err) {
        await source.close().catch(() => {});
        throw err;
      }
      tab.agent = this.userAgent;
    }
    return tab;
  }

  /** A free tab, waiting for one if all are busy; fails once the browser has no tab left. */
  acquire(): Promise<BrowserTab> {
    const lazy = this.startSource !== null;
    if (this.closed || (!lazy && this.alive === 0)) return Promise.reject(this.gone());
    this.disarmIdleClose();
    const t = this.idle.pop();
    if (t) return Promise.resolve(t);
    if (lazy && this.alive + this.opening < this.size && !(this.warming && this.waiters.length === 0)) return this.openLazily();
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** One more tab of a lazy pool, for the page that asked. */
  private async openLazily(): Promise<BrowserTab> {
    this.opening++;
    try {
      const t = await this.openTab();
      this.alive++;
      if (this.closed) {
        await t.source.close().catch(() => {});
        throw this.gone();
      }
      return t;
    } finally {
      this.opening--;
    }
  }

  private gone(): TroveError {
    return this.closed ? new TroveError('BROWSER_CLOSED', "the crawl's browser is closed") : new TroveError('BROWSER_GONE', "the crawl's browser has no tab left (it crashed or was killed)");
  }

  /**
   * Load the tab's next page with `userAgent` (the page's host's agent, which a per-host override
   * may change): `Network.setUserAgentOverride` on the tab's session, only when it changes.
   */
  async useAgent(tab: BrowserTab, userAgent: string): Promise<void> {
    const t = tab as Tab;
    if ((t.agent ?? this.userAgent) === userAgent) return;
    await t.session.send('Network.setUserAgentOverride', { userAgent });
    t.agent = userAgent;
  }

  /** Give a tab back; `broken` replaces it with a fresh one (after a failed or aborted capture). */
  async release(tab: BrowserTab, opts: { broken?: boolean } = {}): Promise<void> {
    let t = tab as Tab;
    if (this.closed) return;
    if (opts.broken && this.startSource) {
      // A lazy pool opens the replacement when a page asks for it.
      await t.source.close().catch(() => {});
      this.alive--;
      const w = this.waiters.shift();
      if (w) this.openLazily().then((t) => w.resolve(t as Tab), w.reject);
      else this.armIdleClose();
      return;
    }
    if (opts.broken) {
      await t.source.close().catch(() => {});
      try {
        t = await this.openTab();
      } catch {
        // The browser itself is gone: one tab fewer; with none left, every page waiting for one
        // fails (a −5 each, in crawl.log and the stats) instead of waiting for ever.
        this.alive--;
        if (this.alive === 0 && !this.startSource) for (const w of this.waiters.splice(0)) w.reject(this.gone());
        return;
      }
    }
    const w = this.waiters.shift();
    if (w) w.resolve(t);
    else {
      this.idle.push(t);
      this.armIdleClose();
    }
  }

  /** Close the idle tabs and the source (which closes what is still open: its browser, or the relay). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.disarmIdleClose();
    for (const w of this.waiters.splice(0)) w.reject(this.gone());
    for (const t of this.idle.splice(0)) await t.source.close().catch(() => {});
    const source = this.tabSource ?? (this.sourceStarting ? await this.sourceStarting.catch(() => null) : null);
    await source?.close().catch(() => {});
  }
}
