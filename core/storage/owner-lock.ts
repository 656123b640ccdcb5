/**
 * A lock file that names its owner: one process at a time may crawl a directory (or import into
 * an archive). Read-then-write of a pid file can be raced (two processes both read "free" and
 * both write), so:
 *
 * - Taking the lock is one atomic step: the owner line is written to a private file first and
 *   hard-linked to the lock name (link(2) fails with EEXIST when the name exists, so exactly one
 *   racer wins, and the lock is never seen half-written). Where the file system has no hard links
 *   (FAT/exFAT drives) an exclusive create (`open(…, 'wx')`) is used instead.
 * - The owner is the pid *and* the process start time (field 22 of /proc/<pid>/stat, in clock
 *   ticks since boot) and the host name, so a pid the kernel has since given to another process
 *   is not mistaken for the owner. Off Linux the start time is unknown and the pid alone decides.
 * - A lock is broken only when that exact process is gone, and breaking is serialised by a
 *   second, short-lived lock (`<lock>.break`): its holder re-reads the lock and removes it only
 *   if it still is the same dead owner's line, so two breakers can never remove a lock that a
 *   third process has just taken. The break lock is held for a read and an unlink; only if its
 *   holder died inside those few system calls is it removed by a later breaker (the one window
 *   left, and it needs a crash and two more racers in the same microseconds).
 *
 * Hand-written: proper-lockfile decides staleness by mtime age, which would break the lock of a
 * crawl that simply has not touched it for a while, and knows nothing of pids.
 */
import fs from 'node:fs';
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { TroveError } from '../errors.ts';

export interface LockOwner {
  pid: number;
  /** Process start time in clock ticks since boot (Linux), or null when unknown. */
  start: string | null;
  host: string;
}

/** Start time of `pid` from /proc (Linux), or null when it cannot be read. Zombies count as gone. */
export function processStartTime(pid: number): string | null | 'gone' {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ESRCH') return process.platform === 'linux' ? 'gone' : null;
    return null;
  }
  // The command name (field 2) is in parentheses and may itself hold spaces or ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z' || fields[0] === 'X') return 'gone';
  return fields[19] ?? null;
}

function me(): LockOwner {
  const start = processStartTime(process.pid);
  return { pid: process.pid, start: start === 'gone' ? null : start, host: os.hostname() };
}

/** Whether the process that wrote `owner` still runs (and is the same process, not a reused pid). */
export function ownerAlive(owner: LockOwner): boolean {
  // A lock written on another machine (a shared drive) cannot be checked from here: it holds.
  if (owner.host !== os.hostname()) return true;
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const start = processStartTime(owner.pid);
  if (start === 'gone') return false;
  return owner.start === null || start === null || start === owner.start;
}

/** The owner named in a lock file; a bare pid (older Trove) is read too. Null when absent or unreadable. */
export function readLockOwner(file: string): LockOwner | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  return parseOwner(text);
}

function parseOwner(text: string): LockOwner | null {
  if (/^\d+\s*$/.test(text)) return { pid: Number(text), start: null, host: os.hostname() };
  try {
    const o = JSON.parse(text) as Partial<LockOwner>;
    if (typeof o.pid !== 'number') return null;
    return { pid: o.pid, start: typeof o.start === 'string' ? o.start : null, host: typeof o.host === 'string' ? o.host : os.hostname() };
  } catch {
    return null;
  }
}

/** Create `file` holding `line`, atomically; false when it already exists. */
function createExclusive(file: string, line: string): boolean {
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
  fs.writeFileSync(tmp, line);
  try {
    fs.linkSync(tmp, file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  // No hard links here: an exclusive create, written at once (a reader that finds it empty retries).
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    fs.writeSync(fd, line);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

const pause = new Int32Array(new SharedArrayBuffer(4));
function sleepSync(ms: number): void {
  Atomics.wait(pause, 0, 0, ms);
}

export type LockAttempt = { ok: true; release: () => void } | { ok: false; owner: LockOwner };

/**
 * Try once to take `file`. Returns the release function, or the live owner that holds it. A
 * dead owner's lock is broken (see the file comment) and taking it is tried again.
 */
export function tryLock(file: string): LockAttempt {
  const owner = me();
  const line = JSON.stringify(owner);
  // Bounded: each round either takes the lock, finds a live owner, or removes a dead one.
  for (let round = 0; round < 2000; round++) {
    if (createExclusive(file, line)) {
      return {
        ok: true,
        release: () => {
          try {
            if (fs.readFileSync(file, 'utf8') === line) fs.rmSync(file);
          } catch {
            /* already gone */
          }
        },
      };
    }
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue; // released between our create and our read: try again
    }
    const holder = parseOwner(text);
    if (!holder) {
      // Being written by a 'wx' creator, or damaged: look again shortly; damaged for good is refused.
      if (round < 50) {
        sleepSync(1);
        continue;
      }
      return { ok: false, owner: { pid: 0, start: null, host: os.hostname() } };
    }
    if (ownerAlive(holder)) return { ok: false, owner: holder };
    if (!breakStale(file, text, line)) sleepSync(1); // another process is breaking it: give it a moment
  }
  throw new TroveError('LOCK_CONTENDED', `could not take the lock ${file}: it kept changing hands`, { file });
}

/** Remove `file` if it still holds `staleText`, under the break lock. False when someone else holds that. */
function breakStale(file: string, staleText: string, line: string): boolean {
  const breakFile = `${file}.break`;
  if (!createExclusive(breakFile, line)) {
    const breaker = readLockOwner(breakFile);
    if (breaker && !ownerAlive(breaker)) fs.rmSync(breakFile, { force: true });
    return false;
  }
  try {
    let now: string | null = null;
    try {
      now = fs.readFileSync(file, 'utf8');
    } catch {
      /* gone already */
    }
    if (now === staleText) fs.rmSync(file, { force: true });
  } finally {
    fs.rmSync(breakFile, { force: true });
  }
  return true;
}

/** Describe an owner for a message: "process 1234" (plus the host when it is another machine). */
export function describeOwner(owner: LockOwner): string {
  if (owner.pid === 0) return 'an unknown process (the lock file is damaged)';
  return `process ${owner.pid}${owner.host !== os.hostname() ? ` on ${owner.host}` : ''}`;
}
