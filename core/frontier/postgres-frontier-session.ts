/**
 * One worker's session with the shared crawl's database, what every method of the PostgreSQL
 * frontier store runs on: the connection (replaced after a loss, the call run again), one
 * statement or transaction at a time (`serial`, `tx`, with deadlocks retried), the clock offset to
 * the database's clock, and the worker's row with its heartbeat. Kept apart from the store's
 * methods so each of those reads as its SQL and its counters.
 */
import os from 'node:os';
import pg from 'pg';
import { TroveError } from '../errors.ts';
import type { PostgresFrontierOptions } from './postgres-frontier-store-types.ts';
import { inlineParams } from './postgres-inline-params.ts';
import { pipeline } from './postgres-frontier-pipeline.ts';
import type { PipedStatement } from './postgres-frontier-pipeline.ts';
import { sql } from './postgres-frontier-statements.ts';

const RETRYABLE = new Set(['40P01', '40001']);
const RECONNECT_MS = 100_000;
// Server shutting down or restarting, connection failures (SQLSTATE classes 57P, 08), socket errors.
const CONNECTION_CODES = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOTCONN']);

function isConnectionError(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return CONNECTION_CODES.has(e?.code ?? '') || /Connection terminated|not queryable|Client has encountered a connection error/.test(e?.message ?? '');
}

/** What the store's methods query through. */
export type Db = Pick<pg.Client, 'query'>;

// Ids, counts and times are safe integers; only fingerprints need 64 bits and are never read back.
const types = { getTypeParser: (oid: number, format?: string) => (oid === 20 ? Number : pg.types.getTypeParser(oid, format as 'text')) };

export class PostgresSession {
  /** This worker's name in the crawl. */
  readonly me: string;
  readonly leaseMs: number;
  /** `clock: 'database'`: times are moved onto the database's clock (see postgres-frontier-store.ts). */
  readonly dbClock: boolean;
  /** Queries go to the connection of the moment: a lost one is replaced (reconnect), this stays. */
  readonly db: Db;
  /** Queries sent so far: each is one round trip (node-postgres sends one at a time), for the pg bench. */
  roundTrips = 0;
  private readonly opts: PostgresFrontierOptions;
  private client!: pg.Client;
  private broken = false;
  // One statement or transaction at a time on the connection (the heartbeat runs between calls).
  private chain: Promise<unknown> = Promise.resolve();
  /**
   * caller time + skew = database time (0 with clock: 'caller'), known to within `slack` (half
   * the round trip it was measured over). Times a caller sets for later (ready, retry, defer) are
   * moved later by the slack and the caller's "now" earlier, so the error can only make a worker
   * wait longer, never break a delay another worker set.
   */
  private skew = 0;
  private slack = 0;
  private heartbeatTimer: NodeJS.Timeout | undefined;

  private constructor(opts: PostgresFrontierOptions) {
    this.opts = opts;
    this.me = opts.worker ?? `${os.hostname()}-${process.pid}`;
    this.leaseMs = opts.leaseMs ?? 30_000;
    this.dbClock = (opts.clock ?? 'database') === 'database';
    this.db = {
      query: (...args: unknown[]) => {
        this.roundTrips++;
        return (this.client.query as (...a: unknown[]) => unknown).apply(this.client, args);
      },
    } as unknown as Db;
  }

  /** Connect (search_path set to the crawl's schema); the worker is registered later, by `register`. */
  static async connect(opts: PostgresFrontierOptions): Promise<PostgresSession> {
    const s = new PostgresSession(opts);
    await s.connect();
    return s;
  }

  private async connect(): Promise<void> {
    const c = new pg.Client({ connectionString: this.opts.url, types: types as pg.CustomTypesConfig });
    // A lost connection (server restart, network) surfaces here and as the failing query's error.
    c.on('error', () => {
      this.broken = true;
    });
    await c.connect();
    await c.query(`SET search_path TO ${this.opts.crawl}`);
    this.client = c;
    this.broken = false;
  }

  /** After a lost connection: try again until the server is back, for at most RECONNECT_MS. */
  private async reconnect(cause: unknown): Promise<void> {
    void this.client?.end().catch(() => {});
    const until = Date.now() + RECONNECT_MS;
    for (let wait = 100; ; wait = Math.min(wait * 2, 2000)) {
      try {
        await this.connect();
        return;
      } catch (err) {
        if (Date.now() + wait > until) {
          throw new TroveError('FRONTIER_DB_UNAVAILABLE', `PostgreSQL unreachable for ${RECONNECT_MS / 1000} s: ${(err as Error).message}`, {}, { cause });
        }
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }

  // A call cut off by a lost connection is run again once the server is back, so a database
  // restart pauses the worker rather than failing it. (A COMMIT whose answer was lost may have
  // happened: then a complete's rerun fails FRONTIER_NOT_IN_FLIGHT, and a claim's rerun leaves
  // the first lease to expire with the worker or go back at its next recoverInFlight.)
  readonly serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const p = this.chain.then(async () => {
      for (;;) {
        try {
          if (this.broken) await this.reconnect(null);
          return await fn();
        } catch (err) {
          if (!this.broken && !isConnectionError(err)) throw err;
          await this.reconnect(err);
        }
      }
    });
    this.chain = p.catch(() => {});
    return p;
  };

  readonly tx = <T>(fn: () => Promise<T>): Promise<T> =>
    this.serial(async () => {
      for (let attempt = 0; ; attempt++) {
        await this.db.query('BEGIN');
        try {
          const r = await fn();
          await this.db.query('COMMIT');
          return r;
        } catch (err) {
          if (this.broken || isConnectionError(err)) throw err;
          await this.db.query('ROLLBACK');
          if (RETRYABLE.has((err as { code?: string }).code ?? '') && attempt < 8) continue;
          throw err;
        }
      }
    });

  /**
   * Statements sent as one simple-protocol query, one round trip (parameters written in as
   * literals: postgres-inline-params.ts); each statement's result. BEGIN and COMMIT may be among
   * them, so a transaction of a few statements costs one or two trips instead of one per statement
   * and two more for BEGIN and COMMIT. Call it inside `trips`.
   */
  private readonly send = async (statements: readonly (readonly [string, readonly unknown[]])[]): Promise<pg.QueryResult[]> => {
    const res = (await this.db.query(statements.map(([t, p]) => inlineParams(t, p)).join(';\n'))) as unknown as pg.QueryResult | pg.QueryResult[];
    return Array.isArray(res) ? res : [res];
  };

  /**
   * Prepared statements (named, parsed once per connection) in one round trip, run as one
   * transaction (postgres-frontier-pipeline.ts); each statement's result. Call it inside `trips`.
   */
  readonly piped = (statements: readonly PipedStatement[]): Promise<pg.QueryResult[]> => {
    this.roundTrips++;
    return pipeline(this.client, statements);
  };

  /**
   * `fn` on the connection alone (as `serial`), sending its statements with `send`; whatever
   * transaction it left open is rolled back when it throws, and it runs again after a deadlock or
   * serialisation failure, as `tx` does.
   */
  readonly trips = <T>(fn: (send: PostgresSession['send']) => Promise<T>): Promise<T> =>
    this.serial(async () => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await fn(this.send);
        } catch (err) {
          if (this.broken || isConnectionError(err)) throw err;
          await this.db.query('ROLLBACK');
          if (RETRYABLE.has((err as { code?: string }).code ?? '') && attempt < 8) continue;
          throw err;
        }
      }
    });

  private async measureSkew(): Promise<void> {
    const t0 = Date.now();
    const { rows } = await this.db.query(sql.dbNow);
    const t1 = Date.now();
    this.skew = rows[0].t - (t0 + t1) / 2;
    this.slack = (t1 - t0) / 2 + 1;
  }

  /** A time the caller sets for later, on the database's clock. */
  readonly toDb = (t: number): number => Math.ceil(t + this.skew + this.slack);
  /** The caller's "now", on the database's clock. */
  readonly nowToDb = (t: number): number => Math.floor(t + this.skew - this.slack);
  /** A database time, on the caller's clock. */
  readonly fromDb = (t: number): number => Math.round(t - this.skew);

  /** Join the crawl: measure the clock, write the worker's row, and (database clock) keep its lease alive. */
  async register(): Promise<void> {
    const { db, me, leaseMs } = this;
    if (this.dbClock) await this.measureSkew();
    await db.query(sql.registerWorker, [me, os.hostname(), process.pid, this.nowToDb(Date.now()), this.dbClock ? this.nowToDb(Date.now()) + leaseMs : null]);
    if (!this.dbClock) return;
    this.heartbeatTimer = setInterval(() => {
      void this.serial(async () => {
        await this.measureSkew();
        const t = this.nowToDb(Date.now());
        await db.query(sql.renewWorker, [me, t + leaseMs, t]);
      }).catch(() => {}); // a lost heartbeat is retried at the next tick; the lease covers several
    }, Math.max(50, Math.floor(leaseMs / 3)));
    this.heartbeatTimer.unref();
  }

  /** Close the connection alone (a crawl that is not there to join). */
  async end(): Promise<void> {
    await this.client.end();
  }

  async close(): Promise<void> {
    clearInterval(this.heartbeatTimer);
    await this.chain;
    // A worker leaving with no leases leaves the crawl; one holding leases stays listed until they expire.
    await this.db.query(sql.leaveCrawl, [this.me]).catch(() => {});
    await this.client.end();
  }
}
