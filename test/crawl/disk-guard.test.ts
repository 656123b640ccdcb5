/**
 * The disk guard's parts on a real database and, where mounting is allowed, a real 2 MiB tmpfs:
 * the checkpoint truncates the write-ahead log to nothing, the free-space check keeps the WAL's
 * room to grow on top of --min-free-disk, and the write probe fails on a full disk (even when a
 * database write would still fit in the WAL) and succeeds once space is freed. The whole crawl
 * through a full disk is test/crawl/disk-full.test.ts.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DiskGuard, isDiskFullError, PROBE_BYTES } from '../../core/crawl/disk-guard.ts';
import { TroveError } from '../../core/errors.ts';
import { closeDatabase, openDatabase, WAL_MAX_BYTES } from '../../core/storage/open-database.ts';
import { setMeta } from '../../core/storage/meta.ts';

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) {
    try {
      execFileSync('umount', ['-l', r], { stdio: 'ignore' });
    } catch {
      /* not a mount */
    }
    fs.rmSync(r, { recursive: true, force: true });
  }
});

function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-guard-'));
  roots.push(d);
  return d;
}

function guardIn(dir: string, minFreeBytes: number) {
  const dbFile = path.join(dir, 'crawl.sqlite');
  const db = openDatabase(dbFile);
  return { db, dbFile, guard: new DiskGuard({ dir, minFreeBytes, db, dbFile, probeFile: path.join(dir, '.disk-probe') }) };
}

describe('disk guard', () => {
  it('checkpoints the WAL down to nothing, and counts its room to grow as space to keep free', () => {
    const dir = tempDir();
    const { db, dbFile, guard } = guardIn(dir, 1);
    try {
      for (let i = 0; i < 200; i++) setMeta(db, `k${i}`, 'x'.repeat(1000));
      const wal = () => fs.statSync(`${dbFile}-wal`).size;
      expect(wal()).toBeGreaterThan(100_000);
      expect(guard.checkpoint()).toBe(true);
      expect(wal()).toBe(0);
      // Off (0): never short. On: short by what the WAL may still take, when the disk has less.
      expect(new DiskGuard({ dir, minFreeBytes: 0, db, dbFile, probeFile: '' }).shortfall()).toBeNull();
      const st = fs.statfsSync(dir);
      const free = st.bavail * st.bsize;
      const nearly = new DiskGuard({ dir, minFreeBytes: free - WAL_MAX_BYTES / 2, db, dbFile, probeFile: '' });
      expect(nearly.shortfall()).toMatchObject({ needed: free - WAL_MAX_BYTES / 2 + WAL_MAX_BYTES });
      expect(guard.probe()).toBeNull();
      expect(fs.existsSync(path.join(dir, '.disk-probe'))).toBe(false);
    } finally {
      closeDatabase(db);
    }
  });

  it('knows a full disk in every layer’s words', () => {
    expect(isDiskFullError(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }))).toBe(true);
    expect(isDiskFullError(Object.assign(new Error('no space left'), { code: 'ENOSPC' }))).toBe(true);
    expect(isDiskFullError(new TroveError('WARC_WRITE_FAILED', 'writing the WARC failed'))).toBe(true);
    expect(isDiskFullError(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }))).toBe(false);
    expect(isDiskFullError(new Error('boom'))).toBe(false);
  });

  it('probes with real writes: refused on a full disk, accepted once space is freed', (ctx) => {
    const dir = tempDir();
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', dir], { stdio: 'ignore' });
    } catch {
      ctx.skip('mounting a tmpfs needs root');
    }
    const { db, guard } = guardIn(dir, 0);
    try {
      const filler = path.join(dir, 'filler');
      const st = fs.statfsSync(dir);
      // Leave less than a probe's worth: a small database write may still fit, the probe must not.
      fs.writeFileSync(filler, Buffer.alloc(Math.max(0, st.bavail * st.bsize - PROBE_BYTES / 2)));
      expect(guard.probe()).toMatch(/ENOSPC|no space/i);
      expect(fs.existsSync(path.join(dir, '.disk-probe'))).toBe(false);
      fs.rmSync(filler);
      expect(guard.probe()).toBeNull();
    } finally {
      closeDatabase(db);
    }
  });
});
