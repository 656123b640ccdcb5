/**
 * What a running crawl reports upward: the CLI progress bar, the desktop monitor and scripts all
 * read this one shape. Plain data (no node:* imports) so the renderer can import it.
 */

export type CrawlState = 'starting' | 'running' | 'pausing' | 'paused' | 'stopping' | 'finished' | 'failed';

export type FinishReason =
  | 'frontier-empty'
  | 'limit-pages'
  | 'limit-uris'
  | 'limit-bytes'
  | 'limit-time'
  | 'limit-warc-bytes'
  | 'operator'
  /** The login ended (--logged-in-check): refresh the profile, then resume. */
  | 'logged-out'
  | 'error';

export interface HostRow {
  queue: string;
  pending: number;
  inFlight: number;
  done: number;
  failed: number;
  /** ms until the queue may give out its next URI (0 = ready now). */
  readyInMs: number;
  /** The politeness delay last applied, and which term of the formula decided it. */
  delayMs: number;
  delayReason: string;
  robots: string;
  backoffs: number;
}

export interface RecentUri {
  time: number;
  status: number;
  outcome: string;
  url: string;
  hopsPath: string;
  mime: string | null;
  bytes: number;
  durationMs: number;
}

export interface TrapWarning {
  host: string;
  /** The URL shape (`/cal/N/N/`, digits as N, repeats collapsed) or parameter (`?sid`). */
  pattern: string;
  /** Distinct URLs of that shape or parameter fetched so far. */
  count: number;
  /** A regex matching the trap's URLs: a suggestion, never applied by itself. */
  suggestedExclude: string;
  /** What the trap looks like (see core/crawl/trap-detector.ts). */
  kind?: 'near-identical-chain' | 'growing-url' | 'session-id';
  /** The evidence in words: "a chain of 40 URLs each found on the previous one, hops 3→43, …". */
  evidence?: string;
  /** A few of the trap's URLs. */
  samples?: string[];
  /** `count` when the trap was first flagged. */
  membersWhenFlagged?: number;
  /** The suggested exclude tried on the URLs seen so far (a sample of at most a few thousand). */
  excludeCheck?: { checked: number; trap: number; other: number; otherSamples: string[] };
}

/** One worker of a crawl shared by several (a PostgreSQL frontier), as the crawl's database knows it. */
export interface WorkerRow {
  name: string;
  host: string;
  pid: number;
  /** Its state as it last reported it (running, paused, …), or "-" before its first report. */
  state: string;
  /** URIs/s over its last few seconds, as it last reported. */
  urisPerSec: number;
  downloaded: number;
  /** URIs it holds in flight in the shared frontier. */
  leases: number;
  /** ms since its last heartbeat, on the database's clock; null if it has none. */
  heartbeatAgoMs: number | null;
  /** False once its lease ran out without a heartbeat (dead or cut off: its URIs go to others). */
  alive: boolean;
}

/** A URI waiting to be tried again after a failed try (a timeout, a lost connection, a 5xx or 429). */
export interface RetryWaitingRow {
  url: string;
  queue: string;
  /** The last try's outcome code (outcome-codes.ts) and its name (`TIMEOUT`, `HTTP 503`). */
  status: number;
  outcome: string;
  /** The try that comes next (2 after one failure), of `maxTries` (--max-retries + 1). */
  nextTry: number;
  maxTries: number;
  /** When the next try may start (ms since epoch), and how long after the snapshot was taken. */
  nextTryAt: number;
  nextTryInMs: number;
}

export interface RetryWaiting {
  /** URIs waiting for another try (they are among `queued`), counted up to 10,000. */
  count: number;
  /** The count stopped: at least `count` wait. */
  capped?: boolean;
  /** The first few, soonest first. */
  next: RetryWaitingRow[];
}

export interface CrawlSnapshot {
  name: string;
  dir: string;
  state: CrawlState;
  finishReason: FinishReason | null;
  message: string | null;
  startedAt: number;
  /** Since the crawl began, across runs, paused time included. */
  elapsedMs: number;
  /** Of `elapsedMs`, the time spent paused (left out of the averages). */
  pausedMs?: number;
  /** URIs with a final outcome > 0 (fetched), and what browser tabs loaded for their pages (archived beside them). */
  downloaded: number;
  /** Of `downloaded`, what browser tabs loaded beside their pages: no URIs of the frontier, so not counted by --limit-uris. */
  browserLoads?: number;
  /** URIs captured by rendering in a browser tab (every page with --capture browser, those that needed it with auto). Absent in older snapshots. */
  rendered?: number;
  /** URIs with a final negative outcome. */
  failed: number;
  /** URIs not finished and not in flight: those waiting to be retried and held back by the page limit included. */
  queued: number;
  /** Of `queued`, the URIs waiting for another try. Absent in snapshots stored before it was counted. */
  retrying?: RetryWaiting;
  /** Tries made again after a failed one, in every run of the crawl (a URI tried three times counts 2). */
  retries?: number;
  /**
   * Of `queued`, the URIs that may be pages, held back because the page limit is reached (not
   * work left undone: a resume with a higher limit fetches them). 0 while the limit is not reached.
   */
  heldByPageLimit?: number;
  inFlight: number;
  seen: number;
  /** HTML 200 responses reached as pages (a seed, a link, a sitemap entry, or a redirect from one): what --limit-pages counts. */
  pages: number;
  bytes: number;
  novelBytes: number;
  duplicateBytes: number;
  warcBytes: number;
  urisPerSec: number;
  kbPerSec: number;
  /** Averages over the time the crawl ran, paused time left out. */
  avgUrisPerSec: number;
  avgKbPerSec: number;
  statusCodes: Record<string, number>;
  mimeTypes: Record<string, number>;
  /**
   * Rejected URLs per reason: the rule that rejected them (max-hops, exclude-regex, …) or, when
   * nothing accepted them, the scope that did not (other-host, outside-prefix, other-domain,
   * not-a-seed-page, trans-hops); never reject-all. See scope-types.ts Decision.rule.
   */
  scopeRejections: Record<string, number>;
  hosts: HostRow[];
  recent: RecentUri[];
  traps: TrapWarning[];
  warcFiles: string[];
  /** Only on a shared crawl: every worker, this one included. */
  workers?: WorkerRow[];
}
