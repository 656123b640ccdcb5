/**
 * One page replayed for QA, in its own browser context: every http(s) request the page makes is
 * paused over CDP (Fetch) and answered by `replayResponse`, the handler the app's replay view
 * uses, so the replay policy (CSP, guard script, no service workers) is in force and nothing
 * reaches the live web; any other scheme the policy does not allow is failed. What the page
 * asked for is counted by how replay answered it: captured (2xx/3xx), missing (not archived),
 * error (4xx/5xx). Then the page's text and a viewport screenshot, taken as a browser capture
 * takes them (Page.captureScreenshot after the network went quiet, and after the behaviors when
 * the reference was captured after them), so the two compare.
 */
import type { Browser } from 'playwright-core';
import type { Archive } from '../archive/archive-dir.ts';
import { replayResponse } from '../app/replay-bridge.ts';
import { replaySchemeAllowed } from '../replay/replay-policy.ts';
import { realClock } from '../browser/browser-clock.ts';
import type { CdpSession } from '../browser/cdp-session.ts';
import { NetworkActivity } from '../browser/network-activity.ts';
import { DEFAULT_BEHAVIORS, runBehaviors } from '../browser/page-behaviors.ts';

export interface PageView {
  /** The page document itself was not archived, or answered 4xx/5xx (or, live, failed to load). */
  pageFailed: boolean;
  title: string;
  text: string;
  screenshot: Buffer | null;
  captured: number;
  missingUrls: string[];
  errorUrls: { url: string; status: number }[];
  scriptErrors: string[];
}

export interface ViewOptions {
  viewport: { width: number; height: number };
  /** Run the browser crawl's behaviors (scroll, load more…) before reading the page. */
  behaviors: boolean;
  signal?: AbortSignal;
}

/** Quiet network for this long = the page is done (the crawl waits 500 ms; replay answers locally). */
const QUIET_MS = 300;
const QUIET_MAX_MS = 8_000;
const LOAD_TIMEOUT_MS = 30_000;
/** Script errors kept per page. */
const SCRIPT_ERRORS_MAX = 20;

/** Chromium asks for /favicon.ico by itself: no page asked for it, so it counts for nothing. */
export function isAutoRequest(url: string): boolean {
  try {
    return new URL(url).pathname === '/favicon.ico';
  } catch {
    return false;
  }
}

export async function replayPage(browser: Browser, archive: Archive, page: { url: string; ts: string }, opts: ViewOptions): Promise<PageView> {
  const outcome = new Map<string, number | 'missing'>();
  let pageFailed = false;
  const answer = async (session: CdpSession, e: any): Promise<void> => {
    const url: string = e.request.url;
    if (!/^https?:/i.test(url)) {
      if (replaySchemeAllowed(url)) await session.send('Fetch.continueRequest', { requestId: e.requestId }).catch(() => {});
      else await session.send('Fetch.failRequest', { requestId: e.requestId, errorReason: 'BlockedByClient' }).catch(() => {});
      return;
    }
    const headers = Object.entries(e.request.headers as Record<string, string>);
    const r = await replayResponse(archive, { url, at: page.ts, method: e.request.method, headers });
    const isPage = e.resourceType === 'Document' && url.split('#')[0] === page.url;
    if (isPage && (r.info.kind === 'not-archived' || r.status >= 400)) pageFailed = true;
    if (!isPage && !isAutoRequest(url)) outcome.set(url, r.info.kind === 'not-archived' ? 'missing' : r.status);
    await session
      .send('Fetch.fulfillRequest', {
        requestId: e.requestId,
        responseCode: r.status,
        ...(r.statusText ? { responsePhrase: r.statusText } : {}),
        responseHeaders: r.headers.map(([name, value]) => ({ name, value })),
        body: r.body.toString('base64'),
      })
      .catch(() => {});
  };
  const view = await viewPage(browser, page.url, opts, async (session) => {
    await session.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] });
    session.on('Fetch.requestPaused', (e) => void answer(session, e).catch(() => session.send('Fetch.failRequest', { requestId: e.requestId, errorReason: 'Failed' }).catch(() => {})));
  });
  const missingUrls: string[] = [];
  const errorUrls: { url: string; status: number }[] = [];
  let captured = 0;
  for (const [url, o] of outcome) {
    if (o === 'missing') missingUrls.push(url);
    else if (o >= 400) errorUrls.push({ url, status: o });
    else captured++;
  }
  return { ...view, pageFailed: pageFailed || view.pageFailed, captured, missingUrls, errorUrls };
}

/**
 * Open `url` in a fresh context (after `prepare` set up the session), wait for the load and a
 * quiet network, run the behaviors when asked, and read title, text and a viewport screenshot.
 * Shared by the replayed page and the live reference.
 */
export async function viewPage(
  browser: Browser,
  url: string,
  opts: ViewOptions,
  prepare: (session: CdpSession) => Promise<void>,
): Promise<Omit<PageView, 'captured' | 'missingUrls' | 'errorUrls'>> {
  const context = await browser.newContext({ viewport: opts.viewport, serviceWorkers: 'block' });
  const scriptErrors: string[] = [];
  try {
    const tab = await context.newPage();
    tab.on('pageerror', (err) => {
      if (scriptErrors.length < SCRIPT_ERRORS_MAX) scriptErrors.push(err.message.split('\n')[0]!.slice(0, 300));
    });
    const session = (await context.newCDPSession(tab)) as unknown as CdpSession;
    await session.send('Network.enable');
    const net = new NetworkActivity(session, realClock);
    net.start();
    await prepare(session);
    let pageFailed = false;
    try {
      const res = await tab.goto(url, { waitUntil: 'load', timeout: LOAD_TIMEOUT_MS });
      if (!res || res.status() >= 400) pageFailed = true;
    } catch {
      pageFailed = true;
    }
    await net.waitForQuiet({ quietMs: QUIET_MS, maxMs: QUIET_MAX_MS, ...(opts.signal ? { signal: opts.signal } : {}) }).catch(() => false);
    if (opts.behaviors && !opts.signal?.aborted) {
      await runBehaviors(session, net, realClock, { ...DEFAULT_BEHAVIORS, screenshot: false }, opts.signal).catch(() => undefined);
    }
    const seen = await tab
      .evaluate(() => ({ title: document.title, text: document.body ? document.body.innerText : '' }))
      .catch(() => ({ title: '', text: '' }));
    const shot = await session.send('Page.captureScreenshot', { format: 'png' }).catch(() => null);
    net.stop();
    return { pageFailed, title: seen.title, text: seen.text, screenshot: shot ? Buffer.from(shot.data as string, 'base64') : null, scriptErrors };
  } finally {
    await context.close().catch(() => {});
  }
}
