/**
 * Opening a crawl's SQLite database. The database file is the truth about a crawl: a resumed
 * crawl (after a clean stop or after `kill -9`) rebuilds everything from it, so the pragmas here
 * are chosen for crash safety first and speed second.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { TroveError } from '../errors.ts';
import { migrate, schemaVersion } from './migrations.ts';

/**
 * Parameters written `+?`. SQLite (3.54, as better-sqlite3 13 builds it) compiles some statements
 * against the values bound to their parameters and marks them to be compiled again whenever a
 * parameter is bound anew: a `LIMIT ?`, and an equality `col = ?` on an index whose order serves
 * the ORDER BY (sqlite3VdbeReprepareOnBind in its source). better-sqlite3 binds on every call, so
 * such a statement was parsed and planned on every execution: the frontier's claim and a replay
 * lookup cost ten times or more what they do compiled once (bench/sql-bind-bench.ts). A unary plus
 * makes the parameter an expression SQLite does not look into: the same value and plan
 * (test/storage/bound-parameters.test.ts compares the plans), compiled once. Statements run per
 * URI or per lookup use it; page-at-a-time scans (records browser, exports) keep their `LIMIT ?`,
 * whose value helps the planner there and whose cost is paid once per page.
 */

/** One database per crawl directory, under this name. */
export const CRAWL_DATABASE_FILE = 'crawl.sqlite';

export function crawlDatabasePath(crawlDir: string): string {
  return path.join(crawlDir, CRAWL_DATABASE_FILE);
}

/**
 * How large the write-ahead log grows before it is checkpointed, and the size it is cut back to
 * after one: disk the database takes beyond its main file, which the disk guard keeps free.
 */
export const WAL_MAX_BYTES = 16 * 1024 * 1024;
const WAL_PAGE_BYTES = 4096;

/** SQLite's page cache per connection, in KiB (see openDatabase). */
const CACHE_KIB = 8 * 1024;

export interface OpenDatabaseOptions {
  /** Open without writing: no migrations, no journal-mode change. Fails if the file is missing. */
  readonly?: boolean;
}

/**
 * Open (or create) a database and bring its schema up to date.
 *
 * - `journal_mode = WAL`: readers (the UI, replay) never block the crawl's writer.
 * - `synchronous = NORMAL`: in WAL mode a commit is written to the WAL before it returns but the
 *   WAL is fsynced only at checkpoints. A process crash (`kill -9`, an exception) loses nothing
 *   that committed, because the WAL is in the OS page cache; a power loss may drop the last few
 *   transactions but never corrupts the file. Crawls can re-fetch a few URIs; they cannot afford
 *   an fsync per fetched URI.
 * - `foreign_keys = ON`: rows never point at a queue or WARC file that does not exist.
 * - `busy_timeout = 5000`: a second connection (UI, CLI status) waits instead of failing.
 * - `cache_size` 8 MiB: SQLite's page cache is what makes a long crawl's RSS keep rising
 *   (it fills up to its cap as the database grows), and the crawl's budget is 150 MiB in all;
 *   a crawl holds one connection. The frontier's fingerprint index is random-access, so a
 *   smaller cache costs enqueueing at 1M URIs some speed (bench/frontier-bench.ts); at 8 MiB
 *   rather than 16 malloc's main arena was 8 MiB smaller on the synthetic crawl (issue 20).
 *
 * Opening is idempotent: migrations run only when `PRAGMA user_version` is behind.
 */
export function openDatabase(file: string, opts: OpenDatabaseOptions = {}): Database.Database {
  const readonly = opts.readonly === true;
  let db: Database.Database;
  try {
    db = new Database(file, { readonly, fileMustExist: readonly });
  } catch (err) {
    throw new TroveError('DB_OPEN_FAILED', `Cannot open database ${file}: ${(err as Error).message}`, { path: file }, { cause: err });
  }
  try {
    db.pragma('busy_timeout = 5000');
    if (!readonly) {
      db.pragma('journal_mode = WAL');
      // Checkpoint every 16 MiB of WAL instead of SQLite's 4 MiB: the frontier's indexes are
      // written all over, and a hot index page is then copied back to the main file once per
      // checkpoint rather than several times (about 1.5–2× faster enqueueing). Not more: a
      // checkpoint runs synchronously on the event loop, the WAL keeps that much disk, and crash
      // recovery reads it. The WAL file is truncated back to this size after a checkpoint.
      db.pragma(`wal_autocheckpoint = ${WAL_MAX_BYTES / WAL_PAGE_BYTES}`);
      db.pragma(`journal_size_limit = ${WAL_MAX_BYTES}`);
    }
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma(`cache_size = -${CACHE_KIB}`);
    db.pragma('temp_store = MEMORY');
    if (readonly) checkVersionForReading(db, file);
    else migrate(db);
    return db;
  } catch (err) {
    db.close();
    if (err instanceof TroveError) throw err;
    const code = (err as { code?: string }).code;
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
      throw new TroveError('DB_NOT_A_DATABASE', `${file} is not a Trove database (or it is damaged)`, { path: file }, { cause: err });
    }
    throw new TroveError('DB_OPEN_FAILED', `Cannot open database ${file}: ${(err as Error).message}`, { path: file }, { cause: err });
  }
}

/**
 * Close cleanly: `PRAGMA optimize` refreshes planner statistics for the next open, and closing
 * the last connection checkpoints the WAL into the main file.
 */
export function closeDatabase(db: Database.Database): void {
  if (!db.open) return;
  if (!db.readonly) {
    try {
      db.pragma('optimize');
    } catch {
      // Optimisation is advisory; never let it keep the database from closing.
    }
  }
  db.close();
}

/**
 * Fold the WAL into the database file and truncate it to nothing. True when every frame was
 * copied (no reader held it back); false when a reader was in the way or the write failed (a
 * full disk cannot grow the database).
 */
export function checkpointWal(db: Database.Database): boolean {
  try {
    const [row] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    return row?.busy === 0;
  } catch {
    return false;
  }
}

function checkVersionForReading(db: Database.Database, file: string): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  const latest = schemaVersion();
  if (version > latest) {
    throw new TroveError('DB_TOO_NEW', `${file} was written by a newer Trove (schema ${version}, this build knows ${latest})`, { path: file, version, latest });
  }
  if (version < latest) {
    throw new TroveError('DB_NEEDS_MIGRATION', `${file} has schema ${version}; open it once for writing to upgrade it to ${latest}`, { path: file, version, latest });
  }
}

let addonHeld = false;

/**
 * Load SQLite's native addon in this thread before starting a worker thread that opens
 * databases (the app's crawl worker). better-sqlite3 13.2 has a known crash
 * (WiseLibs/better-sqlite3#1476; the fix, #1477, is not in this release). When a worker thread is
 * the only one that loaded the addon, Node unloads it as the worker exits, before V8's last
 * garbage collection of that worker runs its weak callbacks. Those callbacks live in the
 * unloaded addon, so the process dies with SIGSEGV. A thread that loaded it first keeps it
 * mapped. The app's main thread has usually opened an archive by then; a host that has not (a
 * script, a test) is covered by this too. Cost: one in-memory database opened and closed, once.
 */
export function holdSqliteAddon(): void {
  if (addonHeld) return;
  new Database(':memory:').close();
  addonHeld = true;
}
