/**
 * The crawl's disk guard. A full disk must pause a crawl, never kill it, and the crawl must not
 * resume on the word of `statfs` alone (bytes reported free are not bytes a write gets: reserved
 * blocks, quotas, another process filling the disk meanwhile). So:
 *
 * - `shortfall()` compares free space with --min-free-disk *plus* what the SQLite write-ahead log
 *   may still grow by before its next automatic checkpoint (WAL_MAX_BYTES less its present size):
 *   the WAL lives beside the database and took 16 MiB of a 20 MiB disk unseen by the old guard.
 * - `checkpoint()` folds the WAL into the database and truncates it to nothing: done on every
 *   disk pause, so a paused crawl gives back the WAL's disk.
 * - `probe()` makes real writes: a block of PROBE_BYTES to a file in the crawl directory, synced
 *   and removed, and a committed SQLite write. Only when both succeed does a paused crawl resume.
 *
 * `isDiskFullError` is the one test for "the disk refused a write", for any layer's error.
 */
import fs from 'node:fs';
import type Database from 'better-sqlite3';
import { isTroveError } from '../errors.ts';
import { setMeta } from '../storage/meta.ts';
import { checkpointWal, WAL_MAX_BYTES } from '../storage/open-database.ts';

/** Bytes a write probe must get before a paused crawl resumes: a few WARC record groups. */
export const PROBE_BYTES = 1024 * 1024;

/** A write refused for lack of space (ENOSPC, EDQUOT, SQLITE_FULL) or failing I/O under it, from any layer. */
export function isDiskFullError(err: unknown): boolean {
  if (isTroveError(err, 'WARC_WRITE_FAILED') || isTroveError(err, 'FETCH_SPOOL_FAILED')) return true;
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && (code === 'SQLITE_FULL' || code.startsWith('SQLITE_IOERR') || code === 'ENOSPC' || code === 'EDQUOT');
}

export interface DiskShortfall {
  free: number;
  /** Bytes the guard wants free: the minimum plus the WAL's room to grow. */
  needed: number;
}

export interface DiskGuardOptions {
  /** A folder on the disk to watch (the WARC folder). */
  dir: string;
  /** --min-free-disk; 0 turns the free-space check off (write failures still pause). */
  minFreeBytes: number;
  db: Database.Database;
  /** The database file (its `-wal` file sits beside it). */
  dbFile: string;
  /** Scratch file for the write probe, on the same disk. */
  probeFile: string;
}

export class DiskGuard {
  readonly #o: DiskGuardOptions;

  constructor(opts: DiskGuardOptions) {
    this.#o = opts;
  }

  get minFreeBytes(): number {
    return this.#o.minFreeBytes;
  }

  /** Free space short of what the guard wants, or null when there is room (or the guard is off). */
  shortfall(): DiskShortfall | null {
    const min = this.#o.minFreeBytes;
    if (min <= 0) return null;
    let free: number;
    try {
      const st = fs.statfsSync(this.#o.dir);
      free = st.bavail * st.bsize;
    } catch {
      return null; // cannot tell: the write failures still pause
    }
    const wal = fs.statSync(`${this.#o.dbFile}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    const needed = min + Math.max(0, WAL_MAX_BYTES - wal);
    return free < needed ? { free, needed } : null;
  }

  /** Fold the WAL into the database and truncate it. False when that failed (e.g. no room to grow the database). */
  checkpoint(): boolean {
    return checkpointWal(this.#o.db);
  }

  /** Real writes on the disk and in the database; null when both succeeded, else why not. */
  probe(): string | null {
    const file = this.#o.probeFile;
    let fd: number | null = null;
    try {
      fd = fs.openSync(file, 'w');
      const block = Buffer.alloc(PROBE_BYTES);
      // A nearly full disk may take part of a write without an error; the rest then fails.
      for (let at = 0; at < block.length; ) at += fs.writeSync(fd, block, at);
      fs.fsyncSync(fd);
    } catch (err) {
      return (err as Error).message;
    } finally {
      if (fd !== null) fs.closeSync(fd);
      fs.rmSync(file, { force: true });
    }
    try {
      setMeta(this.#o.db, 'diskProbeAt', Date.now());
    } catch (err) {
      return (err as Error).message;
    }
    return null;
  }
}
