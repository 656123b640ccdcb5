/**
 * "Wait for the network to go quiet": the requests of a tab still in flight, from the Network
 * domain (a request is in flight from requestWillBeSent until loadingFinished or loadingFailed;
 * a redirect keeps its requestId, so a chain counts once), and a wait until none has been for
 * `quietMs`, capped at `maxMs` so a page that polls or streams forever still moves on.
 */
import type { BrowserClock } from './browser-clock.ts';
import type { CdpSession } from './cdp-session.ts';

export class NetworkActivity {
  readonly #session: CdpSession;
  readonly #clock: BrowserClock;
  readonly #inFlight = new Set<string>();
  #lastChange: number;
  readonly #onStart = (p: { requestId: string }): void => {
    this.#inFlight.add(p.requestId);
    this.#lastChange = this.#clock.now();
  };
  readonly #onEnd = (p: { requestId: string }): void => {
    this.#inFlight.delete(p.requestId);
    this.#lastChange = this.#clock.now();
  };

  constructor(session: CdpSession, clock: BrowserClock) {
    this.#session = session;
    this.#clock = clock;
    this.#lastChange = clock.now();
  }

  /** Listen; the caller enables the Network domain (the recorder does). */
  start(): void {
    this.#session.on('Network.requestWillBeSent', this.#onStart);
    this.#session.on('Network.loadingFinished', this.#onEnd);
    this.#session.on('Network.loadingFailed', this.#onEnd);
  }

  stop(): void {
    this.#session.off('Network.requestWillBeSent', this.#onStart);
    this.#session.off('Network.loadingFinished', this.#onEnd);
    this.#session.off('Network.loadingFailed', this.#onEnd);
  }

  get inFlight(): number {
    return this.#inFlight.size;
  }

  /**
   * Until nothing has been in flight for `quietMs` (true), or `maxMs` passed (false). The quiet
   * is counted from the call at the earliest: what the caller just did (a scroll, a click) may
   * start its requests a frame later, so an idle network before it does not count. Polls every
   * `pollMs`: CDP reports the events, but "nothing happened for N ms" needs a timer either way.
   */
  async waitForQuiet(opts: { quietMs: number; maxMs: number; pollMs?: number; signal?: AbortSignal }): Promise<boolean> {
    const start = this.#clock.now();
    const poll = opts.pollMs ?? Math.max(10, Math.min(100, Math.floor(opts.quietMs / 4)));
    for (;;) {
      const now = this.#clock.now();
      if (this.#inFlight.size === 0 && now - Math.max(this.#lastChange, start) >= opts.quietMs) return true;
      if (now - start >= opts.maxMs) return false;
      await this.#clock.sleep(poll, opts.signal);
    }
  }
}
