/**
 * What one fetch of /robots.txt means for a site (RFC 9309 §2.3.1), and how that verdict is kept
 * in the crawl database so a resumed crawl needs no refetch.
 *
 * | result                      | state                                                    |
 * |-----------------------------|----------------------------------------------------------|
 * | 2xx                         | `rules`: parse the body                                  |
 * | 3xx (caller gave up after ROBOTS_MAX_REDIRECTS) | `allow-all`: RFC 9309 §2.3.1.2 lets us treat it as unavailable |
 * | 4xx (401 and 403 included)  | `allow-all`: "unavailable", RFC 9309 §2.3.1.3            |
 * | 429                         | `disallow-all` and retry: see below                      |
 * | 5xx or network error        | `disallow-all` and retry later, RFC 9309 §2.3.1.4        |
 * | …failing for `longOutageMs` | `allow-all`: RFC 9309 §2.3.1.4 says that after "a       |
 * |   (default 30 days)         | reasonably long period of time (for example, 30 days)" a crawler MAY treat the file as unavailable |
 *
 * 429 is a 4xx, but it is the server asking us to slow down, not saying there is no file; treating
 * it as "allow all" would answer a plea for mercy with a full crawl. Google does the same.
 *
 * Retries back off with the length of the outage: wait as long as the outage has lasted so far,
 * at least `retryMs` (default 5 min) and at most `ttlMs` (never check less often than a normal
 * refresh). So a site that is down for a minute is retried in 5 min, one down for a day once a
 * day. The caller keeps the start of the outage: pass `failureSince(previousState)` as
 * `firstFailureAt`.
 */
import { TroveError } from '../errors.ts';
import { parseRobots, type RobotsTxt } from './parse-robots.ts';

/** RFC 9309 §2.3.1.2: follow at least five consecutive redirects. The caller follows them. */
export const ROBOTS_MAX_REDIRECTS = 5;

export const DEFAULT_ROBOTS_RETRY_MS = 5 * 60 * 1000;
export const DEFAULT_ROBOTS_LONG_OUTAGE_MS = 30 * 24 * 60 * 60 * 1000;

export type RobotsState =
  | { kind: 'rules'; robots: RobotsTxt; expiresAt: number }
  /** `outageSince` is set when this is the long-outage fallback, so the outage keeps its start. */
  | { kind: 'allow-all'; reason: string; expiresAt: number; outageSince?: number }
  | { kind: 'disallow-all'; reason: string; retryAt: number; since: number };

export interface RobotsFetchResult {
  /** HTTP status of the final response; 0 (or anything) when `error` is set. */
  status: number;
  body?: Buffer;
  /** Network-level failure (DNS, connect, reset, timeout): no usable response. */
  error?: string;
  fetchedAt: number;
  /** When the current run of failures began; omit when the previous fetch succeeded. */
  firstFailureAt?: number;
}

export interface RobotsStateOptions {
  ttlMs: number;
  retryMs?: number;
  longOutageMs?: number;
}

/** Turn the outcome of fetching /robots.txt (after redirects) into the site's robots state. */
export function robotsStateFromFetch(r: RobotsFetchResult, opts: RobotsStateOptions): RobotsState {
  const { ttlMs } = opts;
  const retryMs = opts.retryMs ?? DEFAULT_ROBOTS_RETRY_MS;
  const longOutageMs = opts.longOutageMs ?? DEFAULT_ROBOTS_LONG_OUTAGE_MS;
  const expiresAt = r.fetchedAt + ttlMs;
  const failed = r.error !== undefined || r.status >= 500 || r.status === 429 || r.status < 100;

  if (!failed) {
    if (r.status >= 200 && r.status < 300) {
      return { kind: 'rules', robots: parseRobots(r.body ?? Buffer.alloc(0)), expiresAt };
    }
    if (r.status >= 300 && r.status < 400) {
      return {
        kind: 'allow-all',
        reason: `robots.txt still redirecting (HTTP ${r.status}) after ${ROBOTS_MAX_REDIRECTS} redirects: treated as unavailable, all allowed`,
        expiresAt,
      };
    }
    if (r.status >= 400 && r.status < 500) {
      return { kind: 'allow-all', reason: `robots.txt unavailable (HTTP ${r.status}): all allowed`, expiresAt };
    }
    // 1xx as a final status: nothing a server should send; same as a server error below.
  }

  const what = r.error !== undefined ? `unreachable (${r.error})` : `server error (HTTP ${r.status})`;
  const since = Math.min(r.firstFailureAt ?? r.fetchedAt, r.fetchedAt);
  const outage = r.fetchedAt - since;
  if (outage >= longOutageMs) {
    return {
      kind: 'allow-all',
      reason: `robots.txt ${what} for ${formatDuration(outage)}: treated as unavailable after a long outage, all allowed`,
      expiresAt,
      outageSince: since,
    };
  }
  const wait = Math.min(Math.max(outage, retryMs), Math.max(ttlMs, retryMs));
  return {
    kind: 'disallow-all',
    reason: `robots.txt ${what}: all disallowed until it can be read (retry in ${formatDuration(wait)})`,
    retryAt: r.fetchedAt + wait,
    since,
  };
}

/** When the failure run behind a state began, to pass as the next fetch's `firstFailureAt`. */
export function failureSince(state: RobotsState | null): number | undefined {
  if (state === null) return undefined;
  if (state.kind === 'disallow-all') return state.since;
  if (state.kind === 'allow-all') return state.outageSince;
  return undefined;
}

/** When this state should be refreshed by fetching robots.txt again. */
export function robotsStateRefreshAt(state: RobotsState): number {
  return state.kind === 'disallow-all' ? state.retryAt : state.expiresAt;
}

/** The robots.txt URL for any http(s) URL: its origin plus `/robots.txt`. */
export function robotsUrlFor(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TroveError('ROBOTS_URL_INVALID', `Not a valid URL: ${url.slice(0, 200)}`, { url });
  }
  return robotsUrlOf(parsed, url);
}

/** robotsUrlFor of a URL the caller parsed already (`url`, the string it parsed, is for the error). */
export function robotsUrlOf(parsed: URL, url = parsed.href): string {
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TroveError('ROBOTS_URL_INVALID', `robots.txt applies to http and https URLs, not ${parsed.protocol}`, { url });
  }
  return `${parsed.origin}/robots.txt`;
}

const SERIAL_VERSION = 1;

/**
 * JSON for the crawl database. A `rules` state stores the robots.txt body (as text when it is
 * valid UTF-8, base64 otherwise, so odd bytes survive) and is re-parsed on load.
 */
export function serializeRobotsState(s: RobotsState): string {
  if (s.kind !== 'rules') return JSON.stringify({ v: SERIAL_VERSION, ...s });
  const source = s.robots.source;
  const text = source.toString('utf8');
  const body = Buffer.from(text, 'utf8').equals(source) ? { body: text } : { bodyBase64: source.toString('base64') };
  return JSON.stringify({ v: SERIAL_VERSION, kind: 'rules', expiresAt: s.expiresAt, ...body });
}

/** Inverse of serializeRobotsState. Throws `ROBOTS_STATE_INVALID` on anything it did not write. */
export function deserializeRobotsState(json: string): RobotsState {
  let o: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(json);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    o = parsed as Record<string, unknown>;
  } catch (err) {
    throw invalid(`not JSON: ${(err as Error).message}`, json);
  }
  if (o.v !== SERIAL_VERSION) throw invalid(`unknown version ${String(o.v)}`, json);
  switch (o.kind) {
    case 'rules': {
      const expiresAt = num(o.expiresAt, 'expiresAt', json);
      let body: Buffer;
      if (typeof o.body === 'string') body = Buffer.from(o.body, 'utf8');
      else if (typeof o.bodyBase64 === 'string') body = Buffer.from(o.bodyBase64, 'base64');
      else throw invalid('rules without a body', json);
      return { kind: 'rules', robots: parseRobots(body), expiresAt };
    }
    case 'allow-all': {
      const state: RobotsState = { kind: 'allow-all', reason: str(o.reason, 'reason', json), expiresAt: num(o.expiresAt, 'expiresAt', json) };
      if (o.outageSince !== undefined) state.outageSince = num(o.outageSince, 'outageSince', json);
      return state;
    }
    case 'disallow-all':
      return {
        kind: 'disallow-all',
        reason: str(o.reason, 'reason', json),
        retryAt: num(o.retryAt, 'retryAt', json),
        since: num(o.since, 'since', json),
      };
    default:
      throw invalid(`unknown kind ${JSON.stringify(o.kind)}`, json);
  }
}

function num(v: unknown, field: string, json: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw invalid(`${field} is not a number`, json);
  return v;
}

function str(v: unknown, field: string, json: string): string {
  if (typeof v !== 'string') throw invalid(`${field} is not a string`, json);
  return v;
}

function invalid(why: string, json: string): TroveError {
  return new TroveError('ROBOTS_STATE_INVALID', `Stored robots state is invalid: ${why}`, { sample: json.slice(0, 200) });
}

function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  if (s < 2 * 3600) return `${Math.round(s / 60)} min`;
  if (s < 2 * 86400) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} days`;
}
