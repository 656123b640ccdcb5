/**
 * "Wait for the network to go quiet": the requests of a tab in flight, from the Network domain,
 * and a wait until none is pending and no network event happened for `quietMs`, capped at
 * `maxMs` so a page that polls or streams forever still moves on.
 *
 * A request is pending from requestWillBeSent until its response head arrives (responseReceived
 * or its ExtraInfo); after that it holds the page only while it keeps delivering (dataReceived)
 * until loadingFinished or loadingFailed. That second half matters: the body of a cross-site
 * iframe's document and of a worker's script is delivered to that frame's or worker's own
 * target, so the tab's session sees the request start and its head arrive but never its end. A
 * redirect keeps its requestId, so a chain counts once.
 */
import type { BrowserClock } from './browser-clock.ts';
import type { CdpSession } from './cdp-session.ts';

export class NetworkActivity {
  readonly #session: CdpSession;
  readonly #clock: BrowserClock;
  /** requestId → whether its response head arrived. */
  readonly #open = new Map<string, boolean>();
  #lastEvent: number;
  readonly #watched: CdpSession[] = [];
  readonly #onStart = (p: { requestId: string }): void => {
    this.#open.set(p.requestId, false);
    this.#lastEvent = this.#clock.now();
  };
  readonly #onHead = (p: { requestId: string }): void => {
    if (this.#open.has(p.requestId)) this.#open.set(p.requestId, true);
    this.#lastEvent = this.#clock.now();
  };
  readonly #onData = (): void => {
    this.#lastEvent = this.#clock.now();
  };
  readonly #onEnd = (p: { requestId: string }): void => {
    this.#open.delete(p.requestId);
    this.#lastEvent = this.#clock.now();
  };
  readonly #handlers: [string, (p: any) => void][] = [
    ['Network.requestWillBeSent', this.#onStart],
    ['Network.responseReceived', this.#onHead],
    ['Network.responseReceivedExtraInfo', this.#onHead],
    ['Network.dataReceived', this.#onData],
    ['Network.loadingFinished', this.#onEnd],
    ['Network.loadingFailed', this.#onEnd],
  ];

  constructor(session: CdpSession, clock: BrowserClock) {
    this.#session = session;
    this.#clock = clock;
    this.#lastEvent = clock.now();
  }

  /** Listen; the caller enables the Network domain (the recorder does). */
  start(): void {
    this.watch(this.#session);
  }

  /** Count this session's requests too (a child target of the tab: a cross-site iframe). */
  watch(session: CdpSession): void {
    for (const [event, l] of this.#handlers) session.on(event, l);
    this.#watched.push(session);
  }

  stop(): void {
    for (const s of this.#watched.splice(0)) for (const [event, l] of this.#handlers) s.off(event, l);
  }

  /** Requests started and not known to have ended. */
  get inFlight(): number {
    return this.#open.size;
  }

  /** Requests still waiting for their response head. */
  get awaitingResponse(): number {
    let n = 0;
    for (const head of this.#open.values()) if (!head) n++;
    return n;
  }

  /**
   * Until no request awaits its response and no network event happened for `quietMs` (true), or
   * `maxMs` passed (false). The quiet is counted from the call at the earliest: what the caller
   * just did (a scroll, a click) may start its requests a frame later, so an idle network before
   * it does not count. Polls every `pollMs`: CDP reports the events, but "nothing happened for
   * N ms" needs a timer either way.
   *
   * With `settleMs` (shorter than `quietMs`) and `busy`, the wait may end sooner, or later:
   * once nothing awaits a response and nothing happened for `settleMs`, it ends as soon as
   * `busy()` says the page has no work pending; a short timer pending (`timer`) holds it until
   * `quietMs`, as before, so a page that keeps re-arming timers costs no more than it did; a
   * fetch or XHR whose answer the page is still waiting for or reading (`io`: a body of
   * megabytes the recorder is still streaming to disk sends no event meanwhile) holds it until
   * `maxMs`.
   */
  async waitForQuiet(opts: {
    quietMs: number;
    maxMs: number;
    pollMs?: number;
    signal?: AbortSignal;
    settleMs?: number;
    busy?: () => Promise<'io' | 'timer' | null>;
  }): Promise<boolean> {
    const start = this.#clock.now();
    const settle = Math.min(opts.settleMs ?? opts.quietMs, opts.quietMs);
    const poll = opts.pollMs ?? Math.max(10, Math.min(100, Math.floor(settle / 4)));
    for (;;) {
      const now = this.#clock.now();
      const idle = now - Math.max(this.#lastEvent, start);
      if (this.awaitingResponse === 0 && idle >= settle) {
        if (!opts.busy) {
          if (idle >= opts.quietMs) return true;
        } else {
          const busy = await opts.busy().catch(() => 'timer' as const);
          // Asked over CDP: a request may have started meanwhile.
          const still = this.awaitingResponse === 0 && this.#lastEvent <= now;
          if (still && (busy === null || (busy === 'timer' && idle >= opts.quietMs))) return true;
        }
      }
      if (now - start >= opts.maxMs) return false;
      await this.#clock.sleep(poll, opts.signal);
    }
  }
}
