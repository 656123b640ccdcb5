/**
 * Where a crawl's browser tabs come from. The tab pool (tab-pool.ts) only needs to open a tab,
 * drive it through its CdpSession (capturePage navigates with Page.navigate, so the session is
 * all it takes to load a page) and close it; who owns the browser differs:
 *
 * - the CLI and tests launch a Chromium with playwright-core (chromium-tab-source.ts);
 * - in the app the tabs are Electron's own hidden windows in the main process, while the crawl
 *   runs in a worker thread: the worker's source relays CDP over a MessagePort
 *   (relayed-cdp-session.ts) to the thread that owns them (tab-relay-host.ts).
 */
import type { CdpSession } from './cdp-session.ts';

export interface SourceTab {
  readonly session: CdpSession;
  /** Close the tab (its page and, where it has one, its browser context). */
  close(): Promise<void>;
}

export interface TabSource {
  /** A fresh tab on about:blank. */
  open(): Promise<SourceTab>;
  /** Close every tab still open and let the browser (or the relay) go. */
  close(): Promise<void>;
}

/** How the thread that owns the tabs opens one (Electron main: a hidden window; tests: playwright). */
export type OpenTab = () => Promise<SourceTab>;
