/**
 * The Frontier on SQLite. Rows in `uris` carry each URI's state; `queues` and `frontier_stats`
 * carry counters changed in the same transactions, so nothing is ever counted by scanning and a
 * reopened file is ready at once. Every method runs in a transaction (`atomic`, which nests as a
 * savepoint inside a caller's transaction, or runs as a plain call inside a group-commit unit;
 * storage/group-commit.ts): the crawl loop commits `complete` together with its capture-index
 * rows, and a throw leaves neither behind. A method checks its arguments before it writes.
 *
 * No ids are cached in memory between calls: a caller's transaction may roll back, and a cached
 * queue id could then point at a row that no longer exists, or that another key has reused.
 */
import type Database from 'better-sqlite3';
import { TroveError } from '../errors.ts';
import { atomic } from '../storage/group-commit.ts';
import type { Candidate, ClaimedUri, ClaimOptions, DroppedUri, Frontier, FrontierCounts, Outcome, QueuedUriInfo } from './frontier.ts';
import { checkCandidate, checkLimit, checkOutcome, checkTime, notInFlight, queueInfo } from './frontier-checks.ts';
import { prepareFrontierStatements, UriState } from './frontier-statements.ts';
import { KnownFingerprints } from './known-fingerprints.ts';
import type { FrontierStatements, PickedUri } from './frontier-statements.ts';

export interface SqliteFrontierOptions {
  /** Slots for a queue created from now on (existing queues keep theirs). Default 1, as Heritrix. */
  defaultMaxInFlight?: number;
}

/** Queued rows a live exclusion reads at a time (dropQueued). */
const DROP_BATCH = 1000;

/** At most this many waiting URIs become claimable per `claim`, so one claim stays cheap. */
const PROMOTE_BATCH = 1000;

/**
 * Known outlinks (issue 20). A page's outlinks are mostly URIs the crawl has seen (navigation,
 * indexes: 41 of 42 per page in the Python docs), and an INSERT … ON CONFLICT DO NOTHING costs
 * 3–4 µs even when it does nothing. scheduleAll therefore asks which fingerprints are known in one
 * statement (`knownAmong`, about 1 µs per fingerprint) and inserts only the others. Where nearly
 * every outlink is new (a tree of pages) that question is wasted work, so it is asked while the
 * recent share of known candidates is at least PREFILTER_SHARE (a moving average; both paths
 * store exactly the same rows, read from the transaction as it stands). In front of both, the
 * fingerprints known to be committed (known-fingerprints.ts, filled by `settle` after each COMMIT)
 * answer most repeats without SQL (issue 40).
 */
const PREFILTER_SHARE = 0.3;
/** Fingerprints asked of SQLite in one statement by settle(). */
const SETTLE_BATCH = 4096;
/** Weight of the latest call in that moving average. */
const SHARE_WEIGHT = 0.2;

interface StatsDelta {
  pending?: number;
  waiting?: number;
  inFlight?: number;
  done?: number;
  failed?: number;
  seen?: number;
  queues?: number;
}

export function createSqliteFrontier(db: Database.Database, opts: SqliteFrontierOptions = {}): Frontier {
  const defaultMaxInFlight = opts.defaultMaxInFlight ?? 1;
  checkLimit(defaultMaxInFlight);
  const rows = frontierRows(db, prepareFrontierStatements(db), defaultMaxInFlight);
  return {
    settle: () => rows.settle(),
    ...schedulingMethods(rows),
    ...claimMethods(rows),
    ...completionMethods(rows),
    ...queueMethods(rows),
    ...readMethods(rows.st),
  };
}

/** The statements and the row writes the method groups share (frontierRows). */
interface FrontierRows {
  db: Database.Database;
  st: FrontierStatements;
  addStats(d: StatsDelta): void;
  /** The queue's id, creating the queue (and counting it) when new. */
  queueId(key: string): number;
  /**
   * One uris row: a new URI (with its fingerprint) or a refetch of a finished one (refetchOf),
   * and its uri_via row while it is unfinished (a redirect's target keeps its via in uris).
   */
  insertUri(c: Candidate, fingerprint: bigint | null, refetchOf: number | null, qid: number): Database.RunResult;
  /**
   * Schedule `cands`. Their counts go to `into` when given (complete() adds them to its own and
   * writes frontier_stats once per URI instead of twice), else to frontier_stats at once.
   */
  scheduleAll(cands: readonly Candidate[], into?: Required<Pick<StatsDelta, 'pending' | 'waiting' | 'seen'>>): number;
  /** Frontier.settle: keep the fingerprints met since the last call that SQLite now holds durably. */
  settle(): void;
}

function frontierRows(db: Database.Database, st: FrontierStatements, defaultMaxInFlight: number): FrontierRows {
  const addStats = (d: StatsDelta): void => {
    st.addStats.run(d.pending ?? 0, d.waiting ?? 0, d.inFlight ?? 0, d.done ?? 0, d.failed ?? 0, d.seen ?? 0, d.queues ?? 0);
  };

  const queueId = (key: string): number => {
    const row = st.queueIdByKey.get(key);
    if (row) return row.id;
    const created = st.insertQueue.get(key, defaultMaxInFlight)!;
    addStats({ queues: 1 });
    return created.id;
  };

  const insertUri = (c: Candidate, fingerprint: bigint | null, refetchOf: number | null, qid: number) => {
    const waits = c.notBefore !== undefined;
    const redirect = /r$/i.test(c.hopsPath); // as finish's `hops_path LIKE '%R'` (LIKE ignores case)
    const r = st.insertUri.run(
      fingerprint,
      refetchOf,
      qid,
      waits ? UriState.WAITING : UriState.PENDING,
      c.directive ?? 0,
      waits ? c.notBefore! : null,
      c.seed ? 1 : 0,
      c.url,
      c.hopsPath,
      redirect ? c.via : null,
    );
    const via = redirect ? null : c.via;
    const viaContext = c.viaContext ?? null;
    if (r.changes > 0 && (via !== null || viaContext !== null)) st.insertVia.run(r.lastInsertRowid, via, viaContext);
    return r;
  };

  /** The recent share of scheduled candidates that were known already (see PREFILTER_SHARE). */
  let knownShare = 1;

  const seen = new KnownFingerprints();

  /** Positions in `fps` of the fingerprints a uris row has already (as the transaction stands). */
  const storedAmong = (fps: ArrayLike<bigint>): Set<number> => {
    let json = '[';
    for (let i = 0; i < fps.length; i++) json += (i ? ',' : '') + fps[i]!.toString();
    return new Set(st.knownAmong.all(json + ']'));
  };

  const scheduleAll = (cands: readonly Candidate[], into?: Required<Pick<StatsDelta, 'pending' | 'waiting' | 'seen'>>): number => {
    for (const c of cands) checkCandidate(c); // all before the first write (see atomic())
    const ids = new Map<string, number>();
    const tally = new Map<number, { pending: number; waiting: number }>();
    let pending = 0;
    let waiting = 0;
    // Signed, as SQLite stores them; those known committed (seen) are not asked of SQLite again.
    const fps = cands.map((c) => BigInt.asIntN(64, c.fingerprint));
    const committed = fps.map((fp) => seen.has(fp));
    let ask: number[] = [];
    for (let i = 0; i < fps.length; i++) if (!committed[i]) ask.push(i);
    if (ask.length <= 1 || knownShare < PREFILTER_SHARE) ask = [];
    const askedKnown = new Set<number>();
    if (ask.length > 0) for (const j of storedAmong(ask.map((i) => fps[i]!))) askedKnown.add(ask[j]!);
    for (let i = 0; i < cands.length; i++) {
      const c = cands[i]!;
      let qid = ids.get(c.queueKey);
      if (qid === undefined) {
        // Also for a known candidate: its queue is created as before when it has none.
        qid = queueId(c.queueKey);
        ids.set(c.queueKey, qid);
      }
      if (committed[i]) continue;
      seen.note(fps[i]!);
      if (askedKnown.has(i)) continue;
      const waits = c.notBefore !== undefined;
      const r = insertUri(c, fps[i]!, null, qid);
      if (r.changes === 0) continue;
      let t = tally.get(qid);
      if (!t) tally.set(qid, (t = { pending: 0, waiting: 0 }));
      if (waits) {
        t.waiting++;
        waiting++;
      } else {
        t.pending++;
        pending++;
      }
    }
    for (const [qid, t] of tally) st.addToQueue.run(t.pending, t.waiting, qid);
    const added = pending + waiting;
    if (cands.length > 0) knownShare += SHARE_WEIGHT * ((cands.length - added) / cands.length - knownShare);
    if (added > 0 && into) {
      into.pending += added;
      into.waiting += waiting;
      into.seen += added;
    } else if (added > 0) addStats({ pending: added, waiting, seen: added });
    return added;
  };

  const settle = (): void => {
    if (db.inTransaction) return;
    seen.settle((fps) => {
      const stored: number[] = [];
      for (let from = 0; from < fps.length; from += SETTLE_BATCH) {
        for (const j of storedAmong(fps.subarray(from, from + SETTLE_BATCH))) stored.push(from + j);
      }
      return stored;
    });
  };

  return { db, st, addStats, queueId, insertUri, scheduleAll, settle };
}

/** Adding URIs (new ones, a refetch of a finished one) and dropping queued ones (a live exclusion). */
function schedulingMethods(rows: FrontierRows): Pick<Frontier, 'schedule' | 'forceSchedule' | 'dropQueued'> {
  const { db, st, addStats, queueId, insertUri, scheduleAll } = rows;

  const schedule = atomic(db, (cands: readonly Candidate[]): number => scheduleAll(cands));

  const forceSchedule = atomic(db, (c: Candidate): boolean => {
    checkCandidate(c);
    const original = st.uriByFingerprint.get(BigInt.asIntN(64, c.fingerprint));
    if (!original) return scheduleAll([c]) === 1;
    if (original.state !== UriState.FINISHED) return false;
    if (st.activeRefetch.get(original.id)) return false;
    const qid = queueId(c.queueKey);
    const waits = c.notBefore !== undefined;
    insertUri(c, null, original.id, qid);
    st.addToQueue.run(waits ? 0 : 1, waits ? 1 : 0, qid);
    addStats({ pending: 1, waiting: waits ? 1 : 0 });
    return true;
  });

  const dropQueued = atomic(db, (matches: (uri: QueuedUriInfo) => boolean, status: number, note: string, onDropped?: (uri: DroppedUri) => void): number => {
    if (!Number.isInteger(status) || status >= 0) throw new TroveError('FRONTIER_BAD_OUTCOME', `a dropped URI's status must be negative, not ${status}`, { status });
    const perQueue = new Map<number, { pending: number; waiting: number }>();
    let dropped = 0;
    let waiting = 0;
    // A batch is read whole before any of it is written (a statement cannot write while another
    // iterates); the next batch starts after the last id seen.
    for (let after = 0; ; ) {
      const batch = st.queuedBatch.all(after, DROP_BATCH);
      if (batch.length === 0) break;
      after = batch[batch.length - 1]!.id;
      for (const h of batch) {
        if (!matches({ url: h.url, hopsPath: h.hops_path, seed: h.seed === 1, viaContext: h.via_context })) continue;
        st.dropQueuedUri.run(status, note, h.id);
        st.deleteVia.run(h.id);
        let t = perQueue.get(h.queue_id);
        if (!t) perQueue.set(h.queue_id, (t = { pending: 0, waiting: 0 }));
        if (h.state === UriState.WAITING) {
          t.waiting++;
          waiting++;
        } else t.pending++;
        dropped++;
        onDropped?.({ url: h.url, hopsPath: h.hops_path, via: h.via });
      }
    }
    for (const [qid, t] of perQueue) st.queueDropped.run(t.pending, t.waiting, t.pending + t.waiting, qid);
    // frontier_stats.pending counts waiting URIs too (queues.pending does not).
    if (dropped > 0) addStats({ pending: -dropped, waiting: -waiting, failed: dropped });
    return dropped;
  });

  return {
    schedule: (cands) => (cands.length === 0 ? 0 : schedule(cands)),
    forceSchedule: (c) => forceSchedule(c),
    dropQueued: (matches, status, note, onDropped) => dropQueued(matches, status, note, onDropped),
  };
}

/** Handing out URIs: waiting ones promoted when due, a claim from a ready queue, when the next is due, leases put back after a crash. */
function claimMethods(rows: FrontierRows): Pick<Frontier, 'claim' | 'nextReadyAt' | 'recoverInFlight'> {
  const { db, st, addStats } = rows;

  /** Waiting URIs whose time has come become pending (earliest first, a bounded batch). */
  const promoteDue = (now: number): void => {
    const earliest = st.earliestWaiting.get()!.t;
    if (earliest === null || earliest > now) return;
    const due = st.dueWaiting.all(now, PROMOTE_BATCH);
    const perQueue = new Map<number, number>();
    for (const row of due) {
      st.promote.run(row.id);
      perQueue.set(row.queue_id, (perQueue.get(row.queue_id) ?? 0) + 1);
    }
    for (const [qid, n] of perQueue) st.promoteInQueue.run(n, n, qid);
    addStats({ waiting: -due.length });
  };

  /** The first URI that cannot be a page, from the ready queues in turn (see ClaimOptions.pages). */
  const pickNonPage = (now: number): { q: { id: number; key: string }; u: PickedUri } | null => {
    for (const q of st.readyQueues.iterate(now)) {
      const u = st.pickNonPageUri.get(q.id);
      if (u) return { q, u };
    }
    return null;
  };

  const claim = atomic(db, (now: number, opts: ClaimOptions = {}): ClaimedUri | null => {
    checkTime(now, 'now');
    promoteDue(now);
    let q: { id: number; key: string } | undefined;
    let u: PickedUri | undefined;
    if (opts.pages === false) {
      const hit = pickNonPage(now);
      if (!hit) return null;
      ({ q, u } = hit);
    } else {
      q = st.pickQueue.get(now);
      if (!q) return null;
      u = st.pickUri.get(q.id);
    }
    if (!u) {
      throw new TroveError('FRONTIER_INCONSISTENT', `queue ${q.key} counts pending URIs but has none`, { queueKey: q.key });
    }
    st.markInFlight.run(u.id);
    st.queueClaimed.run(q.id);
    addStats({ pending: -1, inFlight: 1 });
    return {
      id: u.id,
      url: u.url,
      queueKey: q.key,
      hopsPath: u.hops_path,
      via: u.via,
      viaContext: u.via_context,
      seed: u.seed === 1,
      attempts: u.attempts,
      directive: u.directive,
    };
  });

  const recoverInFlight = atomic(db, (): number => {
    const byQueue = st.inFlightByQueue.all();
    if (byQueue.length === 0) return 0;
    st.releaseAll.run();
    let total = 0;
    for (const { queue_id, n } of byQueue) {
      st.queueRecovered.run(n, queue_id);
      total += n;
    }
    addStats({ pending: total, inFlight: -total });
    return total;
  });

  return {
    claim: (now, opts) => claim(now, opts),
    nextReadyAt: (opts = {}) => {
      if (opts.pages === false) {
        const q = st.firstClaimableNonPage.get()!.t;
        const w = st.earliestWaitingNonPage.get()!.t;
        return q === null ? w : w === null ? q : Math.min(q, w);
      }
      const q = st.firstClaimable.get();
      const w = st.earliestWaiting.get()!.t;
      if (!q) return w;
      return w === null ? q.ready_at : Math.min(q.ready_at, w);
    },
    recoverInFlight: () => recoverInFlight(),
  };
}

/** Giving a claimed URI back: finished or to be retried (with its outlinks), deferred, or its queue slot released early. */
function completionMethods(rows: FrontierRows): Pick<Frontier, 'complete' | 'defer' | 'releaseSlot'> {
  const { db, st, addStats, scheduleAll } = rows;

  const complete = atomic(db, (uri: ClaimedUri, outcome: Outcome, outlinks?: readonly Candidate[]): void => {
    // Everything that can be refused is refused before the first write (see atomic()).
    checkOutcome(outcome);
    if (outlinks) for (const c of outlinks) checkCandidate(c);
    const retry = outcome.retryAt !== undefined;
    const row = retry
      ? st.requeue.get(outcome.retryAt!, outcome.status, outcome.note ?? null, uri.id)
      : st.finish.get(outcome.status, outcome.note ?? null, uri.id);
    if (!row) throw notInFlight(uri);
    if (!retry) st.deleteVia.run(uri.id);
    const done = !retry && outcome.status > 0 ? 1 : 0;
    const failed = !retry && outcome.status < 0 ? 1 : 0;
    st.queueReleased.run(uri.slotReleased ? 0 : 1, retry ? 1 : 0, done, failed, outcome.queueReadyAt, row.queue_id);
    const delta = { inFlight: -1, pending: retry ? 1 : 0, waiting: retry ? 1 : 0, done, failed, seen: 0 };
    if (outlinks && outlinks.length > 0) scheduleAll(outlinks, delta);
    addStats(delta);
  });

  const defer = atomic(db, (uri: ClaimedUri, until: number): void => {
    checkTime(until, 'until');
    const row = st.putBack.get(until, uri.id);
    if (!row) throw notInFlight(uri);
    // The queue's readyAt is left as it is: MAX(ready_at, MIN_SAFE_INTEGER) keeps it.
    st.queueReleased.run(uri.slotReleased ? 0 : 1, 1, 0, 0, Number.MIN_SAFE_INTEGER, row.queue_id);
    addStats({ inFlight: -1, pending: 1, waiting: 1 });
  });

  // One UPDATE, atomic on its own: no transaction around it. The crawl calls it outside the
  // group's units, where a transaction function would open a SAVEPOINT and RELEASE it for every
  // URI (issue 20: 5–15 µs of the crawl thread per URI for nothing).
  const releaseSlot = (uri: ClaimedUri, queueReadyAt: number): void => {
    checkTime(queueReadyAt, 'queueReadyAt');
    if (uri.slotReleased) return;
    if (st.queueSlotReleased.run(queueReadyAt, uri.id).changes === 0) throw notInFlight(uri);
    uri.slotReleased = true;
  };

  return {
    complete: (uri, outcome, outlinks) => complete(uri, outcome, outlinks),
    defer: (uri, until) => defer(uri, until),
    releaseSlot: (uri, queueReadyAt) => releaseSlot(uri, queueReadyAt),
  };
}

/** A queue's limit and next ready time, set; the queues, read. */
function queueMethods(rows: FrontierRows): Pick<Frontier, 'setQueueLimit' | 'setQueueReadyAt' | 'queues' | 'queue'> {
  const { db, st, queueId } = rows;

  const setQueueLimit = atomic(db, (key: string, maxInFlight: number): void => {
    checkLimit(maxInFlight);
    st.setQueueLimit.run(maxInFlight, queueId(key));
  });

  const setQueueReadyAt = atomic(db, (key: string, at: number): void => {
    checkTime(at, 'at');
    st.setQueueReadyAt.run(at, queueId(key));
  });

  return {
    setQueueLimit: (key, maxInFlight) => setQueueLimit(key, maxInFlight),
    setQueueReadyAt: (key, at) => setQueueReadyAt(key, at),
    queues: (limit = 100, offset = 0, now = Date.now()) => st.queuePage.all(limit, offset).map((row) => queueInfo(row, now)),
    queue: (key, now = Date.now()) => {
      const row = st.queueByKey.get(key);
      return row ? queueInfo(row, now) : null;
    },
  };
}

/** What the frontier holds: its counters, the URIs waiting to be retried, queued non-pages, whether a URI was seen. */
function readMethods(st: FrontierStatements): Pick<Frontier, 'counts' | 'retryWaiting' | 'queuedNonPages' | 'isSeen'> {
  return {
    counts: (now = Date.now()) => counts(st, now),
    retryWaiting: (limit, countUpTo) => {
      const count = st.countRetryWaiting.get(countUpTo)!;
      return {
        count,
        capped: count >= countUpTo,
        uris: st.retryWaiting
        .all(limit)
          .map((r) => ({ url: r.url, queueKey: r.queue_key, status: r.status, attempts: r.attempts, notBefore: r.not_before })),
      };
    },
    queuedNonPages: () => st.countPendingNonPage.get()! + st.countWaitingNonPage.get()!,
    isSeen: (fingerprint) => st.uriByFingerprint.get(BigInt.asIntN(64, fingerprint)) !== undefined,
  };
}

function counts(st: FrontierStatements, now: number): FrontierCounts {
  const s = st.stats.get()!;
  const ready = st.countReady.get(now)!.n;
  return {
    pending: s.pending,
    waiting: s.waiting,
    inFlight: s.in_flight,
    done: s.done,
    failed: s.failed,
    seen: s.seen,
    queues: s.queues,
    readyQueues: ready,
    snoozedQueues: st.countClaimable.get()!.n - ready,
  };
}
