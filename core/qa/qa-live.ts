/**
 * The live reference of `trove qa --against-live`: the page as the site serves it now, loaded in
 * the same Chromium with the same viewport as its replay (and, like it, without behaviors),
 * only where the site's robots.txt allows Trove (RFC 9309: a robots.txt that cannot be reached
 * means disallow; 4xx means allow) and politely: one live page per host at a time, at least one
 * second apart, longer when robots.txt asks for a crawl delay. A page that is refused, or does
 * not load, has no live reference (the page is then scored on replay alone). One live tab,
 * opened on first use, serves the run: live loads are few and paced anyway.
 */
import type { Browser } from 'playwright-core';
import { DEFAULT_USER_AGENT } from '../api/trove-version.ts';
import { agentToken } from '../robots/agent-token.ts';
import { parseRobots, type RobotsTxt } from '../robots/parse-robots.ts';
import type { PageReference } from './qa-reference.ts';
import { QA_SHOT_SCALE, QaTab } from './qa-replay-tab.ts';

const MIN_GAP_MS = 1000;
const ROBOTS_TIMEOUT_MS = 10_000;

export class LiveReferences {
  readonly #browser: Browser;
  readonly #viewport: { width: number; height: number };
  readonly #robots = new Map<string, Promise<RobotsTxt | 'allow-all' | 'disallow-all'>>();
  /** Per host: the end of the last live load, chained so loads of one host run one at a time. */
  readonly #hostTurn = new Map<string, Promise<number>>();
  readonly #agent = agentToken(DEFAULT_USER_AGENT);
  #tab: Promise<QaTab> | null = null;
  /** The live tab loads one page at a time. */
  #tabTurn: Promise<unknown> = Promise.resolve();

  constructor(browser: Browser, viewport: { width: number; height: number }) {
    this.#browser = browser;
    this.#viewport = viewport;
  }

  async load(url: string, signal?: AbortSignal): Promise<PageReference | null> {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return null;
    }
    const robots = await this.#robotsOf(u.origin);
    if (robots === 'disallow-all') return null;
    let gap = MIN_GAP_MS;
    if (robots !== 'allow-all') {
      if (!robots.match(this.#agent, u.href).allowed) return null;
      const delay = robots.groups.find((g) => g.agents.some((a) => a === '*' || a.toLowerCase() === this.#agent.toLowerCase()))?.crawlDelay;
      if (delay) gap = Math.max(gap, delay * 1000);
    }
    const previous = this.#hostTurn.get(u.host) ?? Promise.resolve(0);
    const turn = previous.then(async (lastEnd) => {
      const wait = lastEnd + gap - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const view = await this.#inTab((tab) => tab.view(url, { behaviors: false, shotScale: QA_SHOT_SCALE, ...(signal ? { signal } : {}) })).catch(() => null);
      return { view, end: Date.now() };
    });
    this.#hostTurn.set(
      u.host,
      turn.then((t) => t.end, () => Date.now()),
    );
    const { view } = await turn;
    // A live page that did not load in time is no reference to hold replay to.
    if (!view || view.pageFailed || view.timedOut) return null;
    return { screenshot: view.screenshot, text: view.text };
  }

  async close(): Promise<void> {
    if (this.#tab) await (await this.#tab.catch(() => null))?.close();
  }

  #inTab<T>(f: (tab: QaTab) => Promise<T>): Promise<T> {
    this.#tab ??= QaTab.open(this.#browser, this.#viewport, false);
    const run = this.#tabTurn.then(async () => f(await this.#tab!));
    this.#tabTurn = run.catch(() => {});
    return run;
  }

  #robotsOf(origin: string): Promise<RobotsTxt | 'allow-all' | 'disallow-all'> {
    let p = this.#robots.get(origin);
    if (!p) {
      p = (async () => {
        try {
          const res = await fetch(`${origin}/robots.txt`, { headers: { 'user-agent': DEFAULT_USER_AGENT }, signal: AbortSignal.timeout(ROBOTS_TIMEOUT_MS) });
          if (res.status >= 400 && res.status < 500) return 'allow-all';
          if (!res.ok) return 'disallow-all';
          return parseRobots(Buffer.from(await res.arrayBuffer()));
        } catch {
          return 'disallow-all';
        }
      })();
      this.#robots.set(origin, p);
    }
    return p;
  }
}
