/**
 * Group commit for the crawl's database connection: many URIs' writes share one SQLite
 * transaction. With WAL every COMMIT appends each page it dirtied to the log, and a crawl
 * dirties the same hot pages (the records table and its indexes, `uris`, the counters) for
 * every URI; committed one URI at a time, those pages were copied into the WAL again and again.
 *
 * The owner holds one outer `BEGIN` while it is open. Every write on the connection lands in it:
 * better-sqlite3's `db.transaction()` sees `db.inTransaction` and becomes a SAVEPOINT (see its
 * lib/methods/transaction.js), so the frontier's and the capture index's own transactions nest
 * unchanged. Inside a unit they do not even do that: their `atomic()` functions run as they are
 * (below, "Units without savepoints"). The group commits when `maxUnits` units
 * (claims, completions) have run, when the timer set at `BEGIN` fires (`maxDelayMs`: how late
 * readers in other connections, the UI and `trove status`, may see the crawl), and whenever the
 * crawl asks (`commit`, `suspend`): at pause, stop, end, before a checkpoint, before a WARC file is
 * closed or once it was opened.
 *
 * A group can be lost: a refused COMMIT (a full disk, an I/O error) or a statement that fails
 * with SQLITE_FULL / SQLITE_IOERR makes SQLite roll back the whole transaction. The owner notices
 * (it believed a group was open and `db.inTransaction` says there is none), stops taking units
 * (each throws an error with the cause's code, so the crawl's disk-full path sees it), and says
 * so to its listeners (`lost`); the crawl then waits for its URIs in flight, puts its leases back, and
 * indexes what the WARC holds beyond the index (reconcile-index.ts) before `recover()`.
 * Listeners run just before each COMMIT (`beforeCommit`: buffered derived writes join the
 * group), after it (`afterCommit`: what may be said only once durable), and on a loss.
 *
 * Units without savepoints. A SAVEPOINT is not free: SQLite copies every page the savepoint's
 * writes first touch into its sub-journal, so that it can roll them back, and a URI's completion
 * touches some twenty (the records table's indexes, `uris`, the counters). The crawl's database
 * work per URI was a fifth to a third cheaper without them (bench/group-commit-bench.ts). So a
 * unit runs its stores' `atomic()` functions as plain calls, and what a savepoint gave it, a
 * unit that throws leaves nothing behind, is kept another way: the stores check what they are
 * given before they write (a throw then changed nothing: `total_changes()` says so, and the group
 * goes on as if a savepoint had rolled the unit back), and should a unit throw after it wrote,
 * the whole group is rolled back and reported lost, which the crawl already recovers from (its
 * URIs are fetched again). From then on (unless the cause was a full disk or an I/O error) this
 * owner runs units in savepoints again, so a unit that fails the same way once more fails alone.
 */
import type Database from 'better-sqlite3';

/** Connections whose group is running a unit without savepoints right now. */
const flatUnits = new WeakSet<Database.Database>();

/**
 * `db.transaction(fn)`, except while a group on `db` runs a unit without savepoints: then `fn` runs
 * as a plain call, inside the unit (see "Units without savepoints" above). For the stores' write
 * functions that a crawl calls inside units (the frontier's claim and complete, the capture
 * index's rows); a function that may throw must do so before it writes.
 */
export function atomic<A extends unknown[], R>(db: Database.Database, fn: (...args: A) => R): (...args: A) => R {
  const tx = db.transaction(fn);
  return (...args: A): R => (flatUnits.has(db) ? fn(...args) : tx(...args));
}

export interface GroupCommitOptions {
  /** Commit once this many units ran in the open group. */
  maxUnits: number;
  /** Commit at the latest this long after the group began (ms). */
  maxDelayMs: number;
  /** The timer seam (tests pass fake timers): run `fn` after `ms`; returns a cancel. */
  setTimer?: (fn: () => void, ms: number) => () => void;
}

export interface GroupCommitListener {
  beforeCommit?(): void;
  afterCommit?(): void;
  /** The open group was rolled back by SQLite (or its COMMIT refused): its writes are gone. */
  lost?(err: unknown): void;
}

type State = 'idle' | 'open' | 'lost';

/** Whether an error says the open group was lost (thrown to every unit until `recover`). */
export function isGroupLostError(err: unknown): boolean {
  return (err as { groupLost?: unknown })?.groupLost === true;
}

const defaultTimer = (fn: () => void, ms: number): (() => void) => {
  const t = setTimeout(fn, ms);
  t.unref?.();
  return () => clearTimeout(t);
};

export class GroupCommit {
  readonly #db: Database.Database;
  readonly #opts: Required<GroupCommitOptions>;
  readonly #begin: Database.Statement;
  readonly #commit: Database.Statement;
  readonly #rollback: Database.Statement;
  readonly #listeners: GroupCommitListener[] = [];
  #state: State = 'idle';
  #units = 0;
  #cancelTimer: (() => void) | null = null;
  #lostError: unknown = null;
  readonly #totalChanges: Database.Statement<[], number>;
  /** Units run without savepoints until one throws after it wrote. */
  #flat = true;
  /** Groups committed and lost so far (for tests and the bench). */
  committed = 0;
  lostGroups = 0;

  constructor(db: Database.Database, opts: GroupCommitOptions) {
    if (!(opts.maxUnits >= 1) || !(opts.maxDelayMs > 0)) throw new RangeError(`group commit needs maxUnits >= 1 and maxDelayMs > 0`);
    this.#db = db;
    this.#opts = { setTimer: defaultTimer, ...opts };
    this.#begin = db.prepare('BEGIN');
    this.#commit = db.prepare('COMMIT');
    this.#rollback = db.prepare('ROLLBACK');
    this.#totalChanges = db.prepare<[], number>('SELECT total_changes()').pluck();
  }

  /** Whether units still run without savepoints (false once one threw after it wrote). */
  get flatUnits(): boolean {
    return this.#flat;
  }

  get state(): State {
    return this.#state;
  }

  /** Units in the open group (0 when none is open). */
  get units(): number {
    return this.#units;
  }

  listen(l: GroupCommitListener): void {
    this.#listeners.push(l);
  }

  /** Start grouping (from idle). A lost group must be `recover`ed first; open is a no-op then. */
  open(): void {
    if (this.#state !== 'idle') return;
    this.#beginGroup();
  }

  /**
   * One unit of the crawl's work (a claim, a URI's completion), run in the open group (or on its
   * own while idle). A full group commits before the next unit runs, not after the last one: what
   * the caller does right after its unit (the crawl.log line, committed-line-log.ts) still joins
   * that unit's group. A refused commit throws, and the unit does not run.
   */
  unit<T>(fn: () => T): T {
    this.#checkAlive();
    if (this.#state === 'open' && this.#units >= this.#opts.maxUnits) this.commit();
    const flat = this.#state === 'open' && this.#flat && !flatUnits.has(this.#db);
    const changes = flat ? this.#totalChanges.get()! : 0;
    let result: T;
    try {
      if (flat) flatUnits.add(this.#db);
      result = fn();
    } catch (err) {
      if (flat) this.#flatUnitFailed(err, changes);
      this.#checkAlive(err);
      throw err;
    } finally {
      if (flat) flatUnits.delete(this.#db);
    }
    if (this.#state === 'open') this.#units++;
    return result;
  }

  /**
   * A unit without savepoints threw. If it wrote nothing, the group goes on (as a savepoint rolled
   * back would have left it); if it did, nothing can take its writes out alone: the group is
   * rolled back and lost, and units run in savepoints from now on.
   */
  #flatUnitFailed(err: unknown, changesBefore: number): void {
    if (!this.#db.inTransaction || this.#totalChanges.get() === changesBefore) return;
    // A full disk or an I/O error is no reason to expect the next unit to fail too.
    if (!/^SQLITE_(FULL|IOERR)/.test(String((err as { code?: unknown })?.code))) this.#flat = false;
    try {
      this.#rollback.run();
    } catch {
      /* already rolled back by SQLite */
    }
    this.#lose(err);
  }

  /**
   * Commit the open group now and open the next. Throws (after `lost`) if it was refused, and
   * while a lost group is not yet recovered: what the caller wants durable is not.
   */
  commit(): void {
    if (this.#state === 'lost') throw this.#lostError;
    if (this.#state !== 'open') return;
    this.#end();
    if (this.#state === 'open') this.#beginGroup();
  }

  /** Commit and stop grouping (pause, stop, before closing the database). Throws like commit. */
  suspend(): void {
    if (this.#state === 'lost') throw this.#lostError;
    if (this.#state !== 'open') return;
    this.#end();
    if (this.#state === 'open') this.#state = 'idle';
  }

  /** After a loss has been dealt with: writes go on one at a time until `open`. */
  recover(): void {
    if (this.#state !== 'lost') return;
    this.#state = 'idle';
    this.#lostError = null;
  }

  #beginGroup(): void {
    this.#begin.run();
    this.#state = 'open';
    this.#units = 0;
    this.#cancelTimer = this.#opts.setTimer(() => {
      this.#cancelTimer = null;
      try {
        this.commit();
      } catch {
        /* said through `lost`; the crawl pauses */
      }
    }, this.#opts.maxDelayMs);
  }

  /** COMMIT the open group; on failure roll back what SQLite left and report the loss. */
  #end(): void {
    this.#cancelTimer?.();
    this.#cancelTimer = null;
    try {
      this.#checkAlive();
      // A listener may swallow its own error (page text is advisory): look again after each.
      for (const l of this.#listeners) {
        l.beforeCommit?.();
        this.#checkAlive();
      }
      this.#commit.run();
    } catch (err) {
      if (this.#state === 'open') {
        if (this.#db.inTransaction) {
          try {
            this.#rollback.run();
          } catch {
            /* already rolled back by SQLite */
          }
        }
        this.#lose(err);
      }
      throw this.#lostError ?? err;
    }
    this.#units = 0;
    this.committed++;
    for (const l of this.#listeners) l.afterCommit?.();
  }

  /** Throws when the group is (or has just been found) lost: SQLite rolled it back under us. */
  #checkAlive(cause?: unknown): void {
    if (this.#state === 'open' && !this.#db.inTransaction) this.#lose(cause ?? new Error('the open transaction was rolled back'));
    if (this.#state === 'lost') throw this.#lostError;
  }

  #lose(cause: unknown): void {
    this.#cancelTimer?.();
    this.#cancelTimer = null;
    this.#state = 'lost';
    this.#units = 0;
    this.lostGroups++;
    const message = (cause as Error)?.message ?? String(cause);
    // The cause's code (SQLITE_FULL, SQLITE_IOERR_*) lets the crawl's disk-full path know it.
    this.#lostError = Object.assign(new Error(`the database rolled back a group of writes: ${message}`, { cause }), {
      code: (cause as { code?: unknown })?.code ?? 'SQLITE_ABORT',
      groupLost: true,
    });
    for (const l of this.#listeners) {
      try {
        l.lost?.(cause);
      } catch {
        /* a listener's error is its own */
      }
    }
  }
}
