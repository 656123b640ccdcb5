/**
 * The robots prerequisite (Heritrix's PreconditionEnforcer): before any URI of an origin is
 * fetched, that origin's /robots.txt must have been fetched (and archived) within its TTL. The
 * gate answers, per URI: go ahead, precluded, fetch robots.txt first, wait, or give up.
 *
 * State per origin lives in memory and in the crawl database (`robots` table), so a resumed
 * crawl neither refetches nor forgets an outage in progress.
 */
import type Database from 'better-sqlite3';
import type { RobotsPolicy } from '../api/settings.ts';
import { getRobots, setRobots } from '../storage/robots-store.ts';
import type { RobotsTxt } from '../robots/parse-robots.ts';
import { evaluateRobots, type RobotsVerdict } from '../robots/robots-policy.ts';
import {
  deserializeRobotsState,
  failureSince,
  robotsStateFromFetch,
  robotsStateRefreshAt,
  robotsUrlFor,
  robotsUrlOf,
  serializeRobotsState,
  type RobotsState,
} from '../robots/robots-state.ts';

export type GateAnswer =
  | { kind: 'allowed'; verdict: RobotsVerdict; crawlDelayS: number | null }
  | { kind: 'precluded'; verdict: RobotsVerdict }
  /** Schedule robots.txt (not before `notBefore`) and put the URI back behind it. */
  | { kind: 'fetch-robots'; robotsUrl: string; notBefore: number }
  /** robots.txt could not be read after every retry: the URI ends with a prerequisite failure. */
  | { kind: 'unavailable'; reason: string };

const ROBOTS_PATH = '/robots.txt';

interface OriginRecord {
  state: RobotsState;
  /** Consecutive failed fetches (5xx, network), for giving up after maxRetries. */
  failures: number;
}

export interface RobotsGateOptions {
  ttlMs: number;
  maxRetries: number;
  custom: RobotsTxt | null;
  candidateAgents: string[];
  masquerade: boolean;
  /** Retry interval while robots.txt fails (RFC 9309: disallow all meanwhile). */
  retryMs?: number;
}

/** Where origins' robots states live when not in the crawl's own database: a shared crawl's store. */
export interface RobotsStateStore {
  get(origin: string): StoredOrigin | null;
  set(origin: string, value: StoredOrigin, now: number): void;
}

interface StoredOrigin {
  state: string;
  failures: number;
}

export class RobotsGate {
  private db: Database.Database;
  private opts: RobotsGateOptions;
  private shared: RobotsStateStore | null;
  private origins = new Map<string, OriginRecord>();

  constructor(db: Database.Database, opts: RobotsGateOptions, shared: RobotsStateStore | null = null) {
    this.db = db;
    this.opts = opts;
    this.shared = shared;
  }

  /** `parsed`: `url` parsed already (the crawl URI's one parse, never changed here). */
  check(url: string, policy: RobotsPolicy, userAgent: string, now: number, parsed?: URL): GateAnswer {
    const robotsUrl = parsed === undefined ? robotsUrlFor(url) : robotsUrlOf(parsed, url);
    // An http(s) origin serializes to a form that parses back to itself, so the origin is the
    // robots.txt URL without its path (what `new URL(robotsUrl).origin` gave, without a parse).
    const origin = robotsUrl.slice(0, -ROBOTS_PATH.length);
    const rec = this.load(origin);
    if (!rec) return { kind: 'fetch-robots', robotsUrl, notBefore: now };
    const refreshAt = robotsStateRefreshAt(rec.state);
    // ignore and custom do not read the site's rules: an outage there only delays the archived
    // copy of robots.txt (refetched while retries last), never the crawl.
    const siteIndependent = policy === 'ignore' || policy === 'custom';
    if (rec.state.kind === 'disallow-all' && !siteIndependent) {
      if (rec.failures > this.opts.maxRetries) return { kind: 'unavailable', reason: rec.state.reason };
      return { kind: 'fetch-robots', robotsUrl, notBefore: Math.max(now, refreshAt) };
    }
    if (refreshAt <= now && !(siteIndependent && rec.failures > this.opts.maxRetries)) return { kind: 'fetch-robots', robotsUrl, notBefore: now };
    const verdict = evaluateRobots(policy, {
      state: rec.state,
      custom: this.opts.custom ?? undefined,
      url,
      userAgent,
      candidateAgents: this.opts.candidateAgents,
      masquerade: this.opts.masquerade,
    });
    if (!verdict.allowed) return { kind: 'precluded', verdict };
    // Crawl-delay comes from the rules that decided: the operator's file under custom, none under ignore.
    const rules = policy === 'custom' ? this.opts.custom : policy !== 'ignore' && rec.state.kind === 'rules' ? rec.state.robots : null;
    const crawlDelayS = rules ? rules.crawlDelay(verdict.agent) : null;
    return { kind: 'allowed', verdict, crawlDelayS };
  }

  /** Record the final response (after redirects) or failure of a robots.txt fetch. */
  record(robotsUrl: string, r: { status: number; body?: Buffer; error?: string }, now: number): RobotsState {
    const origin = new URL(robotsUrl).origin;
    const prev = this.load(origin);
    const firstFailureAt = failureSince(prev?.state ?? null);
    const state = robotsStateFromFetch(
      { status: r.status, body: r.body, error: r.error, fetchedAt: now, firstFailureAt },
      { ttlMs: this.opts.ttlMs, retryMs: this.opts.retryMs },
    );
    const failures = state.kind === 'disallow-all' ? (prev?.failures ?? 0) + 1 : 0;
    const rec = { state, failures };
    this.origins.set(origin, rec);
    const stored: StoredOrigin = { state: serializeRobotsState(state), failures };
    if (this.shared) this.shared.set(origin, stored, now);
    else setRobots(this.db, origin, stored, now);
    return state;
  }

  /** A short description of an origin's robots state, for the per-host table. */
  describe(url: string): string {
    let origin: string;
    try {
      origin = new URL(url).origin;
    } catch {
      return '-';
    }
    const rec = this.load(origin);
    if (!rec) return 'not fetched';
    if (rec.state.kind === 'rules') return `rules (${rec.state.robots.groups.length} groups)`;
    return rec.state.kind;
  }

  /**
   * The robots state of a host queue (`host[:port]`, what queues are keyed by): its https and
   * http origins share the queue but each has its own robots.txt, so both are looked at. One
   * fetched shows alone; both, differing, show as `https: …; http: …`.
   */
  describeHost(authority: string): string {
    const [secure, plain] = [this.describe(`https://${authority}/`), this.describe(`http://${authority}/`)];
    if (plain === 'not fetched' || plain === secure) return secure;
    if (secure === 'not fetched') return plain;
    return `https: ${secure}; http: ${plain}`;
  }

  private load(origin: string): OriginRecord | null {
    const cached = this.origins.get(origin);
    if (cached) return cached;
    const stored = this.shared ? this.shared.get(origin) : (getRobots<StoredOrigin>(this.db, origin)?.state ?? null);
    if (!stored) return null;
    try {
      const rec = { state: deserializeRobotsState(stored.state), failures: stored.failures ?? 0 };
      this.origins.set(origin, rec);
      return rec;
    } catch {
      return null; // an unreadable stored state is refetched
    }
  }
}
