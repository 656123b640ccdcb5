/**
 * Tabs of a Chromium launched through playwright-core (its CDP client is well kept and already
 * drives the e2e tests; Apache-2.0 like Trove): the tab source of `trove crawl --browser` and of
 * a crawl started from the app when no Electron tab opener is given.
 *
 * Each tab lives in its own browser context (cookies and cache of one tab never change what
 * another captures: every page is fetched, as an HTTP crawl would).
 */
import type { Browser } from 'playwright-core';
import { TroveError } from '../errors.ts';
import type { CdpSession } from './cdp-session.ts';
import type { SourceTab, TabSource } from './tab-source.ts';

/** The flags a crawl's Chromium runs with; QA's replay browser starts from the same (core/qa/qa-browser.ts). */
export const CHROMIUM_CRAWL_ARGS = [
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

/**
 * A tab's pages share its renderer process: Chromium started a new one (and a spare) for each
 * page the tab navigated to, 43 renderer processes for 23 Python docs pages with 4 tabs, 9 with
 * these (issue 35: the CPU of a process's start and its cold caches, on every page; QA's replay
 * with 4 tabs spent 0.79–0.84 CPU s a page without them, 0.62–0.66 with them, issue 34). Each
 * tab is its own browser context, and no process is shared between contexts, so no tab's page
 * runs beside another tab's; a cross-site frame still gets its own process (site isolation).
 */
export function rendererProcessArgs(tabs: number): string[] {
  return ['--process-per-site', `--renderer-process-limit=${Math.max(1, Math.floor(tabs))}`];
}

export interface ChromiumTabSourceOptions {
  executablePath: string;
  /**
   * The crawl's tabs: one renderer process each, reused from page to page (see below). Without
   * it Chromium's own process model applies.
   */
  tabs?: number;
  userAgent?: string;
  viewport?: { width: number; height: number };
}

/** Launch `executablePath`; fails with BROWSER_LAUNCH_FAILED when it does not start. */
export async function launchChromiumTabs(opts: ChromiumTabSourceOptions): Promise<TabSource> {
  const { chromium } = await import('playwright-core');
  // Chromium refuses to run sandboxed as root (containers, CI): only then is the sandbox off.
  const args = process.getuid?.() === 0 ? [...CHROMIUM_CRAWL_ARGS, '--no-sandbox'] : [...CHROMIUM_CRAWL_ARGS];
  if (opts.tabs) args.push(...rendererProcessArgs(opts.tabs));
  let browser: Browser;
  try {
    browser = await chromium.launch({ executablePath: opts.executablePath, args, headless: true });
  } catch (err) {
    throw new TroveError('BROWSER_LAUNCH_FAILED', `could not start ${opts.executablePath}: ${(err as Error).message.split('\n')[0]}`, { path: opts.executablePath }, { cause: err });
  }
  const viewport = opts.viewport ?? { width: 1280, height: 800 };
  return {
    async open(): Promise<SourceTab> {
      const context = await browser.newContext({ viewport, ...(opts.userAgent ? { userAgent: opts.userAgent } : {}), serviceWorkers: 'block' });
      try {
        const page = await context.newPage();
        const session = (await context.newCDPSession(page)) as unknown as CdpSession;
        return { session, close: () => context.close().catch(() => {}) };
      } catch (err) {
        await context.close().catch(() => {});
        throw err;
      }
    },
    close: () => browser.close().catch(() => {}),
  };
}
