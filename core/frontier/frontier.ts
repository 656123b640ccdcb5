/**
 * The frontier: every URI a crawl has discovered, grouped into per-host queues, and the rule for
 * which one to fetch next. Heritrix's model (docs/FORMATS.md, "Heritrix's crawl model"): one queue per
 * host (or per hash bucket), at most `maxInFlight` URIs of a queue out at once, a queue snoozes
 * for its politeness delay after each fetch, queues take turns, prerequisites and redirects go
 * first inside a queue.
 *
 * Lifecycle of one URI:
 *
 * ```
 *   schedule ──► pending ──claim──► in flight ──complete──► finished (exactly one outcome)
 *                   ▲   ▲                │  │
 *                   │   └──── defer ─────┘  │ complete with retryAt (attempts + 1)
 *                   └─ waiting (notBefore) ◄┘
 * ```
 *
 * Lifecycle of a frontier: create it over an open database; on resume call `recoverInFlight()`
 * once before the first `claim` (leases of a dead process go back to pending); then any mix of
 * schedule / claim / complete / defer. All state lives in the database and every method commits
 * before it returns (or joins the caller's transaction), so a frontier object holds no state
 * worth saving and can simply be dropped.
 *
 * Time is always passed in (`now`, `readyAt`, ms since epoch), never read from the clock, except
 * `counts()`/`queues()` which default `now` to `Date.now()` for display.
 */

/** A URI offered to the frontier (after canonicalisation and scope). */
export interface Candidate {
  url: string;
  canonical: string;
  /** 64-bit seen-set key of `canonical`; taken modulo 2^64 (signed or unsigned both fine). */
  fingerprint: bigint;
  queueKey: string;
  hopsPath: string;
  via: string | null;
  viaContext?: string;
  /** 0 normal; 1 redirect; 2 prerequisite — higher goes first in its queue. */
  directive?: number;
  seed?: boolean;
  /** Not claimable before this time (ms). */
  notBefore?: number;
}

export interface ClaimOptions {
  /**
   * false: hand out only URIs that cannot be pages (embeds, redirects from them,
   * prerequisites; see page-hops.ts), passing over page candidates — a page limit whose slots
   * are all taken still fetches what the captured pages need. Default true.
   */
  pages?: boolean;
}

/** A URI handed out by `claim`: a lease until `complete` or `defer`. */
export interface ClaimedUri {
  id: number;
  url: string;
  queueKey: string;
  hopsPath: string;
  via: string | null;
  viaContext: string | null;
  seed: boolean;
  /** Attempts made before this one (0 on the first try). */
  attempts: number;
  directive: number;
  /** Set by `releaseSlot`: the fetch is over and its queue slot given back; the URI is still leased. */
  slotReleased?: boolean;
}

export interface Outcome {
  /** HTTP code (> 0, "done") or negative outcome code ("failed"); never 0. */
  status: number;
  /** Re-queue this URI for another attempt at this time (attempts + 1); no final outcome yet. */
  retryAt?: number;
  /** Politeness: when the queue may give out its next URI. */
  queueReadyAt: number;
  /** Size, media type, payload digest: kept by the PostgreSQL frontier; the SQLite one leaves them to the capture rows. */
  bytes?: number;
  mime?: string;
  digest?: string;
  note?: string;
  /** The response was a page (counted against a page limit); a shared frontier counts it crawl-wide. */
  page?: boolean;
}

export type QueueState = 'ready' | 'in-process' | 'snoozed' | 'exhausted' | 'retired';

export interface QueueInfo {
  key: string;
  /** URIs not yet finished and not in flight (includes `waiting`). */
  pending: number;
  /** Of `pending`, those held back until a retry or defer time. */
  waiting: number;
  inFlight: number;
  readyAt: number;
  /**
   * retired: maxInFlight is 0; exhausted: nothing pending or in flight; ready: could give out a
   * URI now; snoozed: has pending URIs but must wait (politeness or retry time); in-process: busy
   * with every slot it has.
   */
  state: QueueState;
  maxInFlight: number;
  done: number;
  failed: number;
}

/** What Frontier.dropQueued's test sees of a queued URI. */
export interface QueuedUriInfo {
  url: string;
  hopsPath: string;
  seed: boolean;
  viaContext: string | null;
}

/** A queued URI a live exclusion dropped (Frontier.dropQueued). */
export interface DroppedUri {
  url: string;
  hopsPath: string;
  via: string | null;
}

export interface FrontierCounts {
  /** Not finished and not in flight (includes `waiting`). */
  pending: number;
  waiting: number;
  inFlight: number;
  done: number;
  failed: number;
  /** Distinct fingerprints ever scheduled. */
  seen: number;
  queues: number;
  /** Queues that could give out a URI at `now`. */
  readyQueues: number;
  /** Queues with claimable URIs and a free slot whose politeness delay has not run out. */
  snoozedQueues: number;
}

/** A URI waiting for another attempt after a failed one (a `complete` with `retryAt`). */
export interface RetryWaitingUri {
  url: string;
  queueKey: string;
  /** The last attempt's outcome (an HTTP status or a negative outcome code). */
  status: number;
  /** Attempts made so far (the next is attempt `attempts + 1`). */
  attempts: number;
  /** When it may be claimed again (ms). */
  notBefore: number;
}

export interface RetryWaiting {
  /**
   * URIs waiting for a retry: of `FrontierCounts.waiting`, those whose last attempt failed (not a
   * defer or a `notBefore`); counted up to the `countUpTo` asked for.
   */
  count: number;
  /** The count stopped at `countUpTo`: at least that many wait. */
  capped: boolean;
  /** The first `limit` of them, soonest first. */
  uris: RetryWaitingUri[];
}

export interface Frontier {
  /** Adds those not already seen (by fingerprint); returns how many were new. */
  schedule(cands: Candidate[]): number;
  /**
   * Only on the SQLite frontier, called by the crawl right after a COMMIT (no transaction open):
   * what it wrote is durable now, so it may remember which fingerprints are stored and ask SQLite
   * less (known-fingerprints.ts). Optional: calling it never changes what the frontier stores.
   */
  settle?(): void;
  /**
   * Schedule even if seen before (e.g. robots.txt refetch after its TTL). A finished URI gets a
   * new row with its own outcome. False if that URI is already pending, waiting or in flight.
   */
  forceSchedule(c: Candidate): boolean;
  /**
   * A URI from the queue ready longest (readyAt <= now, a free slot, a claimable URI); inside the
   * queue: directive desc, then discovery order. Waiting URIs whose notBefore <= now become
   * claimable first. Null when nothing can be given out at `now`.
   */
  claim(now: number, opts?: ClaimOptions): ClaimedUri | null;
  /**
   * Only on a frontier where one call for several URIs costs less than several calls (the shared
   * one: a database round trip): up to `max` URIs, each from a different queue, as that many
   * `claim`s in a row would give them. Empty when nothing can be given out at `now`.
   */
  claimMany?(now: number, max: number, opts?: ClaimOptions): ClaimedUri[];
  /**
   * Only on a frontier that writes completions behind (the shared one, PostgresFrontierOptions
   * .writeBehind): completions refused since the last call, because the URI's lease had passed
   * to another worker (which captures it). The crawl logs them.
   */
  lateRefusals?(): { url: string; message: string }[];
  /**
   * One transaction: the outcome (or a requeue when `retryAt` is set), the queue's inFlight − 1,
   * queue readyAt = max(readyAt, queueReadyAt), and the outlinks scheduled. Joins the caller's
   * transaction (a savepoint, or part of a group-commit unit), so a crawl loop can commit it with
   * its capture-index rows (the SQLite frontier; the PostgreSQL frontier commits in its own
   * database on its own, so there a crawl-loop rollback after `complete` leaves the outcome
   * recorded without its index rows).
   * Throws FRONTIER_NOT_IN_FLIGHT if `uri` is not currently claimed (or, on a shared frontier,
   * is leased to another worker since this one's lease expired).
   */
  complete(uri: ClaimedUri, outcome: Outcome, outlinks?: Candidate[]): void;
  /**
   * The URI's fetch is over: give its queue slot back (inFlight − 1) and set the queue's readyAt
   * (max with the current one) now, while the URI stays leased until `complete` or `defer`. So a
   * queue's next fetch may start while this one is still being processed (links extracted,
   * records written): politeness counts fetches in flight, as Heritrix's does per queue.
   */
  releaseSlot(uri: ClaimedUri, queueReadyAt: number): void;
  /** Put back without counting an attempt; claimable again from `until`. The queue is not snoozed. */
  defer(uri: ClaimedUri, until: number): void;
  /** Slots per queue (creates the queue if new). 0 retires the queue: nothing more is claimed from it. */
  setQueueLimit(queueKey: string, maxInFlight: number): void;
  /** Set a queue's readyAt outright (an operator "wake now", or a longer snooze). */
  setQueueReadyAt(queueKey: string, at: number): void;
  /**
   * Earliest time a claim may succeed; null when no queue with claimable URIs has a free slot
   * (nothing pending, or every such queue is busy until a `complete`). Never later than the true
   * time, possibly earlier (a retry time whose queue is still snoozed), so a loop that sleeps
   * until it and claims again never misses work. On a shared frontier, while other workers hold
   * leases it is at the latest their lease expiry, so a worker does not stop while others may
   * still add outlinks or die and leave their URIs.
   */
  nextReadyAt(opts?: ClaimOptions): number | null;
  /**
   * On resume: every URI left in flight goes back to pending (attempts unchanged). Returns how
   * many. On a shared frontier: only this worker's own leases (others' expire with their heartbeat).
   */
  recoverInFlight(): number;
  /**
   * Only on a frontier shared by several crawlers, which holds a page limit across all of them:
   * whether a URI that may be a page can still be claimed (pages captured crawl-wide plus page
   * slots held by claimed URIs, under the limit). Its `claim` takes the slot in the same
   * transaction, and `complete` with `page: true` turns it into a counted page. Absent: the
   * crawl loop counts pages and slots itself.
   */
  pagesOpen?(): boolean;
  /**
   * A live exclusion (Heritrix's delete-by-regex): every queued URI (pending or waiting) that
   * `matches` finishes now with `status` (OUT_OF_SCOPE) and note `note`, in one transaction, its
   * queue's counters with it; each is handed to `onDropped` in discovery order (nothing holds
   * them all: the queue is read and changed a batch at a time). Returns how many were dropped.
   * URIs in flight are left to finish. Absent on a shared frontier.
   */
  dropQueued?(matches: (uri: QueuedUriInfo) => boolean, status: number, note: string, onDropped?: (uri: DroppedUri) => void): number;
  counts(now?: number): FrontierCounts;
  /**
   * URIs waiting to be tried again (counted up to `countUpTo`), and the `limit` due soonest: what
   * a crawl that seems idle is waiting for. Reads only waiting rows (an index), so it costs
   * nothing while none wait, and at most `countUpTo` of them.
   */
  retryWaiting(limit: number, countUpTo: number): RetryWaiting;
  /**
   * Queued URIs (pending or waiting) that cannot be pages (page-hops.ts): with a page limit
   * reached, the queued URIs that are not among these are the pages it holds back. Reads the
   * queued non-page rows only (through their indexes): few once a page limit is reached, as the
   * crawl goes on fetching them.
   */
  queuedNonPages(): number;
  /** Queues in creation order. */
  queues(limit?: number, offset?: number, now?: number): QueueInfo[];
  queue(key: string, now?: number): QueueInfo | null;
  isSeen(fingerprint: bigint): boolean;
}

/** A URI's state in a frontier's table (uris.state), the same codes in every store. */
export const UriState = {
  PENDING: 0,
  WAITING: 1,
  IN_FLIGHT: 2,
  FINISHED: 3,
} as const;

/** Scheduling directives (Heritrix's SchedulingConstants, reduced to the ones Trove uses). */
export const Directive = {
  NORMAL: 0,
  REDIRECT: 1,
  PREREQUISITE: 2,
} as const;
