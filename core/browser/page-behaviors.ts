/**
 * What a person does on a page so that it loads everything it can show: open `<details>`, play
 * media, scroll to the end (again and again while an infinite list keeps growing, within a time
 * and a height budget), and press "load more" buttons (buttons only, never links: a link leaves
 * the page). After each step the network must go quiet before the next one.
 *
 * Each step runs only where the page has something for it (issue 35: most of a page's time was
 * waiting): details only when there are closed ones, media only when there is a <video>/<audio>,
 * scrolling only when the document is taller than the viewport *and* something loads on scroll
 * (lazy images or frames, an IntersectionObserver, a scroll listener: PAGE_WATCH, installed before
 * the page's own scripts, counts them). "Quiet" is decided from the requests in flight and the
 * page's pending short timers after a short settle (`settleMs`), within today's `quietMs`.
 *
 * Written for Trove: browsertrix-behaviors does this too but is AGPL-3.0 and Trove is
 * Apache-2.0, so none of its code is used. The page-side snippets are small and self-contained;
 * the loops, budgets and waits run here, on an injectable clock.
 */
import type { BrowserClock } from './browser-clock.ts';
import type { CdpSession } from './cdp-session.ts';
import type { NetworkActivity } from './network-activity.ts';

export interface BehaviorOptions {
  clock?: BrowserClock;
  /** Longest wait for the load event after navigating. Default 30 s. */
  loadTimeoutMs?: number;
  /** No request in flight for this long = the network is quiet, whatever the page's timers. Default 500 ms. */
  quietMs?: number;
  /** Nothing in flight for this long and no short timer pending = quiet (at most quietMs). Default 100 ms. */
  settleMs?: number;
  /** Longest wait for quiet after one step. Default 10 s. */
  quietMaxMs?: number;
  scroll?: boolean;
  /** Time budget for scrolling. Default 30 s. */
  scrollMaxMs?: number;
  /** Stop scrolling past this page height (CSS px). Default 100 000. */
  scrollMaxHeight?: number;
  playMedia?: boolean;
  openDetails?: boolean;
  clickLoadMore?: boolean;
  /** Most "load more" clicks per page. Default 20. */
  maxClicks?: number;
  screenshot?: boolean;
}

export interface BehaviorReport {
  detailsOpened: number;
  mediaPlayed: number;
  scrolls: number;
  clicks: number;
  /** Budgets that ran out (`scroll-time`, `scroll-height`, `clicks`, `quiet`). */
  budgetsHit: string[];
}

export const DEFAULT_BEHAVIORS: Required<Omit<BehaviorOptions, 'clock'>> = {
  loadTimeoutMs: 30_000,
  quietMs: 500,
  settleMs: 100,
  quietMaxMs: 10_000,
  scroll: true,
  scrollMaxMs: 30_000,
  scrollMaxHeight: 100_000,
  playMedia: true,
  openDetails: true,
  clickLoadMore: true,
  maxClicks: 20,
  screenshot: true,
};

/** Run an expression in the page and return its value (awaited when it is a promise). */
export async function evaluate<T>(session: CdpSession, expression: string): Promise<T> {
  const r = await session.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true, userGesture: true });
  if (r.exceptionDetails) throw new Error(`page script failed: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
  return r.result?.value as T;
}

/**
 * Run in every document before its own scripts (Page.addScriptToEvaluateOnNewDocument): counts
 * the short timers pending (setTimeout up to 1 s: a fetch about to start), the fetches and XHRs
 * whose answers the page is still reading, and whether the page
 * watches scrolling (an IntersectionObserver observing, a scroll or wheel listener). Read back by
 * PAGE_BUSY and PAGE_SHAPE. Non-enumerable, and the page's own calls behave as before.
 */
export const PAGE_WATCH = `(() => {
  if (window.__troveWatch) return;
  const live = new Set();
  const w = { timers: () => live.size, io: () => 0, observed: 0, scrollListeners: 0 };
  Object.defineProperty(window, '__troveWatch', { value: w });
  const st = window.setTimeout, ct = window.clearTimeout;
  window.setTimeout = function (fn, ms, ...args) {
    if (typeof fn !== 'function' || Number(ms) > 1000) return st.call(this, fn, ms, ...args);
    const id = st.call(this, function () { live.delete(id); return fn.apply(this, arguments); }, ms, ...args);
    live.add(id);
    return id;
  };
  window.clearTimeout = function (id) { live.delete(id); return ct.call(this, id); };
  if (window.IntersectionObserver) {
    const observe = IntersectionObserver.prototype.observe;
    IntersectionObserver.prototype.observe = function (el) { w.observed++; return observe.call(this, el); };
  }
  // Fetches and XHRs whose answer the page has not finished reading: its script still has work
  // to do with them (a body of megabytes is read well after the network is done with it).
  let io = 0;
  w.io = () => io;
  const track = (p) => {
    io++;
    const done = () => { io--; };
    p.then(done, done);
    return p;
  };
  if (window.fetch) {
    const f = window.fetch;
    window.fetch = function (...args) { return track(f.apply(this, args)); };
  }
  if (window.Response) {
    for (const m of ['arrayBuffer', 'blob', 'json', 'text', 'formData']) {
      const read = Response.prototype[m];
      if (read) Response.prototype[m] = function (...args) { return track(read.apply(this, args)); };
    }
  }
  if (window.XMLHttpRequest) {
    const send = XMLHttpRequest.prototype.send;
    XMLHttpRequest.prototype.send = function (...args) {
      io++;
      this.addEventListener('loadend', () => st(() => { io--; }, 0));
      return send.apply(this, args);
    };
  }
  const add = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, l, o) {
    if (type === 'scroll' || type === 'wheel') w.scrollListeners++;
    return add.call(this, type, l, o);
  };
})()`;

/** `io` while the page waits for or reads an answer, `timer` while a short timer is pending (it may be about to fetch), else null. */
export const PAGE_BUSY = `(window.__troveWatch ? (window.__troveWatch.io() > 0 ? 'io' : window.__troveWatch.timers() > 0 ? 'timer' : null) : 'timer')`;

/** What the behaviors may have to do on this page. */
const PAGE_SHAPE = `(() => {
  const el = document.scrollingElement || document.documentElement;
  const w = window.__troveWatch;
  const lazy = document.querySelector('img[loading=lazy], iframe[loading=lazy], [data-src], [data-srcset], [data-lazy], [data-bg]') !== null;
  return {
    tall: el.scrollHeight > window.innerHeight + 8,
    scrollWatched: lazy || !w || w.observed > 0 || w.scrollListeners > 0 || typeof window.onscroll === 'function' || typeof document.onscroll === 'function',
  };
})()`;

const OPEN_DETAILS = `(() => { let n = 0; for (const d of document.querySelectorAll('details:not([open])')) { d.open = true; n++; } return n; })()`;

// Muted, so autoplay rules allow play() without a gesture; load() first, so a <source> added by
// script is fetched. A play() that fails (no supported source) is fine: the request was made.
const PLAY_MEDIA = `(async () => {
  const media = [...document.querySelectorAll('video, audio')];
  await Promise.all(media.map(async (m) => {
    m.muted = true;
    if (m.readyState === 0) m.load();
    try { await Promise.race([m.play(), new Promise((r) => setTimeout(r, 2000))]); } catch {}
  }));
  return media.length;
})()`;

// After the scroll, two frames and a task: the frame that computes what came into view, and
// the IntersectionObserver callbacks it queues (which start the lazy loads the settle then
// waits for), however slow a loaded machine makes them.
const SCROLL_STEP = `(async () => {
  const el = document.scrollingElement || document.documentElement;
  window.scrollBy(0, Math.max(200, Math.floor(window.innerHeight * 0.8)));
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 0))));
  return { bottom: Math.ceil(window.scrollY + window.innerHeight), height: el.scrollHeight };
})()`;

// "Load more"-like buttons: <button> (and role=button that is not a link) whose label says so,
// visible and enabled. A submit button inside a form would send the form: skipped.
const LOAD_MORE = /\b(load|show|see|view)\s+(more|all|older|further)\b|\bmore\s+(results|items|posts|stories|comments)\b/i;
const FIND_AND_CLICK_MORE = `(() => {
  const re = ${LOAD_MORE};
  const candidates = [...document.querySelectorAll('button, [role=button]')].filter((b) => {
    if (b.closest('a[href]')) return false;
    if (b.tagName === 'BUTTON' && b.form && (b.getAttribute('type') || 'submit').toLowerCase() === 'submit') return false;
    if (b.disabled || b.getAttribute('aria-disabled') === 'true') return false;
    const label = (b.innerText || b.getAttribute('aria-label') || b.value || '').trim();
    if (!re.test(label)) return false;
    const r = b.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(b).visibility !== 'hidden';
  });
  const b = candidates[0];
  if (!b) return false;
  b.scrollIntoView({ block: 'center' });
  b.click();
  return true;
})()`;

/** Wait for quiet as the behaviors do: in-flight requests, then the page's short timers, within quietMs. */
export function waitQuiet(session: CdpSession, net: NetworkActivity, o: Required<Omit<BehaviorOptions, 'clock'>>, signal?: AbortSignal): Promise<boolean> {
  return net.waitForQuiet({ quietMs: o.quietMs, settleMs: o.settleMs, maxMs: o.quietMaxMs, signal, busy: () => evaluate<'io' | 'timer' | null>(session, PAGE_BUSY) });
}

/**
 * Run the behaviors in order; each waits for the network to go quiet after it. `timings` gets
 * the ms each step took (details, media, scroll, load-more).
 */
export async function runBehaviors(
  session: CdpSession,
  net: NetworkActivity,
  clock: BrowserClock,
  o: Required<Omit<BehaviorOptions, 'clock'>>,
  signal?: AbortSignal,
  timings: Record<string, number> = {},
): Promise<BehaviorReport> {
  const report: BehaviorReport = { detailsOpened: 0, mediaPlayed: 0, scrolls: 0, clicks: 0, budgetsHit: [] };
  const quiet = async (): Promise<void> => {
    if (!(await waitQuiet(session, net, o, signal))) report.budgetsHit.push('quiet');
  };
  const aborted = (): boolean => signal?.aborted === true;
  let t = performance.now();
  const lap = (name: string): void => {
    const now = performance.now();
    timings[name] = (timings[name] ?? 0) + (now - t);
    t = now;
  };

  if (o.openDetails && !aborted()) {
    report.detailsOpened = await evaluate<number>(session, OPEN_DETAILS);
    if (report.detailsOpened > 0) await quiet();
    lap('details');
  }
  if (o.playMedia && !aborted()) {
    report.mediaPlayed = await evaluate<number>(session, PLAY_MEDIA);
    if (report.mediaPlayed > 0) await quiet();
    lap('media');
  }
  if (o.scroll && !aborted()) {
    await scrollIfWatched(session, clock, o, report, quiet, aborted);
    lap('scroll');
  }
  if (o.clickLoadMore && !aborted()) {
    const startUrl = await evaluate<string>(session, 'location.href');
    while (!aborted()) {
      if (report.clicks >= o.maxClicks) {
        report.budgetsHit.push('clicks');
        break;
      }
      if (!(await evaluate<boolean>(session, FIND_AND_CLICK_MORE))) break;
      report.clicks++;
      await quiet();
      // A button that navigated after all (script-driven): stop pressing things on a new page.
      if ((await evaluate<string>(session, 'location.href')) !== startUrl) break;
    }
    // What the clicks added may be further down, behind lazy loading.
    if (report.clicks > 0 && o.scroll && !aborted()) await scrollIfWatched(session, clock, o, report, quiet, aborted);
    lap('load-more');
  }
  // Media added by the steps above (a "load more" that brought a video) plays too.
  if (o.playMedia && !aborted() && (report.clicks > 0 || report.scrolls > 1)) {
    const n = await evaluate<number>(session, PLAY_MEDIA);
    if (n > report.mediaPlayed) {
      report.mediaPlayed = n;
      await quiet();
    }
    lap('media');
  }
  return report;
}

/** Scroll to the end only when there is somewhere to scroll and something that loads on scroll. */
async function scrollIfWatched(
  session: CdpSession,
  clock: BrowserClock,
  o: Required<Omit<BehaviorOptions, 'clock'>>,
  report: BehaviorReport,
  quiet: () => Promise<void>,
  aborted: () => boolean,
): Promise<void> {
  const shape = await evaluate<{ tall: boolean; scrollWatched: boolean }>(session, PAGE_SHAPE);
  if (shape.tall && shape.scrollWatched) await scrollToEnd(session, clock, o, report, quiet, aborted);
}

async function scrollToEnd(
  session: CdpSession,
  clock: BrowserClock,
  o: Required<Omit<BehaviorOptions, 'clock'>>,
  report: BehaviorReport,
  quiet: () => Promise<void>,
  aborted: () => boolean,
): Promise<void> {
  const start = clock.now();
  let atBottomTwice = 0;
  while (!aborted()) {
    if (clock.now() - start >= o.scrollMaxMs) {
      report.budgetsHit.push('scroll-time');
      break;
    }
    const s = await evaluate<{ bottom: number; height: number }>(session, SCROLL_STEP);
    report.scrolls++;
    await quiet();
    const after = await evaluate<number>(session, '(document.scrollingElement || document.documentElement).scrollHeight');
    if (after > o.scrollMaxHeight) {
      report.budgetsHit.push('scroll-height');
      break;
    }
    // At the bottom and the page did not grow while the network settled: the end. Twice, so a
    // list that appends on a timer after its fetch still gets its turn.
    if (s.bottom >= after) {
      if (++atBottomTwice >= 2) break;
    } else {
      atBottomTwice = 0;
    }
  }
  await evaluate(session, 'window.scrollTo(0, 0)');
}
