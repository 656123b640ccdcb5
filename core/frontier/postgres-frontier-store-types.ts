/**
 * What the PostgreSQL frontier store offers, declared: its options, the rows it hands out, and
 * the PostgresFrontierStore interface itself. The store (postgres-frontier-store.ts) builds it
 * from a few groups of methods over one session (postgres-frontier-session.ts); the worker thread
 * (postgres-frontier-thread.ts) runs it, and postgres-frontier.ts gives it the synchronous
 * Frontier interface. A file of types alone, so each of them can name the store without importing
 * the others.
 */
import type { Candidate, ClaimOptions, ClaimedUri, FrontierCounts, Outcome, QueueInfo, RetryWaiting } from './frontier.ts';

export interface PostgresFrontierOptions {
  /** postgres://user:password@host:port/database */
  url: string;
  /** The crawl: a schema name in that database (lowercase letters, digits, _). */
  crawl: string;
  /** This worker's name, unique in the crawl. Reopening under the same name recovers its leases at once. */
  worker?: string;
  defaultMaxInFlight?: number;
  clock?: 'database' | 'caller';
  /** How long a worker's leases outlive its last heartbeat. Default 30 s. */
  leaseMs?: number;
  /**
   * The crawl's page limit (0 or absent: none), held across every worker: a claim of a URI that
   * may be a page takes a page slot while pages captured plus slots held stay under it.
   */
  pageLimit?: number;
  /**
   * `complete` and `releaseSlot` do not wait for the database: they are sent in the background,
   * completions made together in one batch, and the next call waits for them
   * (postgres-frontier.ts). One refused then (its lease passed to another worker) is reported by
   * `lateRefusals` instead of thrown. Off by default (the Frontier contract's synchronous refusal).
   */
  writeBehind?: boolean;
  /** Only open a crawl that exists (CRAWL_NOT_FOUND otherwise), creating nothing: the operator's commands. */
  mustExist?: boolean;
}

/** What the operator asked of the whole crawl: every worker reads it with its report. */
export type CrawlControl = 'running' | 'paused' | 'stopped';

/** One capture-index row as the shared crawl keeps it (see postgres-frontier-statements.ts `captures`). */
export interface SharedCapture {
  id: number;
  warcFile: string;
  offset: number;
  length: number;
  recordType: string;
  recordId: string | null;
  targetUri: string | null;
  urlkey: string | null;
  ts: string | null;
  mime: string | null;
  status: number | null;
  payloadDigest: string | null;
  page: boolean;
}

/** A completion written behind that the database refused (its lease had passed to another worker), or could not write. */
export interface LateRefusal {
  url: string;
  error: { name: string; message: string; code?: string; details?: unknown };
}

/** A store method's calls as the worker thread ran them: how many, their round trips, and their time there (ms). */
export interface CallStats {
  calls: number;
  roundTrips: number;
  ms: number;
}

/** One completion of a batch (PostgresFrontierStore.completeMany). */
export interface Completion {
  uri: ClaimedUri;
  outcome: Outcome;
  outlinks?: readonly Candidate[];
}

/** A capture of one URL key in the shared crawl, with the worker whose WARC holds it. */
export type WorkerCapture = Omit<SharedCapture, 'id' | 'recordId' | 'urlkey'> & { worker: string };

/** One worker's index rows in the shared crawl. */
export interface CaptureTotals {
  worker: string;
  records: number;
  pages: number;
  responses: number;
  files: number;
}

/** A worker's crawl totals as it last reported them (its crawl snapshot's counters). */
export interface WorkerReport {
  state: string;
  downloaded: number;
  failed: number;
  pages: number;
  bytes: number;
  warcBytes: number;
  urisPerSec: number;
  kbPerSec: number;
  warcFiles: number;
  dir: string;
}

/** A worker's last report, as the crawl-wide view lists it (those gone included). */
export interface WorkerReportRow {
  name: string;
  host: string;
  stats: WorkerReport;
  updatedAt: number;
}

export interface WorkerInfo {
  name: string;
  host: string;
  pid: number;
  startedAt: number;
  leaseUntil: number | null;
  /** The worker's last heartbeat (its lease renewal), on the caller's clock. */
  heartbeatAt: number | null;
  leases: number;
  /** Its last report (rate, totals), if it made one. */
  report: WorkerReport | null;
}

/**
 * The Frontier's methods (frontier.ts says what each does), async, for one worker of a shared
 * crawl; and what sharing adds: the workers, their reports, the operator's control, crawl-wide
 * facts, robots.txt and the shared copy of the capture indexes. Every time given or returned is
 * on the caller's clock. Each method is a plain function (the worker thread calls them unbound).
 */
export interface PostgresFrontierStore {
  /** This worker's name in the crawl. */
  readonly worker: string;

  // Scheduling.
  schedule(cands: readonly Candidate[]): Promise<number>;
  forceSchedule(c: Candidate): Promise<boolean>;

  // Claims and leases.
  claim(now: number, opts?: ClaimOptions): Promise<ClaimedUri | null>;
  complete(uri: ClaimedUri, outcome: Outcome, outlinks?: readonly Candidate[]): Promise<void>;
  /** Up to `max` URIs, each from a different queue, as that many claims in a row would give them. */
  claimMany(now: number, max: number, opts?: ClaimOptions): Promise<ClaimedUri[]>;
  /**
   * Several completions at once, in as few round trips as one (postgres-frontier.ts writes a
   * worker's completions behind and sends them this way); each one's error (or null), in order.
   * One refused (not in flight) does not hold back the others.
   */
  completeMany(items: readonly Completion[]): Promise<(Error | null)[]>;
  /**
   * completeMany and then claimMany, in one round trip when both take their batch statements (the
   * worker thread sends completions written behind this way with the claim that follows them):
   * each completion's error (or null), and the claim's URIs or its error.
   */
  completeThenClaimMany(
    items: readonly Completion[],
    now: number,
    max: number,
    opts?: ClaimOptions,
  ): Promise<{ errors: (Error | null)[]; claimed: ClaimedUri[] | Error }>;
  /** True when this call gave the slot back, false when it had been given back already. */
  releaseSlot(uri: ClaimedUri, queueReadyAt: number): Promise<boolean>;
  defer(uri: ClaimedUri, until: number): Promise<void>;
  /** This worker's leases left from an earlier run under its name go back to pending. */
  recoverInFlight(): Promise<number>;

  // Politeness and the page limit.
  setQueueLimit(key: string, maxInFlight: number): Promise<void>;
  setQueueReadyAt(key: string, at: number): Promise<void>;
  /**
   * As Frontier.nextReadyAt, plus: while other workers hold leases, their lease expiry (they may
   * complete with new outlinks before then, or die and leave their URIs to us), so a worker does
   * not take "nothing for me now" for "the crawl is over".
   */
  nextReadyAt(opts?: ClaimOptions): Promise<number | null>;
  /** Under the page limit: pages captured crawl-wide plus page slots held are below it (always true without one). */
  pagesOpen(): Promise<boolean>;

  // The operator's control, the workers and their reports.
  /** What the operator asked of the whole crawl, and when (caller's clock). */
  control(): Promise<{ control: CrawlControl; changedAt: number }>;
  /** Throws SETTINGS_INVALID (at once, not as a rejection) for anything but running, paused or stopped. */
  setControl(control: CrawlControl): Promise<void>;
  /** Store this worker's totals (kept after it leaves) and read the crawl's control in the same trip. */
  report(stats: WorkerReport): Promise<CrawlControl>;
  /** Every worker's last report, those gone included. */
  reports(): Promise<WorkerReportRow[]>;
  /** Every worker of the crawl, with its lease expiry (on the caller's clock) and leases held. */
  workers(): Promise<WorkerInfo[]>;
  /** Renew this worker's lease outright (`clock: 'caller'`: at the time given). */
  heartbeat(now?: number): Promise<void>;

  // The shared copy of the workers' capture indexes.
  /** The highest capture id of this worker the shared crawl holds (0: none): copy from the next. */
  lastCapture(): Promise<number>;
  /** Copy this worker's capture-index rows into the shared crawl (a row already there is kept). */
  addCaptures(rows: readonly SharedCapture[]): Promise<void>;
  /** Index rows per worker: records, pages, responses, WARC files. */
  captureTotals(): Promise<CaptureTotals[]>;
  /** Every capture (response, revisit, resource) of one URL key across all workers, oldest first. */
  capturesOf(urlkey: string): Promise<WorkerCapture[]>;

  // Counts and queues.
  counts(now?: number): Promise<FrontierCounts>;
  /** URIs waiting for a retry: how many (counted up to `countUpTo`) and the `limit` soonest. */
  retryWaiting(limit: number, countUpTo: number): Promise<RetryWaiting>;
  /** Queued URIs that cannot be pages (what a reached page limit does not hold back). */
  queuedNonPages(): Promise<number>;
  queues(limit?: number, offset?: number, now?: number): Promise<QueueInfo[]>;
  queue(key: string, now?: number): Promise<QueueInfo | null>;
  isSeen(fingerprint: bigint): Promise<boolean>;

  // Crawl-wide facts.
  /** A crawl-wide fact (JSON) every worker reads, e.g. the crawl settings. */
  getMeta(key: string): Promise<unknown>;
  setMeta(key: string, value: unknown): Promise<void>;
  /** An origin's robots.txt state as the crawl's robots gate stores it, shared by every worker. */
  getRobots(origin: string): Promise<unknown>;
  setRobots(origin: string, value: unknown, now: number): Promise<void>;

  /** Round trips to the database so far (the pg bench prints them per batch). */
  roundTrips(): number;

  /** Ends the heartbeat and the connection; a worker with no leases leaves the crawl's list. */
  close(): Promise<void>;
}
