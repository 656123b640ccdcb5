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
 */
import os from 'node:os';
import pg from 'pg';
import { TroveError } from '../errors.ts';
import type { Candidate, ClaimOptions, ClaimedUri, FrontierCounts, Outcome, QueueInfo, RetryWaiting } from './frontier.ts';
import { checkCandidate, checkLimit, checkOutcome, checkTime, notInFlight, queueInfo } from './frontier-checks.ts';
import type { QueueCounters } from './frontier-checks.ts';
import { schemaSql, sql, UriState } from './postgres-frontier-statements.ts';

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

/** At most this many waiting URIs become claimable per claim, as in the SQLite frontier. */
const PROMOTE_BATCH = 1000;
const RETRYABLE = new Set(['40P01', '40001']);
const RECONNECT_MS = 100_000;
// Server shutting down or restarting, connection failures (SQLSTATE classes 57P, 08), socket errors.
const CONNECTION_CODES = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOTCONN']);

function isConnectionError(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return CONNECTION_CODES.has(e?.code ?? '') || /Connection terminated|not queryable|Client has encountered a connection error/.test(e?.message ?? '');
}

interface QueueDelta {
  pending: number;
  waiting: number;
  slots: number;
  done: number;
  failed: number;
  seen: number;
  readyAt: number | null;
}

type Db = pg.Client;

export type PostgresFrontierStore = Awaited<ReturnType<typeof openPostgresFrontierStore>>;

export async function openPostgresFrontierStore(opts: PostgresFrontierOptions) {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(opts.crawl)) {
    throw new TroveError('FRONTIER_BAD_CRAWL', `crawl name must be lowercase letters, digits and _ (a schema name), not "${opts.crawl}"`, { crawl: opts.crawl });
  }
  const defaultMaxInFlight = opts.defaultMaxInFlight ?? 1;
  checkLimit(defaultMaxInFlight);
  const me = opts.worker ?? `${os.hostname()}-${process.pid}`;
  const leaseMs = opts.leaseMs ?? 30_000;
  const dbClock = (opts.clock ?? 'database') === 'database';

  // Ids, counts and times are safe integers; only fingerprints need 64 bits and are never read back.
  const types = { getTypeParser: (oid: number, format?: string) => (oid === 20 ? Number : pg.types.getTypeParser(oid, format as 'text')) };
  let db!: Db;
  let broken = false;
  const connect = async () => {
    const c = new pg.Client({ connectionString: opts.url, types: types as pg.CustomTypesConfig });
    // A lost connection (server restart, network) surfaces here and as the failing query's error.
    c.on('error', () => {
      broken = true;
    });
    await c.connect();
    await c.query(`SET search_path TO ${opts.crawl}`);
    db = c;
    broken = false;
  };
  /** After a lost connection: try again until the server is back, for at most RECONNECT_MS. */
  const reconnect = async (cause: unknown) => {
    void db?.end().catch(() => {});
    const until = Date.now() + RECONNECT_MS;
    for (let wait = 100; ; wait = Math.min(wait * 2, 2000)) {
      try {
        await connect();
        return;
      } catch (err) {
        if (Date.now() + wait > until) {
          throw new TroveError('FRONTIER_DB_UNAVAILABLE', `PostgreSQL unreachable for ${RECONNECT_MS / 1000} s: ${(err as Error).message}`, {}, { cause });
        }
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  };
  await connect();
  // DDL only when the crawl is new: CREATE INDEX IF NOT EXISTS still locks its table, and would
  // deadlock with the claims of workers already running.
  if ((await db.query(`SELECT to_regclass($1) AS t`, [`${opts.crawl}.crawl_state`])).rows[0].t === null) {
    if (opts.mustExist) {
      await db.end();
      throw new TroveError('CRAWL_NOT_FOUND', `no shared crawl "${opts.crawl}" in that database (create it with trove crawl --frontier)`, { crawl: opts.crawl });
    }
    await db.query(`BEGIN; ${schemaSql(opts.crawl)} COMMIT;`);
  }

  /**
   * caller time + skew = database time (0 with clock: 'caller'), known to within `slack` (half
   * the round trip it was measured over). Times a caller sets for later (ready, retry, defer) are
   * moved later by the slack and the caller's "now" earlier, so the error can only make a worker
   * wait longer, never break a delay another worker set.
   */
  let skew = 0;
  let slack = 0;
  const measureSkew = async () => {
    const t0 = Date.now();
    const { rows } = await db.query(sql.dbNow);
    const t1 = Date.now();
    skew = rows[0].t - (t0 + t1) / 2;
    slack = (t1 - t0) / 2 + 1;
  };
  const toDb = (t: number) => Math.ceil(t + skew + slack);
  const nowToDb = (t: number) => Math.floor(t + skew - slack);
  const fromDb = (t: number) => Math.round(t - skew);

  // One statement or transaction at a time on the connection (the heartbeat runs between calls).
  let chain: Promise<unknown> = Promise.resolve();
  // A call cut off by a lost connection is run again once the server is back, so a database
  // restart pauses the worker rather than failing it. (A COMMIT whose answer was lost may have
  // happened: then a complete's rerun fails FRONTIER_NOT_IN_FLIGHT, and a claim's rerun leaves
  // the first lease to expire with the worker or go back at its next recoverInFlight.)
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const p = chain.then(async () => {
      for (;;) {
        try {
          if (broken) await reconnect(null);
          return await fn();
        } catch (err) {
          if (!broken && !isConnectionError(err)) throw err;
          await reconnect(err);
        }
      }
    });
    chain = p.catch(() => {});
    return p;
  };
  const tx = <T>(fn: () => Promise<T>): Promise<T> =>
    serial(async () => {
      for (let attempt = 0; ; attempt++) {
        await db.query('BEGIN');
        try {
          const r = await fn();
          await db.query('COMMIT');
          return r;
        } catch (err) {
          if (broken || isConnectionError(err)) throw err;
          await db.query('ROLLBACK');
          if (RETRYABLE.has((err as { code?: string }).code ?? '') && attempt < 8) continue;
          throw err;
        }
      }
    });

  if (dbClock) await measureSkew();
  const pageLimit = opts.pageLimit ?? 0;
  await db.query(sql.registerWorker, [me, os.hostname(), process.pid, nowToDb(Date.now()), dbClock ? nowToDb(Date.now()) + leaseMs : null]);
  let heartbeat: NodeJS.Timeout | undefined;
  if (dbClock) {
    heartbeat = setInterval(() => {
      void serial(async () => {
        await measureSkew();
        const t = nowToDb(Date.now());
        await db.query(sql.renewWorker, [me, t + leaseMs, t]);
      }).catch(() => {}); // a lost heartbeat is retried at the next tick; the lease covers several
    }, Math.max(50, Math.floor(leaseMs / 3)));
    heartbeat.unref();
  }

  /** Queue ids for keys, creating the missing queues (keys in sorted order). */
  const queueIds = async (keys: string[]): Promise<Map<string, number>> => {
    const ids = new Map<string, number>();
    const found = await db.query<{ id: number; key: string }>(sql.queueIds, [keys]);
    for (const r of found.rows) ids.set(r.key, r.id);
    const missing = keys.filter((k) => !ids.has(k));
    if (missing.length > 0) {
      await db.query(sql.insertQueues, [missing, defaultMaxInFlight]);
      const made = await db.query<{ id: number; key: string }>(sql.queueIds, [missing]);
      for (const r of made.rows) ids.set(r.key, r.id);
    }
    return ids;
  };

  const delta = (deltas: Map<number, QueueDelta>, qid: number): QueueDelta => {
    let d = deltas.get(qid);
    if (!d) deltas.set(qid, (d = { pending: 0, waiting: 0, slots: 0, done: 0, failed: 0, seen: 0, readyAt: null }));
    return d;
  };

  /** Queue counter changes, applied in ascending id order (the one lock order every transaction uses). */
  const applyDeltas = async (deltas: Map<number, QueueDelta>) => {
    for (const qid of [...deltas.keys()].sort((a, b) => a - b)) {
      const d = deltas.get(qid)!;
      await db.query(sql.queueDelta, [qid, d.pending, d.waiting, d.slots, d.done, d.failed, d.seen, d.readyAt]);
    }
  };

  /** Insert rows for candidates (refetchOf set: a forced refetch without fingerprint); tallies new ones into deltas. */
  const insertUris = async (cands: readonly Candidate[], deltas: Map<number, QueueDelta>, refetchOf: number | null = null): Promise<number> => {
    for (const c of cands) checkCandidate(c);
    const ids = await queueIds([...new Set(cands.map((c) => c.queueKey))].sort());
    const col = <T>(f: (c: Candidate) => T) => cands.map(f);
    const { rows } = await db.query<{ queue_id: number; state: number }>(sql.insertUris, [
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
    ]);
    for (const r of rows) {
      const d = delta(deltas, r.queue_id);
      if (r.state === UriState.WAITING) d.waiting++;
      else d.pending++;
      if (refetchOf === null) d.seen++;
    }
    return rows.length;
  };

  /** Put every in-flight URI of these workers back (attempts unchanged). */
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

  const store = {
    worker: me,

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

    /**
     * Under a page limit a claim that may hand out a page first locks the crawl_state row (as a
     * page completion does, before anything else, so the two never wait on each other in a
     * cycle), counts pages plus slots held, and claims a page only with room left.
     */
    claim: (now: number, opts: ClaimOptions = {}): Promise<ClaimedUri | null> => {
      checkTime(now, 'now');
      const t = nowToDb(now);
      return tx(async () => {
        const limited = pageLimit > 0 && opts.pages !== false;
        if (limited) await db.query(sql.lockPages);
        const dead = (await db.query<{ name: string }>(sql.renewAndReap, [me, t, t + leaseMs])).rows.map((r) => r.name);
        if (dead.length > 0) await recover(dead);
        await promoteDue(t);
        let pages = opts.pages !== false;
        if (limited) {
          const p = (await db.query<{ pages: number; held: number }>(sql.pagesHeld)).rows[0]!;
          pages = p.pages + p.held < pageLimit;
        }
        const u = (await db.query(pages ? sql.claim : sql.claimNonPage, pages ? [t, me, limited] : [t, me])).rows[0];
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
      });
    },

    complete: (uri: ClaimedUri, outcome: Outcome, outlinks?: readonly Candidate[]): Promise<void> => {
      checkOutcome(outcome);
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
    },

    /** True when this call gave the slot back, false when it had been given back already. */
    releaseSlot: (uri: ClaimedUri, queueReadyAt: number): Promise<boolean> => {
      checkTime(queueReadyAt, 'queueReadyAt');
      return tx(async () => {
        const row = (await db.query<{ queue_id: number }>(sql.releaseSlot, [uri.id, me])).rows[0];
        if (!row) {
          const leased = (await db.query<{ slot_released: boolean }>(sql.isLeased, [uri.id, me])).rows[0];
          if (leased?.slot_released) return false;
          throw notInFlight(uri);
        }
        const deltas = new Map<number, QueueDelta>();
        Object.assign(delta(deltas, row.queue_id), { slots: 1, readyAt: toDb(queueReadyAt) });
        await applyDeltas(deltas);
        return true;
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

    /**
     * As the interface says, plus: while other workers hold leases, their lease expiry (they may
     * complete with new outlinks before then, or die and leave their URIs to us), so a worker does
     * not take "nothing for me now" for "the crawl is over".
     */
    nextReadyAt: (opts: ClaimOptions = {}): Promise<number | null> =>
      serial(async () => {
        const { q, w, others } = (await db.query<{ q: number | null; w: number | null; others: number | null }>(opts.pages === false ? sql.nextReadyNonPage : sql.nextReady, [me])).rows[0]!;
        const ts = [q, w, others].filter((x): x is number => x !== null);
        return ts.length === 0 ? null : fromDb(Math.min(...ts));
      }),

    /** Under the page limit: pages captured crawl-wide plus page slots held are below it (always true without one). */
    pagesOpen: (): Promise<boolean> =>
      pageLimit <= 0
        ? Promise.resolve(true)
        : serial(async () => {
            const p = (await db.query<{ pages: number; held: number }>(sql.pagesHeld)).rows[0]!;
            return p.pages + p.held < pageLimit;
          }),

    /** What the operator asked of the whole crawl, and when (caller's clock). */
    control: (): Promise<{ control: CrawlControl; changedAt: number }> =>
      serial(async () => {
        const r = (await db.query(sql.getControl)).rows[0];
        return { control: r.control, changedAt: fromDb(r.changed_at) };
      }),
    setControl: (control: CrawlControl): Promise<void> => {
      if (!['running', 'paused', 'stopped'].includes(control)) throw new TroveError('SETTINGS_INVALID', `crawl control is running, paused or stopped, not ${control}`);
      return serial(async () => void (await db.query(sql.setControl, [control, nowToDb(Date.now())])));
    },
    /** Store this worker's totals (kept after it leaves) and read the crawl's control in the same trip. */
    report: (stats: WorkerReport): Promise<CrawlControl> =>
      serial(async () => {
        await db.query(sql.report, [me, os.hostname(), JSON.stringify(stats), nowToDb(Date.now())]);
        return (await db.query(sql.getControl)).rows[0].control;
      }),
    /** Every worker's last report, those gone included. */
    reports: (): Promise<{ name: string; host: string; stats: WorkerReport; updatedAt: number }[]> =>
      serial(async () => (await db.query(sql.workerStats)).rows.map((r) => ({ name: r.name, host: r.host, stats: r.stats, updatedAt: fromDb(r.updated_at) }))),

    /** The highest capture id of this worker the shared crawl holds (0: none): copy from the next. */
    lastCapture: (): Promise<number> => serial(async () => (await db.query(sql.lastCapture, [me])).rows[0].id),
    /** Copy this worker's capture-index rows into the shared crawl (a row already there is kept). */
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
    /** Index rows per worker: records, pages, responses, WARC files. */
    captureTotals: (): Promise<{ worker: string; records: number; pages: number; responses: number; files: number }[]> =>
      serial(async () => (await db.query(sql.captureTotals)).rows),
    /** Every capture (response, revisit, resource) of one URL key across all workers, oldest first. */
    capturesOf: (urlkey: string): Promise<(Omit<SharedCapture, 'id' | 'recordId' | 'urlkey'> & { worker: string })[]> =>
      serial(async () =>
        (await db.query(sql.capturesOf, [urlkey])).rows.map((r) => ({
          worker: r.worker, warcFile: r.warc_file, offset: r.offset, length: r.length, recordType: r.record_type, targetUri: r.target_uri,
          ts: r.ts, mime: r.mime, status: r.status, payloadDigest: r.payload_digest, page: r.page,
        })),
      ),

    /** This worker's leases left from an earlier run under its name go back to pending. */
    recoverInFlight: (): Promise<number> => tx(() => recover([me])),

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

    /** Every worker of the crawl, with its lease expiry (on the caller's clock) and leases held. */
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

    /** A crawl-wide fact (JSON) every worker reads, e.g. the crawl settings. */
    getMeta: (key: string): Promise<unknown> => serial(async () => (await db.query(sql.getMeta, [key])).rows[0]?.value),
    setMeta: (key: string, value: unknown): Promise<void> => serial(async () => void (await db.query(sql.setMeta, [key, JSON.stringify(value)]))),

    /** An origin's robots.txt state as the crawl's robots gate stores it, shared by every worker. */
    getRobots: (origin: string): Promise<unknown> => serial(async () => (await db.query(sql.getRobots, [origin])).rows[0]?.value ?? null),
    setRobots: (origin: string, value: unknown, now: number): Promise<void> =>
      serial(async () => void (await db.query(sql.setRobots, [origin, JSON.stringify(value), now]))),

    /** Renew this worker's lease outright (`clock: 'caller'`: at the time given). */
    heartbeat: (now = Date.now()): Promise<void> => serial(async () => void (await db.query(sql.renewWorker, [me, nowToDb(now) + leaseMs, nowToDb(now)]))),

    close: async (): Promise<void> => {
      clearInterval(heartbeat);
      await chain;
      // A worker leaving with no leases leaves the crawl; one holding leases stays listed until they expire.
      await db.query(sql.leaveCrawl, [me]).catch(() => {});
      await db.end();
    },
  };
  return store;
}
