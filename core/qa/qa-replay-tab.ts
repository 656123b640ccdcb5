/**
 * A QA tab: one browser context and page that replays page after page (a new context per page
 * cost 1.5–2.5 s on a loaded two-core machine, more than the replay itself). Every http(s)
 * request the page makes is paused over CDP (Fetch) and answered by `replayResponse`, the handler
 * the app's replay view uses (through qa-replay-answers.ts, which keeps the answers pages share), so the replay policy (CSP, guard script, no service workers) is in
 * force and nothing reaches the live web; any other scheme the policy does not allow is failed.
 * The HTTP cache is off, so every request of every page comes to the handler and is counted by
 * how replay answered it: captured (2xx/3xx), missing (not archived), error (4xx/5xx). (With it
 * on, the shared stylesheets and scripts still came to the handler on every page: Chromium does
 * not keep responses fulfilled over Fetch in its HTTP cache.)
 *
 * Then the page's text and a viewport screenshot, taken as a browser capture takes them
 * (Page.captureScreenshot after the network went quiet, and after the behaviors when the
 * reference was captured after them), so the two compare. A live tab (no interception) serves
 * `--against-live` the same way.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Archive } from '../archive/archive-dir.ts';
import { ReplayAnswers } from './qa-replay-answers.ts';
import { replaySchemeAllowed } from '../replay/replay-policy.ts';
import { realClock } from '../browser/browser-clock.ts';
import type { CdpSession } from '../browser/cdp-session.ts';
import { NetworkActivity } from '../browser/network-activity.ts';
import { DEFAULT_BEHAVIORS, evaluate, PAGE_BUSY, PAGE_WATCH, runBehaviors } from '../browser/page-behaviors.ts';
import type { QaPhaseTimes } from './qa-phases.ts';
import { VIEWPORT_BOX, viewportShot, type ViewportBox } from '../browser/viewport-shot.ts';

export interface PageView {
  /** The page document itself was not archived, or answered 4xx/5xx (or, live, failed to load). */
  pageFailed: boolean;
  /** The load event did not come within LOAD_TIMEOUT_MS (the page was read as it was then). */
  timedOut: boolean;
  title: string;
  text: string;
  screenshot: Buffer | null;
  captured: number;
  missingUrls: string[];
  errorUrls: { url: string; status: number }[];
  scriptErrors: string[];
}

export interface ViewOptions {
  /** Run the browser crawl's behaviors (scroll, load more…) before reading the page. */
  behaviors: boolean;
  /** The screenshot's size against the viewport's: the reference's, so the two compare pixel for pixel (1 when none). */
  shotScale?: number;
  signal?: AbortSignal;
  /** Wait QUIET_MS of quiet rather than SETTLE_MS: a second read of a page the first read found not good. */
  patient?: boolean;
}

/**
 * The page is done when no request is in flight, the page reads no answer and has no short timer
 * pending (the browser crawl's watch, PAGE_WATCH / PAGE_BUSY) for SETTLE_MS; with a short timer
 * pending, after QUIET_MS of no network. Replay answers locally, so the crawl's 100 ms settle
 * is more than a replayed page needs; a fixed 300 ms wait per page was a fifth of its time.
 */
const SETTLE_MS = 40;
/**
 * Then the page's own "finished", in its own time rather than Node's: the load event, the
 * document's images decoded (lazy ones the viewport has not reached are left: they may never
 * load), its web fonts ready, then two animation frames and a task, so what those unblock (an
 * onload handler, a frame callback) has run however long a loaded machine kept the page from
 * running. A request the page started meanwhile sends the wait back to the network's quiet.
 */
const PAGE_SETTLED = `(async () => {
  if (document.readyState !== 'complete') await new Promise((r) => addEventListener('load', r, { once: true }));
  await Promise.all([...document.images].filter((i) => i.loading !== 'lazy' && i.currentSrc).map((i) => i.decode().catch(() => {})));
  if (document.fonts) await document.fonts.ready;
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 0))));
})()`;
const QUIET_MS = 300;
const QUIET_MAX_MS = 8_000;
const LOAD_TIMEOUT_MS = 30_000;
/**
 * The scale of a screenshot with no capture-time one to match (replay-only, and the live page and
 * its replay with `--against-live`): half the viewport, as a browser crawl keeps its own. Chromium
 * encodes a quarter of the pixels, and pixelmatch compares a quarter; a missing image or
 * stylesheet changes the same share of them.
 */
export const QA_SHOT_SCALE = 0.5;

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

/** How the page being replayed asked and was answered. */
interface Answers {
  archive: Archive;
  page: { url: string; ts: string };
  outcome: Map<string, number | 'missing'>;
  pageFailed: boolean;
}

export class QaTab {
  readonly #context: BrowserContext;
  readonly #tab: Page;
  readonly #session: CdpSession;
  readonly #net: NetworkActivity;
  readonly #phases: QaPhaseTimes | null;
  readonly #replay: ReplayAnswers;
  #scriptErrors: string[] = [];
  #answers: Answers | null = null;
  /** Requests the tab's page started (Network.requestWillBeSent), to see one start while the page settles. */
  #started = 0;

  private constructor(context: BrowserContext, tab: Page, session: CdpSession, phases: QaPhaseTimes | null, replay: ReplayAnswers) {
    this.#context = context;
    this.#tab = tab;
    this.#session = session;
    this.#phases = phases;
    this.#replay = replay;
    this.#net = new NetworkActivity(session, realClock);
    session.on('Network.requestWillBeSent', () => void this.#started++);
    tab.on('pageerror', (err) => {
      if (this.#scriptErrors.length < SCRIPT_ERRORS_MAX) this.#scriptErrors.push(err.message.split('\n')[0]!.slice(0, 300));
    });
  }

  /**
   * A tab; with `replay`, one whose every request is answered from an archive (by `answers`, which
   * the tabs of a run share). `phases` collects where its time goes.
   */
  static async open(
    browser: Browser,
    viewport: { width: number; height: number },
    replay: boolean,
    phases: QaPhaseTimes | null = null,
    answers: ReplayAnswers = new ReplayAnswers(),
  ): Promise<QaTab> {
    const context = await browser.newContext({ viewport, serviceWorkers: 'block' });
    try {
      const tab = await context.newPage();
      const session = (await context.newCDPSession(tab)) as unknown as CdpSession;
      const t = new QaTab(context, tab, session, phases, answers);
      await session.send('Network.enable');
      await session.send('Network.setCacheDisabled', { cacheDisabled: true });
      await session.send('Page.enable');
      // The browser crawl's watch on timers and reads, in every document before its scripts.
      await session.send('Page.addScriptToEvaluateOnNewDocument', { source: PAGE_WATCH });
      t.#net.start();
      if (replay) {
        await session.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] });
        session.on('Fetch.requestPaused', (e) => void t.#answer(e).catch(() => session.send('Fetch.failRequest', { requestId: e.requestId, errorReason: 'Failed' }).catch(() => {})));
      }
      return t;
    } catch (err) {
      await context.close().catch(() => {});
      throw err;
    }
  }

  async close(): Promise<void> {
    this.#net.stop();
    await this.#context.close().catch(() => {});
  }

  async #answer(e: any): Promise<void> {
    const url: string = e.request.url;
    const a = this.#answers;
    if (!/^https?:/i.test(url) || !a) {
      // Outside a replay nothing is answered from the archive, and nothing goes out.
      if (a && replaySchemeAllowed(url)) await this.#session.send('Fetch.continueRequest', { requestId: e.requestId });
      else await this.#session.send('Fetch.failRequest', { requestId: e.requestId, errorReason: 'BlockedByClient' });
      return;
    }
    const headers = Object.entries(e.request.headers as Record<string, string>);
    const since = performance.now();
    const r = await this.#replay.answer(a.archive, { url, at: a.page.ts, method: e.request.method, headers });
    this.#phases?.answered(since);
    const isPage = e.resourceType === 'Document' && url.split('#')[0] === a.page.url;
    if (isPage && (r.info.kind === 'not-archived' || r.status >= 400)) a.pageFailed = true;
    if (!isPage && !isAutoRequest(url)) a.outcome.set(url, r.info.kind === 'not-archived' ? 'missing' : r.status);
    await this.#session
      .send('Fetch.fulfillRequest', {
        requestId: e.requestId,
        responseCode: r.status,
        ...(r.statusText ? { responsePhrase: r.statusText } : {}),
        responseHeaders: r.headers.map(([name, value]) => ({ name, value })),
        body: r.body64,
      })
      .catch(() => {});
  }

  /** Replay one page of `archive` (a tab opened with `replay`). */
  async replay(archive: Archive, page: { url: string; ts: string }, opts: ViewOptions): Promise<PageView> {
    const answers: Answers = { archive, page, outcome: new Map(), pageFailed: false };
    this.#answers = answers;
    let view: Omit<PageView, 'captured' | 'missingUrls' | 'errorUrls'>;
    try {
      view = await this.view(page.url, opts);
    } finally {
      this.#answers = null;
    }
    const missingUrls: string[] = [];
    const errorUrls: { url: string; status: number }[] = [];
    let captured = 0;
    for (const [url, o] of answers.outcome) {
      if (o === 'missing') missingUrls.push(url);
      else if (o >= 400) errorUrls.push({ url, status: o });
      else captured++;
    }
    return { ...view, pageFailed: answers.pageFailed || view.pageFailed, captured, missingUrls, errorUrls };
  }

  /** Until the network is quiet and the page settled with no request started meanwhile (PAGE_SETTLED), within QUIET_MAX_MS. */
  async #settle(signal?: AbortSignal, patient = false): Promise<void> {
    const busy = () => evaluate<'io' | 'timer' | null>(this.#session, PAGE_BUSY);
    const end = performance.now() + QUIET_MAX_MS;
    for (let left = QUIET_MAX_MS; left > 0 && !signal?.aborted; left = end - performance.now()) {
      await this.#net.waitForQuiet({ quietMs: QUIET_MS, settleMs: patient ? QUIET_MS : SETTLE_MS, maxMs: left, busy, ...(signal ? { signal } : {}) }).catch(() => false);
      const started = this.#started;
      const budget = new AbortController();
      const over = realClock.sleep(Math.max(0, end - performance.now()), signal ? AbortSignal.any([signal, budget.signal]) : budget.signal).then(() => false, () => false);
      const settled = await Promise.race([evaluate(this.#session, PAGE_SETTLED).then(() => true, () => true), over]);
      budget.abort();
      if (!settled || (this.#started === started && this.#net.inFlight === 0)) return;
    }
  }

  /**
   * Open `url`, wait for the load and a quiet network, run the behaviors when asked, and read
   * title, text and a viewport screenshot. The next page is opened from this one: the network was
   * quiet before the read, and navigating cancels whatever the page still had in flight.
   */
  async view(url: string, opts: ViewOptions): Promise<Omit<PageView, 'captured' | 'missingUrls' | 'errorUrls'>> {
    this.#scriptErrors = [];
    let pageFailed = false;
    let timedOut = false;
    let t = performance.now();
    const lap = (phase: Parameters<QaPhaseTimes['add']>[0]) => {
      if (this.#phases) t = this.#phases.add(phase, t);
    };
    try {
      const res = await this.#tab.goto(url, { waitUntil: 'load', timeout: LOAD_TIMEOUT_MS });
      if (!res || res.status() >= 400) pageFailed = true;
    } catch (err) {
      // A load event that did not come in time is a slow page (or a loaded machine), not a failed
      // one: what the page shows by then is read and scored like any other.
      if ((err as Error).name === 'TimeoutError') timedOut = true;
      else pageFailed = true;
    }
    lap('navigate');
    await this.#settle(opts.signal, opts.patient);
    lap('quiet');
    if (opts.behaviors && !opts.signal?.aborted) {
      await runBehaviors(this.#session, this.#net, realClock, { ...DEFAULT_BEHAVIORS, screenshot: false }, opts.signal).catch(() => undefined);
      lap('behaviors');
    }
    // Title, text and the viewport's box in one round trip.
    const seen = await evaluate<{ title: string; text: string; box: ViewportBox }>(this.#session, `({ title: document.title, text: document.body ? document.body.innerText : '', box: ${VIEWPORT_BOX} })`).catch(() => null);
    lap('text');
    // Taken as a browser capture takes its screenshot (browser/viewport-shot.ts), at the reference's scale.
    const shot = seen?.box ? await viewportShot(this.#session, seen.box, opts.shotScale ?? 1).catch(() => null) : null;
    lap('screenshot');
    return { pageFailed, timedOut, title: seen?.title ?? '', text: seen?.text ?? '', screenshot: shot, scriptErrors: [...this.#scriptErrors] };
  }
}
