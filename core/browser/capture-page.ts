/**
 * One page captured in a browser tab: record every exchange, navigate, wait for the load and for
 * the network to go quiet, run the behaviors, then read what the page became (its text, its
 * links after script, a screenshot) and stop recording once every exchange reached the sink.
 * The crawl's browser fetcher and the app's Record window both come through here.
 *
 * Fails with TroveError BROWSER_NAVIGATION_FAILED when the browser could not load the URL at
 * all (no response: refused, unresolvable…; an HTTP error status is a capture like any other),
 * and BROWSER_CAPTURE_ABORTED when `signal` aborted it. Either way the recorder is stopped and
 * exchanges already paused have reached the sink.
 */
import { TroveError } from '../errors.ts';
import { realClock, type BrowserClock } from './browser-clock.ts';
import type { CdpSession } from './cdp-session.ts';
import { NetworkActivity } from './network-activity.ts';
import { DEFAULT_BEHAVIORS, evaluate, PAGE_WATCH, runBehaviors, waitQuiet, type BehaviorOptions, type BehaviorReport } from './page-behaviors.ts';
import { PageRecorder } from './page-recorder.ts';
import type { RecordSink } from './recorded-exchange.ts';
import type { MediaCaptureOptions, MediaReport } from './media-completer.ts';
import { viewportShot } from './viewport-shot.ts';

export type { BehaviorOptions } from './page-behaviors.ts';

export interface PageCapture {
  url: string;
  finalUrl: string;
  status: number;
  title: string;
  /** document.body.innerText after the behaviors. */
  text: string;
  /** <a href>, <area href> from the live DOM after script (L hops). */
  outlinks: string[];
  /** Every URL the page loaded but the page itself (E hops). */
  embeds: string[];
  /** PNG. */
  screenshot?: Buffer;
  requested: string[];
  /** Of `requested`, the http(s) URLs the page's scripts asked for (what HTTP extraction cannot find). */
  scripted: string[];
  /** URLs the request gate (`allowRequest`) refused: never sent, not recorded. */
  blocked: string[];
  behaviors: BehaviorReport;
  /** Exchanges the recorder could not keep whole (a body the browser would not hand out). */
  problems: { url: string; message: string }[];
  /** What the whole-media fetches did (with `media`). */
  media?: MediaReport;
  /** Where the page's time went, ms per phase (the browser bench prints them). */
  timings: PhaseTimings;
  /** With `marker`: whether the rendered page has it. */
  markerFound?: boolean;
}

/** Milliseconds per phase of one capture, in the order they ran; a behavior that did not run is absent. */
export type PhaseTimings = Partial<Record<CapturePhase, number>>;
export type CapturePhase = 'start' | 'navigate' | 'load' | 'quiet' | 'details' | 'media' | 'scroll' | 'load-more' | 'read' | 'screenshot' | 'records';

export interface CapturePageOptions {
  sink: RecordSink;
  behaviors?: BehaviorOptions;
  signal?: AbortSignal;
  spoolDir?: string;
  /** Bytes of a body kept in memory before it is spooled (PageRecorder's maxInMemory). */
  maxInMemory?: number;
  /** Asked before each request goes out; false fails it unsent (PageRecorder's allowRequest). */
  allowRequest?: (url: string, resourceType: string) => boolean | Promise<boolean>;
  /** Whole media beside the page (PageRecorder's media, media-completer.ts). */
  media?: MediaCaptureOptions;
  /**
   * Let the tab's HTTP cache answer what an earlier page of this tab already loaded (and the
   * recorder then captured): the crawl's tabs, whose earlier pages' resources are in the archive
   * already. The recorder disables the cache; without this it stays disabled, and every resource
   * of every page goes over the network and is recorded again.
   */
  reuseCache?: boolean;
  /**
   * Something to look for in the page as rendered, after the behaviors (the crawl's
   * `--logged-in-check`): an element matching a CSS selector, or text in the page's text or
   * markup. The answer is `markerFound`.
   */
  marker?: { selector: string } | { text: string };
}

/** The screenshot's size against the viewport's: half (a thumbnail and a look at the page, not a copy of it). */
const SCREENSHOT_SCALE = 0.5;

// Links as the live DOM has them: resolved by the browser against the document's base URL.
const LINKS = `(() => {
  const out = new Set();
  for (const a of document.querySelectorAll('a[href], area[href]')) {
    const h = a.href;
    if (typeof h === 'string' && /^https?:/i.test(h)) out.add(h.split('#')[0]);
  }
  return [...out];
})()`;

/** The page script that answers whether the rendered page has the marker (a bad selector: no). */
function markerScript(marker: NonNullable<CapturePageOptions['marker']>): string {
  if ('selector' in marker) return `(() => { try { return document.querySelector(${JSON.stringify(marker.selector)}) !== null; } catch { return false; } })()`;
  const t = JSON.stringify(marker.text);
  return `((document.body ? document.body.innerText : '').includes(${t}) || document.documentElement.outerHTML.includes(${t}))`;
}

/** The phases' stopwatch: `lap(phase)` adds the time since the last lap to `phase` (null: to none). */
function phaseClock(): { timings: PhaseTimings; lap: (phase: CapturePhase | null) => void } {
  const timings: PhaseTimings = {};
  let t = performance.now();
  return {
    timings,
    lap(phase) {
      const now = performance.now();
      if (phase) timings[phase] = (timings[phase] ?? 0) + (now - t);
      t = now;
    },
  };
}

export async function capturePage(session: CdpSession, url: string, opts: CapturePageOptions): Promise<PageCapture> {
  const o = { ...DEFAULT_BEHAVIORS, ...opts.behaviors };
  const clock: BrowserClock = opts.behaviors?.clock ?? realClock;
  const net = new NetworkActivity(session, clock);
  const recorder = new PageRecorder(session, opts.sink, {
    ...(opts.spoolDir ? { spoolDir: opts.spoolDir } : {}),
    ...(opts.maxInMemory !== undefined ? { maxInMemory: opts.maxInMemory } : {}),
    now: () => new Date(clock.now()),
    ...(opts.allowRequest ? { allowRequest: opts.allowRequest } : {}),
    ...(opts.media ? { media: opts.media } : {}),
    // A cross-site iframe's requests count for "the network is quiet" too.
    onTarget: (child) => net.watch(child),
  });
  // The top document's status: the last main-frame Document response (after any redirects).
  let mainFrame: string | null = null;
  let status = 0;
  const onResponse = (p: any): void => {
    if (p.type === 'Document' && (mainFrame === null || p.frameId === mainFrame)) status = p.response?.status ?? status;
  };
  const scripted = new Set<string>();
  const onRequest = (p: any): void => {
    if (p.initiator?.type === 'script' && /^https?:/i.test(p.request?.url ?? '')) scripted.add(String(p.request.url).split('#')[0]!);
  };
  let loaded = false;
  let wakeLoad: (() => void) | null = null;
  const onLoad = (): void => {
    loaded = true;
    wakeLoad?.();
  };

  const abortCheck = (): void => {
    if (opts.signal?.aborted) throw new TroveError('BROWSER_CAPTURE_ABORTED', `capture of ${url} stopped`, { url });
  };

  const { timings, lap } = phaseClock();
  let watchScript: string | null = null;

  net.start();
  session.on('Network.responseReceived', onResponse);
  session.on('Network.requestWillBeSent', onRequest);
  session.on('Page.loadEventFired', onLoad);
  try {
    abortCheck();
    await recorder.start();
    if (opts.reuseCache) await session.send('Network.setCacheDisabled', { cacheDisabled: false });
    await session.send('Page.enable');
    // The behaviors' watch on timers and scroll observers, in every document before its scripts.
    watchScript = (await session.send('Page.addScriptToEvaluateOnNewDocument', { source: PAGE_WATCH }))?.identifier ?? null;
    mainFrame = (await session.send('Page.getFrameTree'))?.frameTree?.frame?.id ?? null;
    lap('start');

    const nav = await session.send('Page.navigate', { url });
    lap('navigate');
    if (nav?.errorText) throw new TroveError('BROWSER_NAVIGATION_FAILED', `the browser could not load ${url}: ${nav.errorText}`, { url, errorText: nav.errorText });
    // The load event, within its budget (a page whose last image never arrives still gets captured).
    const loadBy = clock.now() + o.loadTimeoutMs;
    while (!loaded && clock.now() < loadBy && !opts.signal?.aborted) {
      await Promise.race([new Promise<void>((r) => (wakeLoad = r)), clock.sleep(Math.min(100, o.loadTimeoutMs), opts.signal).catch(() => {})]);
    }
    wakeLoad = null;
    lap('load');
    const behaviors: BehaviorReport = { detailsOpened: 0, mediaPlayed: 0, scrolls: 0, clicks: 0, budgetsHit: loaded ? [] : ['load'] };
    if (!opts.signal?.aborted && !(await waitQuiet(session, net, o, opts.signal).catch(() => false))) {
      behaviors.budgetsHit.push('quiet');
    }
    lap('quiet');
    if (!opts.signal?.aborted) {
      const { budgetsHit, ...r } = await runBehaviors(session, net, clock, o, opts.signal, timings);
      lap(null);
      Object.assign(behaviors, r);
      behaviors.budgetsHit.push(...budgetsHit);
    }

    abortCheck();
    const page = await evaluate<{ href: string; title: string; text: string; width: number; height: number; x: number; y: number }>(
      session,
      '({ href: location.href, title: document.title, text: document.body ? document.body.innerText : "", width: innerWidth, height: innerHeight, x: scrollX, y: scrollY })',
    );
    const outlinks = await evaluate<string[]>(session, LINKS);
    const markerFound = opts.marker ? await evaluate<boolean>(session, markerScript(opts.marker)) : undefined;
    lap('read');
    const screenshot = o.screenshot ? await viewportShot(session, page, SCREENSHOT_SCALE) : undefined;
    if (screenshot) lap('screenshot');
    await recorder.stop();
    lap('records');
    const self = new Set([url, page.href]);
    return {
      url,
      finalUrl: page.href,
      status,
      title: page.title,
      text: page.text,
      outlinks,
      embeds: recorder.requested.filter((u) => !self.has(u)),
      ...(screenshot ? { screenshot } : {}),
      requested: [...recorder.requested],
      scripted: [...scripted],
      blocked: [...recorder.blocked],
      behaviors,
      problems: recorder.problems,
      ...(recorder.media ? { media: recorder.media } : {}),
      timings,
      ...(markerFound !== undefined ? { markerFound } : {}),
    };
  } catch (err) {
    // A wait cut short by the signal rejects with its AbortError: the capture was stopped.
    abortCheck();
    throw err;
  } finally {
    // Idempotent after the stop above; on an error it still hands over what was paused.
    await recorder.stop().catch(() => {});
    if (watchScript) await session.send('Page.removeScriptToEvaluateOnNewDocument', { identifier: watchScript }).catch(() => {});
    net.stop();
    session.off('Network.responseReceived', onResponse);
    session.off('Network.requestWillBeSent', onRequest);
    session.off('Page.loadEventFired', onLoad);
  }
}
