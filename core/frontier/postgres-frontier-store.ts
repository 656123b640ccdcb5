/**
 * The Frontier on PostgreSQL, shared by several workers (processes, machines). Async, on one
 * node-postgres connection; `postgres-frontier.ts` gives it the synchronous Frontier interface.
 *
 * Sharing rules (Heritrix's queue model, held in rows rather than in one JVM's memory):
 *   - A claim locks one claimable queue row with `FOR UPDATE SKIP LOCKED`, so workers claiming at
 *     once take different queues and never wait on each other; the row's `in_flight <
 *     max_in_flight` is re-checked under the lock, so `--per-host` holds across all workers.
 *   - Politeness lives in `queues.ready_at`: a worker's `complete`/`releaseSlot` pushes it with
 *     GREATEST, and every worker's claim reads it.
 *   - A queue is leased to the worker holding URIs of it in flight (`lease_owner`), released when
 *     its last slot is given back. A worker's leases expire with its heartbeat (`workers.lease_until`);
 *     the next claim by any worker then puts the dead worker's URIs back (attempts unchanged).
 *   - Clock: with `clock: 'database'` (the default) every time a caller passes is moved onto the
 *     database's clock by the offset measured against `clock_timestamp()` at each heartbeat, and
 *     back on the way out, so a worker whose clock is wrong keeps its delays relative to the one
 *     clock all workers share. `clock: 'caller'` takes times as given (the contract suite's
 *     synthetic times); lease expiry then follows the times passed to `claim`.
 *   - The operator's pause or stop of the whole crawl is the `crawl_state` row, which every claim
 *     reads: no worker claims from the moment it is set, whatever its own loop is doing.
 *   - A page limit (`pageLimit`) is held in the database: a claim that may hand out a page locks
 *     `crawl_state` first, counts pages captured plus page slots held (in-flight rows with
 *     `page_slot`), and takes a slot only under the limit; a completion with `page: true` turns
 *     its slot into a counted page under the same lock. A dead worker's slots go back with its URIs.
 *   - Every multi-row change takes queue row locks in ascending id order and inserts URIs in
 *     fingerprint order, so concurrent transactions do not deadlock; a deadlock or serialisation
 *     failure that still happens is retried.
 *
 * The store (its interface: postgres-frontier-store-types.ts) is put together here from groups
 * of methods, each over the worker's session (connection, transactions, clock and heartbeat:
 * postgres-frontier-session.ts) and the queue writes they share (postgres-queue-rows.ts).
 */
import os from 'node:os';
import { TroveError } from '../errors.ts';
import type { Candidate, ClaimOptions, ClaimedUri, FrontierCounts, Outcome, QueueInfo, RetryWaiting } from './frontier.ts';
import { checkLimit, checkOutcome, checkTime, notInFlight, checkCandidate } from './frontier-checks.ts';
import type { QueueCounters } from './frontier-checks.ts';
import { schemaSql, sql, tripSql, UriState } from './postgres-frontier-statements.ts';
import { PostgresSession } from './postgres-frontier-session.ts';
import { delta, queueRows } from './postgres-queue-rows.ts';
import type { QueueDelta, QueueRows } from './postgres-queue-rows.ts';
import type { Completion, CrawlControl, PostgresFrontierOptions, PostgresFrontierStore, SharedCapture, WorkerInfo, WorkerReport } from './postgres-frontier-store-types.ts';

export async function openPostgresFrontierStore(opts: PostgresFrontierOptions): Promise<PostgresFrontierStore> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(opts.crawl)) {
    throw new TroveError('FRONTIER_BAD_CRAWL', `crawl name must be lowercase letters, digits and _ (a schema name), not "${opts.crawl}"`, { crawl: opts.crawl });
  }
  const defaultMaxInFlight = opts.defaultMaxInFlight ?? 1;
  checkLimit(defaultMaxInFlight);
  const s = await PostgresSession.connect(opts);
  await ensureSchema(s, opts);
  await s.register();
  const rows = queueRows(s, defaultMaxInFlight);
  const pageLimit = opts.pageLimit ?? 0;
  const claims = claimMethods(s, rows, pageLimit);
  return {
    worker: s.me,
    ...schedulingMethods(s, rows),
    ...claims,
    ...batchMethods(s, rows, pageLimit, claims),
    ...politenessMethods(s, rows, pageLimit),
    ...controlMethods(s),
    ...captureMethods(s),
    ...countMethods(s, rows),
    ...factMethods(s),
    roundTrips: () => s.roundTrips,
    close: () => s.close(),
  };
}

/**
 * DDL only when the crawl is new: CREATE INDEX IF NOT EXISTS still locks its table, and would
 * deadlock with the claims of workers already running.
 */
async function ensureSchema(s: PostgresSession, opts: PostgresFrontierOptions): Promise<void> {
  const { db } = s;
  if ((await db.query(`SELECT to_regclass($1) AS t`, [`${opts.crawl}.crawl_state`])).rows[0].t === null) {
    if (opts.mustExist) {
      await s.end();
      throw new TroveError('CRAWL_NOT_FOUND', `no shared crawl "${opts.crawl}" in that database (create it with trove crawl --frontier)`, { crawl: opts.crawl });
    }
    await db.query(`BEGIN; ${schemaSql(opts.crawl)} COMMIT;`);
  }
}

/** New URIs, and a forced refetch of one seen before. */
function schedulingMethods(s: PostgresSession, { insertUris, applyDeltas }: QueueRows): Pick<PostgresFrontierStore, 'schedule' | 'forceSchedule'> {
  const { db, tx } = s;
  return {
    schedule: (cands: readonly Candidate[]): Promise<number> =>
      cands.length === 0
        ? Promise.resolve(0)
        : tx(async () => {
            const deltas = new Map<number, QueueDelta>();
            const n = await insertUris(cands, deltas);
            await applyDeltas(deltas);
            return n;
          }),

    forceSchedule: (c: Candidate): Promise<boolean> =>
      tx(async () => {
        checkCandidate(c);
        const deltas = new Map<number, QueueDelta>();
        const orig = await db.query<{ id: number; state: number }>(sql.uriByFingerprint, [BigInt.asIntN(64, c.fingerprint).toString()]);
        const original = orig.rows[0];
        if (original) {
          if (original.state !== UriState.FINISHED) return false;
          if ((await db.query(sql.activeRefetch, [original.id])).rowCount) return false;
        }
        const n = await insertUris([c], deltas, original ? original.id : null);
        await applyDeltas(deltas);
        return n === 1;
      }),
  };
}

/** A completion the batch statement (tripSql.completeMany) takes: no retry to schedule, no page to count under a limit. */
function batchable(o: Outcome, pageLimit: number): boolean {
  return o.retryAt === undefined && !(pageLimit > 0 && o.page);
}

/** A claim that may hand out a page under a page limit: the full claim, one at a time, holds it. */
function holdsPageLimit(opts: ClaimOptions, pageLimit: number): boolean {
  return pageLimit > 0 && opts.pages !== false;
}

/** Claims, and the ends of a claim's lease: complete, slot released, defer, recovery. */
function claimMethods(
  s: PostgresSession,
  rows: QueueRows,
  pageLimit: number,
): Pick<PostgresFrontierStore, 'claim' | 'complete' | 'releaseSlot' | 'defer' | 'recoverInFlight'> {
  const { insertUris, applyDeltas, recover, promoteDue } = rows;
  const { db, tx, trips, me, leaseMs, toDb, nowToDb } = s;
  const { claimedUri, claimInOneStatement, completeInFewTrips, completeManyInOneTrip } = fewTrips(s, rows);
  /**
   * Under a page limit a claim that may hand out a page first locks the crawl_state row (as a
   * page completion does, before anything else, so the two never wait on each other in a
   * cycle), counts pages plus slots held, and claims a page only with room left.
   */
  const claim = async (now: number, opts: ClaimOptions = {}): Promise<ClaimedUri | null> => {
    checkTime(now, 'now');
    const t = nowToDb(now);
    const limited = holdsPageLimit(opts, pageLimit);
    if (!limited) {
      const fast = await claimInOneStatement(t, opts.pages !== false);
      if (fast !== undefined) return fast;
    }
    return tx(async () => {
      if (limited) await db.query(sql.lockPages);
      const dead = (await db.query<{ name: string }>(sql.renewAndReap, [me, t, t + leaseMs])).rows.map((r) => r.name);
      if (dead.length > 0) await recover(dead);
      await promoteDue(t);
      let pages = opts.pages !== false;
      if (limited) {
        const p = (await db.query<{ pages: number; held: number }>(sql.pagesHeld)).rows[0]!;
        pages = p.pages + p.held < pageLimit;
      }
      return claimedUri((await db.query(pages ? sql.claim : sql.claimNonPage, pages ? [t, me, limited] : [t, me])).rows[0]);
    });
  };

  const complete = async (uri: ClaimedUri, outcome: Outcome, outlinks?: readonly Candidate[]): Promise<void> => {
    checkOutcome(outcome);
    if (batchable(outcome, pageLimit) && outlinks && outlinks.length > 0) {
      // With outlinks, the batch statement's one round trip (a batch of one).
      const [refused] = await completeManyInOneTrip([{ uri, outcome, outlinks }]);
      if (refused) throw refused;
      return;
    }
    if (!(pageLimit > 0 && outcome.page && outcome.retryAt === undefined)) return completeInFewTrips(uri, outcome, outlinks);
    return tx(async () => {
      const retry = outcome.retryAt !== undefined;
      // A page under a page limit: its slot (this URI's page_slot) becomes a counted page.
      if (pageLimit > 0 && outcome.page && !retry) await db.query(sql.addPage);
      const res = retry
        ? await db.query(sql.requeue, [uri.id, toDb(outcome.retryAt!), outcome.status, outcome.note ?? null, me])
        : await db.query(sql.finish, [uri.id, outcome.status, outcome.bytes ?? null, outcome.mime ?? null, outcome.digest ?? null, outcome.note ?? null, me]);
      const row = res.rows[0] as { queue_id: number; slot_released: boolean } | undefined;
      if (!row) throw notInFlight(uri);
      const deltas = new Map<number, QueueDelta>();
      if (outlinks && outlinks.length > 0) await insertUris(outlinks, deltas);
      const d = delta(deltas, row.queue_id);
      d.slots += row.slot_released ? 0 : 1;
      d.waiting += retry ? 1 : 0;
      d.done += !retry && outcome.status > 0 ? 1 : 0;
      d.failed += !retry && outcome.status < 0 ? 1 : 0;
      d.readyAt = toDb(outcome.queueReadyAt);
      await applyDeltas(deltas);
    });
  };

  return {
    claim,
    complete,

    releaseSlot: (uri: ClaimedUri, queueReadyAt: number): Promise<boolean> => {
      checkTime(queueReadyAt, 'queueReadyAt');
      return trips(async () => {
        if ((await db.query({ name: 'releaseSlot', text: sql.releaseSlotOne, values: [uri.id, me, toDb(queueReadyAt)] })).rowCount) return true;
        const leased = (await db.query<{ slot_released: boolean }>(sql.isLeased, [uri.id, me])).rows[0];
        if (leased?.slot_released) return false;
        throw notInFlight(uri);
      });
    },

    defer: (uri: ClaimedUri, until: number): Promise<void> => {
      checkTime(until, 'until');
      return tx(async () => {
        const row = (await db.query<{ queue_id: number; slot_released: boolean }>(sql.putBack, [uri.id, toDb(until), me])).rows[0];
        if (!row) throw notInFlight(uri);
        const deltas = new Map<number, QueueDelta>();
        Object.assign(delta(deltas, row.queue_id), { slots: row.slot_released ? 0 : 1, waiting: 1 });
        await applyDeltas(deltas);
      });
    },

    recoverInFlight: (): Promise<number> => tx(() => recover([me])),
  };
}

/**
 * A worker's batches: its free fetch slots filled in one claim, and the completions written
 * behind (postgres-frontier-thread.ts) sent together. What a batch statement cannot take (a
 * page limit to hold, a retry to schedule) goes through the single claim or completion.
 */
function batchMethods(
  s: PostgresSession,
  rows: QueueRows,
  pageLimit: number,
  { claim, complete }: Pick<PostgresFrontierStore, 'claim' | 'complete'>,
): Pick<PostgresFrontierStore, 'claimMany' | 'completeMany' | 'completeThenClaimMany'> {
  const { nowToDb } = s;
  const { claimedUri, claimManyInOneStatement, completeManyInOneTrip, completeThenClaimInOneTrip } = fewTrips(s, rows);
  /** One at a time under a page limit, or through the full claim that recovers and promotes. */
  const claimOne = async (now: number, opts: ClaimOptions): Promise<ClaimedUri[]> => {
    const one = await claim(now, opts);
    return one ? [one] : [];
  };

  const claimMany = async (now: number, max: number, opts: ClaimOptions = {}): Promise<ClaimedUri[]> => {
    checkTime(now, 'now');
    if (max > 1 && !holdsPageLimit(opts, pageLimit)) {
      const many = await claimManyInOneStatement(nowToDb(now), opts.pages !== false, max);
      if (many !== undefined) return many;
    }
    return claimOne(now, opts);
  };

  const completeMany = async (items: readonly Completion[]): Promise<(Error | null)[]> => {
    const errors: (Error | null)[] = items.map(() => null);
    let run: number[] = [];
    const flush = async () => {
      if (run.length === 0) return;
      const taken = run;
      run = [];
      const res = await completeManyInOneTrip(taken.map((i) => items[i]!));
      taken.forEach((i, k) => (errors[i] = res[k]!));
    };
    // In order: a completion the batch statement cannot take runs alone, after those before it.
    for (const [i, it] of items.entries()) {
      try {
        checkOutcome(it.outcome);
      } catch (err) {
        errors[i] = err as Error;
        continue;
      }
      if (batchable(it.outcome, pageLimit)) {
        run.push(i);
        continue;
      }
      await flush();
      await complete(it.uri, it.outcome, it.outlinks).catch((err: Error) => (errors[i] = err));
    }
    await flush();
    return errors;
  };

  /** A check that throws, as a boolean. */
  const passes = (check: () => void): boolean => {
    try {
      check();
      return true;
    } catch {
      return false;
    }
  };

  return {
    claimMany,
    completeMany,

    completeThenClaimMany: async (items: readonly Completion[], now: number, max: number, opts: ClaimOptions = {}) => {
      // What fails here fails each completion alone (as completeMany), and the claim is made apart.
      const apart = async (errors: Promise<(Error | null)[]>) => ({
        errors: await errors.catch((err: Error) => items.map(() => err)),
        claimed: await claimMany(now, max, opts).catch((err: Error) => err),
      });
      // Even for one claim (a crawl's one freed slot): the batch statement with max 1 claims as the single one does.
      const claimable = max >= 1 && !holdsPageLimit(opts, pageLimit);
      const together = passes(() => checkTime(now, 'now')) && claimable && items.every((it) => passes(() => checkOutcome(it.outcome)) && batchable(it.outcome, pageLimit));
      if (!together) return apart(completeMany(items));
      let both: Awaited<ReturnType<typeof completeThenClaimInOneTrip>>;
      try {
        both = await completeThenClaimInOneTrip(items, nowToDb(now), opts.pages !== false, max);
      } catch (err) {
        // Nothing of the trip was kept (one transaction, rolled back).
        return apart(Promise.reject(err as Error));
      }
      try {
        return { errors: both.errors, claimed: both.claimed === undefined ? await claimOne(now, opts) : both.claimed.map((r) => claimedUri(r)!) };
      } catch (err) {
        return { errors: both.errors, claimed: err as Error };
      }
    },
  };
}

/** A claim statement's row (claimSql's columns). */
type ClaimRow = { id: number | null; key: string; url: string; hops_path: string; via: string | null; via_context: string | null; seed: boolean; attempts: number; directive: number };

/**
 * The claim and the completion in the fewest round trips, for the common case (no page limit to
 * hold, no dead worker to recover, no due URI to promote); claimMethods falls back to the full
 * transaction otherwise.
 */
function fewTrips(s: PostgresSession, rows: QueueRows) {
  const { candidateParams } = rows;
  const { db, trips, me, leaseMs, toDb } = s;
  const claimedUri = (u: ClaimRow | undefined): ClaimedUri | null => {
    if (!u) return null;
    if (u.id === null) throw new TroveError('FRONTIER_INCONSISTENT', `queue ${u.key} counts pending URIs but has none`, { queueKey: u.key });
    return {
      id: u.id,
      url: u.url,
      queueKey: u.key,
      hopsPath: u.hops_path,
      via: u.via,
      viaContext: u.via_context,
      seed: u.seed,
      attempts: u.attempts,
      directive: u.directive,
    };
  };

  /**
   * A claim without a page limit to hold, as one statement (renew this worker's lease, claim). It
   * claims nothing when some worker's lease has run out or some waiting URI is due (undefined
   * then: the full claim recovers and promotes first).
   */
  const claimInOneStatement = (t: number, pages: boolean): Promise<ClaimedUri | null | undefined> =>
    trips(async () => {
      const name = pages ? 'claim' : 'claimNonPage';
      const row = (await db.query({ name, text: tripSql[name], values: [t, me, t + leaseMs] })).rows[0];
      if (row.dead || row.due) return undefined;
      return row.key === null ? null : claimedUri(row);
    });

  /**
   * A completion (not a page under a page limit) as one statement without outlinks; a retry with
   * them, two round trips: the URI's end and the new URIs, then the queues' counters in id order.
   */
  const completeInFewTrips = (uri: ClaimedUri, outcome: Outcome, outlinks: readonly Candidate[] | undefined): Promise<void> => {
    const retry = outcome.retryAt !== undefined;
    const readyAt = toDb(outcome.queueReadyAt);
    const end = retry
      ? [uri.id, toDb(outcome.retryAt!), outcome.status, outcome.note ?? null, me]
      : [uri.id, outcome.status, outcome.bytes ?? null, outcome.mime ?? null, outcome.digest ?? null, outcome.note ?? null, me];
    const done = !retry && outcome.status > 0 ? 1 : 0;
    const failed = !retry && outcome.status < 0 ? 1 : 0;
    return trips(async (send) => {
      if (!outlinks || outlinks.length === 0) {
        const args = retry ? [...end, readyAt] : [...end, done, failed, readyAt];
        const res = await db.query({ name: retry ? 'requeueOne' : 'finishOne', text: retry ? tripSql.requeue : tripSql.finish, values: args });
        if (res.rowCount === 0) throw notInFlight(uri);
        return;
      }
      const links = await candidateParams(outlinks);
      const [, ended, added] = await send([['BEGIN', []], [retry ? sql.requeue : sql.finish, end], [tripSql.insertUrisPerQueue, links]]);
      const row = ended!.rows[0] as { queue_id: number; slot_released: boolean } | undefined;
      if (!row) throw notInFlight(uri);
      const deltas = new Map<number, QueueDelta>();
      for (const r of added!.rows as { queue_id: number; pending: number; waiting: number }[]) {
        Object.assign(delta(deltas, r.queue_id), { pending: r.pending, waiting: r.waiting, seen: r.pending + r.waiting });
      }
      const d = delta(deltas, row.queue_id);
      Object.assign(d, { slots: row.slot_released ? 0 : 1, waiting: d.waiting + (retry ? 1 : 0), done, failed, readyAt });
      await send(countersAndCommit(deltas));
    });
  };

  /** Up to `max` claims as one statement; undefined when the full claim must run (as claimInOneStatement). */
  const claimManyInOneStatement = (t: number, pages: boolean, max: number): Promise<ClaimedUri[] | undefined> =>
    trips(async () => {
      const name = pages ? 'claimMany' : 'claimManyNonPage';
      const rows = (await db.query({ name, text: tripSql[name], values: [t, me, t + leaseMs, max] })).rows;
      if (rows[0].dead || rows[0].due) return undefined;
      return rows.filter((r) => r.key !== null).map((r) => claimedUri(r)!);
    });

  return { claimedUri, claimInOneStatement, claimManyInOneStatement, completeInFewTrips, ...batchTrips(s, rows) };
}

/** The batch completion's trips (fewTrips): alone, or with the claim that follows it. */
function batchTrips(s: PostgresSession, { candidateParams }: QueueRows) {
  const { db, trips, me, leaseMs, toDb } = s;
  /**
   * Completions that schedule no retry and count no page, in one round trip whatever their
   * number: one statement (tripSql.completeMany) ends them, inserts all their outlinks and writes
   * the queues' counters in id order. Each one's error (not in flight) or null, in order. The
   * outlinks of a completion refused here are scheduled all the same: the worker that took its
   * URI over finds the same links, and the fingerprints make the second discovery a no-op.
   */
  const completeManyInOneTrip = async (items: readonly Completion[]): Promise<(Error | null)[]> => {
    const { values, refused } = await completionParams(items);
    return trips(async () => refusals(items, refused, (await db.query<{ id: number }>({ name: 'completeMany', text: tripSql.completeMany, values })).rows));
  };

  /**
   * completeManyInOneTrip and then claimManyInOneStatement in the same round trip, the same
   * prepared statements piped (PostgresSession.piped): PostgreSQL runs them as one transaction, so
   * the claim sees the slots the completions gave back, and a failure (a deadlock retried) undoes
   * both. The claim's rows, or undefined when the full claim must run. The worker's lease is
   * renewed first (as the claim would, later in the trip): its row locked before its URIs, in the
   * order another worker's claim that finds it dead locks them (its row, then its URIs), so the
   * two never wait on each other in a cycle.
   */
  const completeThenClaimInOneTrip = async (items: readonly Completion[], t: number, pages: boolean, max: number) => {
    const { values, refused } = await completionParams(items);
    const claim = pages ? 'claimMany' : 'claimManyNonPage';
    return trips(async () => {
      const [, ended, claimed] = await s.piped([
        { name: 'renewWorker', text: sql.renewWorker, values: [me, t + leaseMs, t] },
        { name: 'completeMany', text: tripSql.completeMany, values },
        { name: claim, text: tripSql[claim], values: [t, me, t + leaseMs, max] },
      ]);
      const rows = claimed!.rows as (ClaimRow & { dead: boolean; due: boolean })[];
      return { errors: refusals(items, refused, ended!.rows), claimed: rows[0]!.dead || rows[0]!.due ? undefined : rows.filter((r) => r.key !== null) };
    });
  };

  /** tripSql.completeMany's parameters; a URI twice in one batch is sent once, its second completion refused. */
  const completionParams = async (items: readonly Completion[]) => {
    const sent = new Set<number>();
    const refused = items.map((it) => sent.has(it.uri.id) || (sent.add(it.uri.id), false));
    const ends = items.filter((_, i) => !refused[i]);
    const outlinks = items.flatMap((it) => it.outlinks ?? []);
    const links = outlinks.length > 0 ? await candidateParams(outlinks) : NO_CANDIDATES;
    const col = <T>(f: (it: Completion) => T) => ends.map(f);
    const values = [
      col((it) => it.uri.id), col((it) => it.outcome.status), col((it) => it.outcome.bytes ?? null), col((it) => it.outcome.mime ?? null),
      col((it) => it.outcome.digest ?? null), col((it) => it.outcome.note ?? null), me, col((it) => toDb(it.outcome.queueReadyAt)), ...links,
    ];
    return { values, refused };
  };

  /** Each completion's error: refused before it was sent, or not among the URIs the statement finished. */
  const refusals = (items: readonly Completion[], refused: boolean[], finished: { id: number }[]): (Error | null)[] => {
    const ids = new Set(finished.map((r) => r.id));
    return items.map((it, i) => (refused[i] || !ids.has(it.uri.id) ? notInFlight(it.uri) : null));
  };

  return { completeManyInOneTrip, completeThenClaimInOneTrip };
}

/** completeMany's outlink arrays when there are none (candidateParams' eleven columns). */
const NO_CANDIDATES: unknown[] = Array.from({ length: 11 }, () => []);

/** The queues' counter changes, their rows locked in id order first, and the COMMIT: one round trip. */
function countersAndCommit(deltas: Map<number, QueueDelta>): [string, unknown[]][] {
  const ids = [...deltas.keys()].sort((a, b) => a - b);
  const col = (f: (q: QueueDelta) => number | null) => ids.map((id) => f(deltas.get(id)!));
  const changes = [ids, col((q) => q.pending), col((q) => q.waiting), col((q) => q.slots), col((q) => q.done), col((q) => q.failed), col((q) => q.seen), col((q) => q.readyAt)];
  return [[tripSql.lockQueues, [ids]], [tripSql.applyDeltas, changes], ['COMMIT', []]];
}

/** Queue limits and ready times, when a claim may next succeed, and the crawl-wide page limit. */
function politenessMethods(
  s: PostgresSession,
  { queueIds }: QueueRows,
  pageLimit: number,
): Pick<PostgresFrontierStore, 'setQueueLimit' | 'setQueueReadyAt' | 'nextReadyAt' | 'pagesOpen'> {
  const { db, tx, serial, me, toDb, fromDb } = s;
  return {
    setQueueLimit: (key: string, maxInFlight: number): Promise<void> => {
      checkLimit(maxInFlight);
      return tx(async () => {
        const id = (await queueIds([key])).get(key)!;
        await db.query(sql.setQueueLimit, [id, maxInFlight]);
      });
    },

    setQueueReadyAt: (key: string, at: number): Promise<void> => {
      checkTime(at, 'at');
      return tx(async () => {
        const id = (await queueIds([key])).get(key)!;
        await db.query(sql.setQueueReadyAt, [id, toDb(at)]);
      });
    },

    nextReadyAt: (opts: ClaimOptions = {}): Promise<number | null> =>
      serial(async () => {
        const { q, w, others } = (await db.query<{ q: number | null; w: number | null; others: number | null }>(opts.pages === false ? sql.nextReadyNonPage : sql.nextReady, [me])).rows[0]!;
        const ts = [q, w, others].filter((x): x is number => x !== null);
        return ts.length === 0 ? null : fromDb(Math.min(...ts));
      }),

    pagesOpen: (): Promise<boolean> =>
      pageLimit <= 0
        ? Promise.resolve(true)
        : serial(async () => {
            const p = (await db.query<{ pages: number; held: number }>(sql.pagesHeld)).rows[0]!;
            return p.pages + p.held < pageLimit;
          }),
  };
}

/** The operator's control row, the workers' reports and list, and this worker's heartbeat. */
function controlMethods(s: PostgresSession): Pick<PostgresFrontierStore, 'control' | 'setControl' | 'report' | 'reports' | 'workers' | 'heartbeat'> {
  const { db, serial, me, leaseMs, nowToDb, fromDb } = s;
  return {
    control: (): Promise<{ control: CrawlControl; changedAt: number }> =>
      serial(async () => {
        const r = (await db.query(sql.getControl)).rows[0];
        return { control: r.control, changedAt: fromDb(r.changed_at) };
      }),
    setControl: (control: CrawlControl): Promise<void> => {
      if (!['running', 'paused', 'stopped'].includes(control)) throw new TroveError('SETTINGS_INVALID', `crawl control is running, paused or stopped, not ${control}`);
      return serial(async () => void (await db.query(sql.setControl, [control, nowToDb(Date.now())])));
    },
    report: (stats: WorkerReport): Promise<CrawlControl> =>
      serial(async () => {
        return (await db.query({ name: 'report', text: sql.reportAndControl, values: [me, os.hostname(), JSON.stringify(stats), nowToDb(Date.now())] })).rows[0].control;
      }),
    reports: (): Promise<{ name: string; host: string; stats: WorkerReport; updatedAt: number }[]> =>
      serial(async () => (await db.query(sql.workerStats)).rows.map((r) => ({ name: r.name, host: r.host, stats: r.stats, updatedAt: fromDb(r.updated_at) }))),

    workers: (): Promise<WorkerInfo[]> =>
      serial(async () =>
        (await db.query(sql.workers)).rows.map((r) => ({
          name: r.name,
          host: r.host,
          pid: r.pid,
          startedAt: fromDb(r.started_at),
          leaseUntil: r.lease_until === null ? null : fromDb(r.lease_until),
          heartbeatAt: r.heartbeat_at === null ? null : fromDb(r.heartbeat_at),
          leases: r.leases,
          report: r.stats ?? null,
        })),
      ),

    heartbeat: (now = Date.now()): Promise<void> => serial(async () => void (await db.query(sql.renewWorker, [me, nowToDb(now) + leaseMs, nowToDb(now)]))),
  };
}

/** The shared copy of the workers' capture indexes. */
function captureMethods(s: PostgresSession): Pick<PostgresFrontierStore, 'lastCapture' | 'addCaptures' | 'captureTotals' | 'capturesOf'> {
  const { db, serial, me } = s;
  return {
    lastCapture: (): Promise<number> => serial(async () => (await db.query(sql.lastCapture, [me])).rows[0].id),
    addCaptures: (rows: readonly SharedCapture[]): Promise<void> =>
      rows.length === 0
        ? Promise.resolve()
        : serial(async () => {
            const col = <T>(f: (r: SharedCapture) => T) => rows.map(f);
            await db.query(sql.addCaptures, [
              me, col((r) => r.id), col((r) => r.warcFile), col((r) => r.offset), col((r) => r.length), col((r) => r.recordType), col((r) => r.recordId),
              col((r) => r.targetUri), col((r) => r.urlkey), col((r) => r.ts), col((r) => r.mime), col((r) => r.status), col((r) => r.payloadDigest), col((r) => r.page),
            ]);
          }),
    captureTotals: (): Promise<{ worker: string; records: number; pages: number; responses: number; files: number }[]> =>
      serial(async () => (await db.query(sql.captureTotals)).rows),
    capturesOf: (urlkey: string): Promise<(Omit<SharedCapture, 'id' | 'recordId' | 'urlkey'> & { worker: string })[]> =>
      serial(async () =>
        (await db.query(sql.capturesOf, [urlkey])).rows.map((r) => ({
          worker: r.worker, warcFile: r.warc_file, offset: r.offset, length: r.length, recordType: r.record_type, targetUri: r.target_uri,
          ts: r.ts, mime: r.mime, status: r.status, payloadDigest: r.payload_digest, page: r.page,
        })),
      ),
  };
}

/** The frontier's counts and queues, and whether a URI was seen. */
function countMethods(s: PostgresSession, { toQueueInfo }: QueueRows): Pick<PostgresFrontierStore, 'counts' | 'retryWaiting' | 'queuedNonPages' | 'queues' | 'queue' | 'isSeen'> {
  const { db, serial, nowToDb, fromDb } = s;
  return {
    counts: (now = Date.now()): Promise<FrontierCounts> =>
      serial(async () => {
        const r = (await db.query(sql.counts, [nowToDb(now)])).rows[0];
        return {
          pending: r.pending,
          waiting: r.waiting,
          inFlight: r.in_flight,
          done: r.done,
          failed: r.failed,
          seen: r.seen,
          queues: r.queues,
          readyQueues: r.ready,
          snoozedQueues: r.claimable - r.ready,
        };
      }),

    retryWaiting: (limit: number, countUpTo: number): Promise<RetryWaiting> =>
      serial(async () => {
        const count = (await db.query(sql.countRetryWaiting, [countUpTo])).rows[0].n as number;
        const rows = count === 0 ? [] : (await db.query(sql.retryWaiting, [limit])).rows;
        return {
          count,
          capped: count >= countUpTo,
          uris: rows.map((r) => ({ url: r.url, queueKey: r.queue_key, status: r.status, attempts: r.attempts, notBefore: fromDb(r.not_before) })),
        };
      }),

    queuedNonPages: (): Promise<number> => serial(async () => (await db.query(sql.queuedNonPages)).rows[0].n as number),

    queues: (limit = 100, offset = 0, now = Date.now()): Promise<QueueInfo[]> =>
      serial(async () => (await db.query<QueueCounters>(sql.queuePage, [limit, offset])).rows.map((r) => toQueueInfo(r, now))),

    queue: (key: string, now = Date.now()): Promise<QueueInfo | null> =>
      serial(async () => {
        const r = (await db.query<QueueCounters>(sql.queueByKey, [key])).rows[0];
        return r ? toQueueInfo(r, now) : null;
      }),

    isSeen: (fingerprint: bigint): Promise<boolean> =>
      serial(async () => ((await db.query(sql.uriByFingerprint, [BigInt.asIntN(64, fingerprint).toString()])).rowCount ?? 0) > 0),
  };
}

/** Crawl-wide facts: meta values and robots.txt states. */
function factMethods(s: PostgresSession): Pick<PostgresFrontierStore, 'getMeta' | 'setMeta' | 'getRobots' | 'setRobots'> {
  const { db, serial } = s;
  return {
    getMeta: (key: string): Promise<unknown> => serial(async () => (await db.query(sql.getMeta, [key])).rows[0]?.value),
    setMeta: (key: string, value: unknown): Promise<void> => serial(async () => void (await db.query(sql.setMeta, [key, JSON.stringify(value)]))),

    getRobots: (origin: string): Promise<unknown> => serial(async () => (await db.query(sql.getRobots, [origin])).rows[0]?.value ?? null),
    setRobots: (origin: string, value: unknown, now: number): Promise<void> =>
      serial(async () => void (await db.query(sql.setRobots, [origin, JSON.stringify(value), now]))),
  };
}
