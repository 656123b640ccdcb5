/**
 * The writes several of the PostgreSQL store's methods share: queue rows found or made, URIs
 * inserted, the per-queue counter changes applied in the one lock order, a dead worker's leases put
 * back, and due URIs promoted. Each runs inside the caller's transaction on the session.
 */
import type { Candidate, QueueInfo } from './frontier.ts';
import { checkCandidate, queueInfo } from './frontier-checks.ts';
import type { QueueCounters } from './frontier-checks.ts';
import { sql, UriState } from './postgres-frontier-statements.ts';
import type { PostgresSession } from './postgres-frontier-session.ts';

/** At most this many waiting URIs become claimable per claim, as in the SQLite frontier. */
const PROMOTE_BATCH = 1000;

export interface QueueDelta {
  pending: number;
  waiting: number;
  slots: number;
  done: number;
  failed: number;
  seen: number;
  readyAt: number | null;
}

export function delta(deltas: Map<number, QueueDelta>, qid: number): QueueDelta {
  let d = deltas.get(qid);
  if (!d) deltas.set(qid, (d = { pending: 0, waiting: 0, slots: 0, done: 0, failed: 0, seen: 0, readyAt: null }));
  return d;
}

export interface QueueRows {
  /** Queue ids for keys, creating the missing queues (keys in sorted order). */
  queueIds(keys: string[]): Promise<Map<string, number>>;
  /**
   * The statement parameters of insertUris for candidates (checked), their queue ids known from
   * earlier calls (a queue's id never changes) or looked up, missing queues made, first.
   */
  candidateParams(cands: readonly Candidate[], refetchOf?: number | null): Promise<unknown[]>;
  /** Queue counter changes, applied in ascending id order (the one lock order every transaction uses). */
  applyDeltas(deltas: Map<number, QueueDelta>): Promise<void>;
  /** Insert rows for candidates (refetchOf set: a forced refetch without fingerprint); tallies new ones into deltas. */
  insertUris(cands: readonly Candidate[], deltas: Map<number, QueueDelta>, refetchOf?: number | null): Promise<number>;
  /** Put every in-flight URI of these workers back (attempts unchanged). */
  recover(owners: string[]): Promise<number>;
  /** Waiting URIs due at `now` (database clock) become claimable, a batch at a time. */
  promoteDue(now: number): Promise<void>;
  /** A queue row as QueueInfo, its ready time on the caller's clock. */
  toQueueInfo(row: QueueCounters, now: number): QueueInfo;
}

export function queueRows(s: PostgresSession, defaultMaxInFlight: number): QueueRows {
  const { db, toDb, fromDb } = s;

  // Queue ids this worker found committed: a queue row is never deleted nor renumbered. (Not the
  // ones it makes: those are made inside a transaction that may yet roll back.)
  const known = new Map<string, number>();
  const queueIds = async (keys: string[]): Promise<Map<string, number>> => {
    const ids = new Map<string, number>();
    for (const k of keys) if (known.has(k)) ids.set(k, known.get(k)!);
    if (ids.size === keys.length) return ids;
    keys = keys.filter((k) => !ids.has(k));
    const found = await db.query<{ id: number; key: string }>(sql.queueIds, [keys]);
    for (const r of found.rows) {
      ids.set(r.key, r.id);
      known.set(r.key, r.id);
    }
    const missing = keys.filter((k) => !ids.has(k));
    if (missing.length > 0) {
      await db.query(sql.insertQueues, [missing, defaultMaxInFlight]);
      const made = await db.query<{ id: number; key: string }>(sql.queueIds, [missing]);
      for (const r of made.rows) ids.set(r.key, r.id);
    }
    return ids;
  };

  const applyDeltas = async (deltas: Map<number, QueueDelta>) => {
    for (const qid of [...deltas.keys()].sort((a, b) => a - b)) {
      const d = deltas.get(qid)!;
      await db.query(sql.queueDelta, [qid, d.pending, d.waiting, d.slots, d.done, d.failed, d.seen, d.readyAt]);
    }
  };

  const candidateParams = async (cands: readonly Candidate[], refetchOf: number | null = null): Promise<unknown[]> => {
    for (const c of cands) checkCandidate(c);
    const ids = await queueIds([...new Set(cands.map((c) => c.queueKey))].sort());
    const col = <T>(f: (c: Candidate) => T) => cands.map(f);
    return [
      col((c) => (refetchOf === null ? BigInt.asIntN(64, c.fingerprint).toString() : null)),
      col((c) => ids.get(c.queueKey)!),
      col((c) => (c.notBefore !== undefined ? UriState.WAITING : UriState.PENDING)),
      col((c) => c.directive ?? 0),
      col((c) => (c.notBefore !== undefined ? toDb(c.notBefore) : null)),
      col((c) => c.seed === true),
      col((c) => c.url),
      col((c) => c.hopsPath),
      col((c) => c.via),
      col((c) => c.viaContext ?? null),
      col(() => refetchOf),
    ];
  };

  const insertUris = async (cands: readonly Candidate[], deltas: Map<number, QueueDelta>, refetchOf: number | null = null): Promise<number> => {
    const { rows } = await db.query<{ queue_id: number; state: number }>(sql.insertUris, await candidateParams(cands, refetchOf));
    for (const r of rows) {
      const d = delta(deltas, r.queue_id);
      if (r.state === UriState.WAITING) d.waiting++;
      else d.pending++;
      if (refetchOf === null) d.seen++;
    }
    return rows.length;
  };

  const recover = async (owners: string[]): Promise<number> => {
    const { rows } = await db.query<{ queue_id: number; n: number; slots: number }>(sql.recover, [owners]);
    let total = 0;
    for (const r of rows) {
      await db.query(sql.queueRecovered, [r.queue_id, r.n, r.slots, owners]);
      total += r.n;
    }
    await db.query(sql.dropQueueLeases, [owners]);
    return total;
  };

  const promoteDue = async (now: number) => {
    const { rows } = await db.query<{ queue_id: number }>(sql.promoteDue, [now, PROMOTE_BATCH]);
    if (rows.length === 0) return;
    const deltas = new Map<number, QueueDelta>();
    for (const r of rows) {
      const d = delta(deltas, r.queue_id);
      d.pending++;
      d.waiting--;
    }
    await applyDeltas(deltas);
  };

  const toQueueInfo = (row: QueueCounters, now: number): QueueInfo => queueInfo({ ...row, ready_at: fromDb(row.ready_at) }, now);

  return { queueIds, candidateParams, applyDeltas, insertUris, recover, promoteDue, toQueueInfo };
}
