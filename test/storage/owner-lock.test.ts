/**
 * The owner lock (crawl directories, archive imports): taking it is atomic, so of 8 processes
 * that try at the same instant exactly one wins, 50 rounds out of 50, whether the lock was free,
 * left by a dead process, or left under a pid the kernel has since given to a live process (same
 * pid, other start time). Losers name the winner. Real processes, real files.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ownerAlive, processStartTime, readLockOwner, tryLock } from '../../core/storage/owner-lock.ts';
import { makeTempDir } from './temp-dir.ts';

const RACERS = 8;
const ROUNDS = 50;

const temp = makeTempDir('trove-lock-');
afterAll(() => temp.remove());

/** Poll observable state with a bounded number of attempts (no fixed sleeps). */
async function until<T>(what: string, probe: () => T | undefined, attempts = 12_000): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const v = probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** A pid that no longer runs: a child that has exited and been reaped. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((r) => child.on('exit', r));
  return child.pid!;
}

describe('owner lock', () => {
  it('is refused while its owner lives, names the owner, and is released by it', () => {
    const file = path.join(temp.dir, 'simple.lock');
    const a = tryLock(file);
    expect(a.ok).toBe(true);
    const owner = readLockOwner(file)!;
    expect(owner.pid).toBe(process.pid);
    if (process.platform === 'linux') expect(owner.start).toMatch(/^\d+$/);
    // Our own process counts as a live owner too.
    const b = tryLock(file);
    expect(b).toMatchObject({ ok: false, owner: { pid: process.pid } });
    if (a.ok) a.release();
    expect(fs.existsSync(file)).toBe(false);
  });

  it('breaks a lock whose process is gone, or whose pid now belongs to another process', async () => {
    const file = path.join(temp.dir, 'stale.lock');
    fs.writeFileSync(file, JSON.stringify({ pid: await deadPid(), start: '1', host: os.hostname() }));
    const a = tryLock(file);
    expect(a.ok).toBe(true);
    if (a.ok) a.release();
    // Older Trove wrote a bare pid.
    fs.writeFileSync(file, String(await deadPid()));
    const b = tryLock(file);
    expect(b.ok).toBe(true);
    if (b.ok) b.release();
    if (process.platform === 'linux') {
      // Same pid as a live process (ours), another start time: a reused pid, not the owner.
      const reused = { pid: process.pid, start: String(Number(processStartTime(process.pid)) + 1), host: os.hostname() };
      expect(ownerAlive(reused)).toBe(false);
      fs.writeFileSync(file, JSON.stringify(reused));
      const c = tryLock(file);
      expect(c.ok).toBe(true);
      if (c.ok) c.release();
    }
  });

  it(`has exactly one winner when ${RACERS} processes race for it, ${ROUNDS} rounds of ${ROUNDS}`, async () => {
    const dir = path.join(temp.dir, 'race');
    fs.mkdirSync(dir);
    const lock = path.join(dir, 'race.lock');
    const racer = path.join(import.meta.dirname, 'lock-racer.ts');
    const children: ChildProcess[] = [];
    const exits: Promise<number | null>[] = [];
    for (let i = 0; i < RACERS; i++) {
      const child = spawn(process.execPath, [racer, dir, String(i), String(ROUNDS)], { stdio: ['ignore', 'ignore', 'inherit'] });
      children.push(child);
      exits.push(new Promise((r) => child.on('exit', (code) => r(code))));
    }
    const stalePid = await deadPid();
    try {
      const winners: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        // A third of the rounds start free, a third from a dead owner's lock, a third from a reused pid's.
        if (r % 3 === 1) fs.writeFileSync(lock, JSON.stringify({ pid: stalePid, start: '1', host: os.hostname() }));
        if (r % 3 === 2) fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, start: 'not-this-one', host: os.hostname() }));
        fs.writeFileSync(path.join(dir, `go-${r}`), '');
        const results = await until(`round ${r} results`, () => {
          const files = Array.from({ length: RACERS }, (_, i) => path.join(dir, `result-${r}-${i}`));
          return files.every((f) => fs.existsSync(f)) ? files.map((f) => fs.readFileSync(f, 'utf8')) : undefined;
        });
        const won = results.filter((x) => x.startsWith('won '));
        expect(won, `round ${r}: ${results.join(', ')}`).toHaveLength(1);
        const winner = Number(won[0]!.split(' ')[1]);
        winners.push(winner);
        // Every loser was told who holds it: the winner, never the stale owner.
        for (const x of results.filter((x) => x.startsWith('lost '))) expect(x, `round ${r}`).toBe(`lost ${winner}`);
        expect(readLockOwner(lock)?.pid).toBe(winner);
        fs.writeFileSync(path.join(dir, `release-${r}`), '');
        await until(`round ${r} release`, () => (fs.existsSync(lock) ? undefined : true));
      }
      expect(winners).toHaveLength(ROUNDS);
      expect(await Promise.all(exits)).toEqual(Array(RACERS).fill(0));
      // No private or break files left behind.
      expect(fs.readdirSync(dir).filter((n) => n.startsWith('race.lock'))).toEqual([]);
    } finally {
      for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    }
  }, 120_000);
});
