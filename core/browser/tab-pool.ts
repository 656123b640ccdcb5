/**
 * The browser tabs of a crawl: one Chromium launched through playwright-core (its CDP client is
 * well kept and already drives the e2e tests; Apache-2.0 like Trove), N tabs each with its own
 * CDP session, handed out one URI at a time. A tab is a connection: the crawl takes one only
 * while it holds a fetch slot of the page's queue, so politeness counts it like an HTTP fetch.
 *
 * Each tab lives in its own browser context (cookies and cache of one tab never change what
 * another captures: every page is fetched, as an HTTP crawl would). A tab whose capture failed
 * is replaced by a fresh one, so a crashed renderer costs one page, not the crawl.
 *
 * Every context carries the crawl's User-Agent (Playwright sets it on each page's session, so the
 * document, its subresources and its workers all send it): a site sees the agent the crawl
 * names and whose robots.txt rules it follows, not Chromium's own. A page whose host has its own
 * agent (a per-host override) is loaded with that one (`useAgent`, set on the tab's CDP session).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { TroveError } from '../errors.ts';
import type { CdpSession } from './cdp-session.ts';

export interface BrowserTab {
  readonly id: number;
  readonly session: CdpSession;
}

interface Tab extends BrowserTab {
  context: BrowserContext;
  page: Page;
  /** The agent this tab's session overrides the context's with (a host override's), if any. */
  agent?: string;
}

const ARGS = [
  '--headless',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--mute-audio',
  // Media behaviors play audio and video without a gesture, as a person's click would.
  '--autoplay-policy=no-user-gesture-required',
];

export class TabPool {
  readonly size: number;
  private browser: Browser;
  private idle: Tab[] = [];
  private waiters: { resolve: (t: Tab) => void; reject: (err: Error) => void }[] = [];
  /** Tabs that exist (idle or handed out): fewer than `size` once a replacement could not be opened. */
  private alive = 0;
  private nextId = 1;
  private closed = false;

  private constructor(browser: Browser, size: number) {
    this.browser = browser;
    this.size = size;
  }

  /** Launch `executablePath` with `tabs` tabs of `viewport` size. */
  static async launch(opts: { executablePath: string; tabs: number; userAgent?: string; viewport?: { width: number; height: number } }): Promise<TabPool> {
    const { chromium } = await import('playwright-core');
    // Chromium refuses to run sandboxed as root (containers, CI): only then is the sandbox off.
    const args = process.getuid?.() === 0 ? [...ARGS, '--no-sandbox'] : ARGS;
    let browser: Browser;
    try {
      browser = await chromium.launch({ executablePath: opts.executablePath, args, headless: true });
    } catch (err) {
      throw new TroveError('BROWSER_LAUNCH_FAILED', `could not start ${opts.executablePath}: ${(err as Error).message.split('\n')[0]}`, { path: opts.executablePath }, { cause: err });
    }
    const pool = new TabPool(browser, opts.tabs);
    pool.viewport = opts.viewport ?? { width: 1280, height: 800 };
    pool.userAgent = opts.userAgent;
    try {
      for (let i = 0; i < opts.tabs; i++) pool.idle.push(await pool.open());
      pool.alive = opts.tabs;
    } catch (err) {
      await browser.close().catch(() => {});
      throw err;
    }
    return pool;
  }

  private viewport = { width: 1280, height: 800 };
  private userAgent: string | undefined;

  private async open(): Promise<Tab> {
    const context = await this.browser.newContext({ viewport: this.viewport, ...(this.userAgent ? { userAgent: this.userAgent } : {}), serviceWorkers: 'block' });
    const page = await context.newPage();
    const session = (await context.newCDPSession(page)) as unknown as CdpSession;
    return { id: this.nextId++, context, page, session };
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
    if (opts.broken) {
      await t.context.close().catch(() => {});
      try {
        t = await this.open();
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

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const w of this.waiters.splice(0)) w.reject(this.gone());
    await this.browser.close().catch(() => {});
  }
}
