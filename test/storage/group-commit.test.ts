/**
 * The group commit owner on real SQLite files: units share one transaction that a second
 * connection (a reader, as the UI is) sees only once committed, by size or by the timer (a fake
 * timer seam here, no wall clock); a unit that throws before it writes leaves the group as it
 * was, one that throws after it wrote loses the group and units then run in savepoints (rolled
 * back alone); and a group SQLite rolls
 * back, whether a statement meets `max_page_count` or the COMMIT itself is refused by a really
 * full disk (a tiny tmpfs; needs root to mount, skipped otherwise), is reported once, refuses
 * further units with the cause's code until recovered, and leaves the file as it was before the
 * group.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { canMountTmpfs, tryMountTmpfs } from '../helpers/tmpfs-mount.ts';
import { atomic, GroupCommit, isGroupLostError } from '../../core/storage/group-commit.ts';
import { closeDatabase, openDatabase } from '../../core/storage/open-database.ts';
import { isDiskFullError } from '../../core/crawl/disk-guard.ts';

const dirs: string[] = [];
function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-group-'));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A manual timer: the test decides when "maxDelayMs" has passed. */
function manualTimer() {
  let pending: (() => void) | null = null;
  return {
    setTimer: (fn: () => void) => {
      pending = fn;
      return () => {
        if (pending === fn) pending = null;
      };
    },
    fire: () => {
      const fn = pending;
      pending = null;
      fn?.();
    },
    armed: () => pending !== null,
  };
}

function setup(dir: string, maxUnits = 3) {
  const file = path.join(dir, 'g.sqlite');
  const db = openDatabase(file);
  db.exec('CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
  const reader = new Database(file, { readonly: true });
  const timer = manualTimer();
  const group = new GroupCommit(db, { maxUnits, maxDelayMs: 200, setTimer: timer.setTimer });
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
  const seen = () => (reader.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n;
  const own = () => (db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n;
  const add = (v: string) => group.unit(() => db.transaction(() => insert.run(v))());
  return { db, reader, timer, group, insert, seen, own, add, file };
}

/** One row committed, then an open group holding one more, with its losses recorded. */
function committedThenOpen(maxUnits: number) {
  const s = setup(tempDir(), maxUnits);
  s.group.open();
  s.add('committed');
  s.group.commit();
  const lost: unknown[] = [];
  s.group.listen({ lost: (err) => lost.push(err) });
  s.add('in the group');
  return { s, lost };
}

describe('group commit', () => {
  it('commits many units as one transaction: when full, on the timer, and on demand', () => {
    const s = setup(tempDir());
    s.group.open();
    expect(s.timer.armed()).toBe(true);
    s.add('a');
    s.add('b');
    s.add('c');
    // The writer sees its own group; another connection sees nothing yet.
    expect(s.own()).toBe(3);
    expect(s.seen()).toBe(0);
    // Full: the next unit commits the three before it runs (it joins the next group).
    s.add('d');
    expect(s.seen()).toBe(3);
    expect(s.group.units).toBe(1);
    // The timer commits a group that is not full.
    s.timer.fire();
    expect(s.seen()).toBe(4);
    expect(s.timer.armed()).toBe(true);
    s.add('e');
    s.group.commit();
    expect(s.seen()).toBe(5);
    // Suspended, writes commit one at a time.
    s.group.suspend();
    expect(s.group.state).toBe('idle');
    expect(s.timer.armed()).toBe(false);
    s.add('f');
    expect(s.seen()).toBe(6);
    expect(s.group.committed).toBe(4);
    s.reader.close();
    closeDatabase(s.db);
  });

  it('runs before/after listeners around each COMMIT', () => {
    const s = setup(tempDir());
    const said: string[] = [];
    s.group.listen({ beforeCommit: () => said.push(`before ${s.seen()}`), afterCommit: () => said.push(`after ${s.seen()}`) });
    s.group.open();
    s.add('a');
    s.group.commit();
    expect(said).toEqual(['before 0', 'after 1']);
    s.reader.close();
    closeDatabase(s.db);
  });

  it('a unit that throws before it writes leaves the group as it was; the rest commits', () => {
    const s = setup(tempDir(), 10);
    s.group.open();
    s.add('a');
    const addChecked = atomic(s.db, (v: string) => {
      if (v === 'refused') throw new Error('refused before writing');
      s.insert.run(v);
    });
    expect(() => s.group.unit(() => addChecked('refused'))).toThrow('refused before writing');
    expect(s.group.state).toBe('open');
    s.group.unit(() => addChecked('b'));
    s.group.commit();
    expect(s.group.flatUnits).toBe(true);
    expect((s.reader.prepare('SELECT group_concat(v) AS v FROM t').get() as { v: string }).v).toBe('a,b');
    s.reader.close();
    closeDatabase(s.db);
  });

  it('a unit that throws after it wrote loses its group (no savepoint to take it out alone); units then run in savepoints and roll back alone', () => {
    const { s, lost } = committedThenOpen(10);
    const addThenFail = atomic(s.db, (v: string) => {
      s.insert.run(v);
      throw new Error('boom after a write');
    });
    let caught: unknown;
    try {
      s.group.unit(() => addThenFail('half'));
    } catch (err) {
      caught = err;
    }
    expect(isGroupLostError(caught)).toBe(true);
    expect(isDiskFullError(caught)).toBe(false);
    expect(lost).toHaveLength(1);
    expect(s.group.state).toBe('lost');
    // The whole group is gone, the half unit with it; what committed before stays.
    expect(s.db.inTransaction).toBe(false);
    expect(s.own()).toBe(1);
    s.group.recover();
    s.group.open();
    expect(s.group.flatUnits).toBe(false);
    // From now on a unit runs in a savepoint: the same failure rolls back alone.
    s.add('a');
    expect(() => s.group.unit(() => addThenFail('doomed'))).toThrow('boom after a write');
    expect(s.group.state).toBe('open');
    s.add('b');
    s.group.commit();
    expect((s.reader.prepare('SELECT group_concat(v) AS v FROM t').get() as { v: string }).v).toBe('committed,a,b');
    s.reader.close();
    closeDatabase(s.db);
  });

  it('a statement meeting max_page_count loses the whole group: reported once, later units refused until recovered', () => {
    const { s, lost } = committedThenOpen(10_000);
    s.db.pragma(`max_page_count = ${s.db.pragma('page_count', { simple: true })}`);
    let caught: unknown;
    try {
      for (let i = 0; i < 10_000; i++) s.add('x'.repeat(500));
    } catch (err) {
      caught = err;
    }
    expect((caught as { code?: string }).code).toBe('SQLITE_FULL');
    expect(s.group.state).toBe('lost');
    expect(lost).toHaveLength(1);
    expect(s.group.lostGroups).toBe(1);
    // SQLite rolled back everything since the last COMMIT.
    expect(s.db.inTransaction).toBe(false);
    expect(s.own()).toBe(1);
    // Until recovered, a unit does not run, and the error says "disk full" to the crawl.
    let ran = false;
    let refused: unknown;
    try {
      s.group.unit(() => (ran = true));
    } catch (err) {
      refused = err;
    }
    expect(ran).toBe(false);
    expect(isGroupLostError(refused)).toBe(true);
    expect(isDiskFullError(refused)).toBe(true);
    expect(() => s.group.commit()).toThrow(/rolled back a group/);
    // Open does not reopen a lost group; recover does, once the cause is gone.
    s.group.open();
    expect(s.group.state).toBe('lost');
    s.db.pragma('max_page_count = 1073741823');
    s.group.recover();
    s.group.open();
    s.add('after');
    s.group.commit();
    expect((s.reader.prepare('SELECT group_concat(v) AS v FROM t').get() as { v: string }).v).toBe('committed,after');
    s.reader.close();
    closeDatabase(s.db);
  });
});

if (!canMountTmpfs) console.warn('group commit on a full disk skipped: it mounts a small tmpfs, which needs root (CI runs as root)');

describe.skipIf(!canMountTmpfs)('group commit on a really full disk', () => {
  it('a COMMIT the disk refuses loses the group, leaves the file as before it, and writes go on once space is back', () => {
    const dir = tempDir();
    tryMountTmpfs(dir, '2m');
    try {
      const s = setup(dir, 1_000_000);
      s.group.open();
      s.add('committed');
      s.group.commit();
      const lost: unknown[] = [];
      s.group.listen({ lost: (err) => lost.push(err) });
      // Fill the disk but for a few pages, then make a group larger than that (it fits the
      // 16 MiB page cache, so nothing reaches the WAL before COMMIT).
      const filler = path.join(dir, 'filler');
      const free = () => fs.statfsSync(dir).bavail * fs.statfsSync(dir).bsize;
      fs.writeFileSync(filler, Buffer.alloc(Math.max(0, free() - 64 * 1024)));
      for (let i = 0; i < 200; i++) s.add(`${i} ${'y'.repeat(2000)}`);
      expect(s.seen()).toBe(1);
      let refused: unknown;
      try {
        s.group.commit();
      } catch (err) {
        refused = err;
      }
      expect(isDiskFullError(refused)).toBe(true);
      expect(s.group.state).toBe('lost');
      expect(lost).toHaveLength(1);
      expect(s.db.inTransaction).toBe(false);
      expect(s.own()).toBe(1);
      expect(s.seen()).toBe(1);
      fs.rmSync(filler);
      s.group.recover();
      s.group.open();
      s.add('after');
      s.group.commit();
      expect(s.seen()).toBe(2);
      s.reader.close();
      closeDatabase(s.db);
    } finally {
      execFileSync('umount', [dir]);
    }
  });
});
