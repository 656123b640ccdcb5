/**
 * The crawl benches' measuring tools on real inputs: a CPU profile written by `node --cpu-prof`
 * for a process with a worker thread, the /proc thread CPU of a real worker, the `trove`
 * CLI's shebang as the benches read it, and the memory breakdown read from /proc/self/smaps.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliNodeEnv, cliNodeFlags } from '../../bench/cli-node-flags.ts';
import { formatSummary, moduleOf, summarizeProfiles } from '../../bench/cpu-profile-table.ts';
import Database from 'better-sqlite3';
import { memoryDetail } from '../../bench/memory-detail.js';
import { threadCpuMs } from '../../bench/thread-cpu.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-bench-tools-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

// Busy on the main thread in one named function, and in a worker thread in another.
const SCRIPT = `
import { Worker, isMainThread } from 'node:worker_threads';
function spinMain() { let s = 0; for (let i = 0; i < 3e7; i++) s += i % 7; return s; }
function spinWorker() { let s = 0; for (let i = 0; i < 3e7; i++) s += i % 5; return s; }
if (isMainThread) {
  spinMain();
  const w = new Worker(new URL(import.meta.url), { name: 'spinner' });
  await new Promise((r) => w.on('exit', r));
} else {
  spinWorker();
}
`;

describe('cpu-profile-table', () => {
  it('charges self time to functions and modules, main thread and worker apart', () => {
    const script = path.join(dir, 'spin.mjs');
    fs.writeFileSync(script, SCRIPT);
    const profiles = path.join(dir, 'profiles');
    const r = spawnSync(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${profiles}`, script], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);

    const s = summarizeProfiles(profiles);
    expect(s.threads.map((t) => t.main)).toEqual([true, false]);
    const main = s.byFunction.find((f) => f.name.startsWith('spinMain '));
    const worker = s.byFunction.find((f) => f.name.startsWith('spinWorker '));
    expect(main!.ms).toBeGreaterThan(0);
    expect(main!.mainMs).toBe(main!.ms);
    expect(worker!.ms).toBeGreaterThan(0);
    expect(worker!.mainMs).toBe(0);
    const table = formatSummary(s, 5);
    expect(table).toContain('| module | self ms | main | workers | share |');
    expect(table).toMatch(/spin(Main|Worker) spin\.mjs:\d+/);
  }, 60_000);

  it('names modules as the tables group them', () => {
    expect(moduleOf('file:///w/node_modules/parse5/dist/tokenizer/index.js', 'advance')).toBe('parse5');
    expect(moduleOf('file:///w/node_modules/@scope/pkg/lib/x.js', 'f')).toBe('@scope/pkg');
    expect(moduleOf('file:///w/core/extract/html-links.ts', 'onStartTag')).toBe('core/extract/html-links.ts');
    expect(moduleOf('node:internal/streams/writable', 'write')).toBe('node:internal');
    expect(moduleOf('node:zlib', 'processChunk')).toBe('node:zlib');
    expect(moduleOf('', '(garbage collector)')).toBe('(garbage collector)');
    expect(moduleOf('', 'postMessage')).toBe('(native)');
  });
});

describe('thread-cpu', () => {
  it.runIf(process.platform === 'linux')('reads the CPU of a named worker thread from /proc', async () => {
    const { Worker } = await import('node:worker_threads');
    // The worker stays alive after its answer (an interval holds its loop open) until terminate():
    // a worker with nothing left to do exits at once, and its thread may be gone from /proc
    // before it is read (this failed under load).
    const w = new Worker('let s = 0; for (let i = 0; i < 3e7; i++) s += i % 3; setInterval(() => {}, 60_000); require("node:worker_threads").parentPort.postMessage(s);', {
      eval: true,
      name: 'bench-spin',
    });
    await new Promise((r) => w.once('message', r));
    const cpu = threadCpuMs();
    await w.terminate();
    expect(cpu['bench-spin']).toBeGreaterThan(0);
    expect(cpu['MainThread']).toBeGreaterThan(0);
  }, 60_000);
});

describe('cli-node-flags', () => {
  it('reads the flags and the environment from bin/trove.js', () => {
    const first = fs.readFileSync(new URL('../../bin/trove.js', import.meta.url), 'utf8').split('\n', 1)[0]!;
    expect(first.startsWith('#!/usr/bin/env -S ')).toBe(true);
    const flags = cliNodeFlags();
    expect(flags).toContain('--max-semi-space-size=4');
    expect(flags.every((f) => f.startsWith('--'))).toBe(true);
    expect(cliNodeEnv().MALLOC_ARENA_MAX).toBe('2');
    expect(cliNodeEnv().MALLOC_MMAP_THRESHOLD_).toBe('131072');
    expect(cliNodeEnv().MALLOC_TRIM_THRESHOLD_).toBe('131072');
  });

  it("reads another checkout's shebang when given its directory", () => {
    const other = path.join(dir, 'other');
    fs.mkdirSync(path.join(other, 'bin'), { recursive: true });
    fs.writeFileSync(path.join(other, 'bin', 'trove.js'), '#!/usr/bin/env -S MALLOC_ARENA_MAX=4 node --max-semi-space-size=8\n');
    expect(cliNodeFlags(other)).toEqual(['--max-semi-space-size=8']);
    expect(cliNodeEnv(other).MALLOC_ARENA_MAX).toBe('4');
    expect(cliNodeEnv(other).MALLOC_MMAP_THRESHOLD_).toBe(process.env.MALLOC_MMAP_THRESHOLD_);
  });
});

describe('memory-detail', () => {
  it("accounts for this process's resident memory by kind of mapping and counts SQLite connections", async () => {
    const file = path.join(dir, 'detail.sqlite');
    const a = new Database(file);
    const b = new Database(file);
    a.exec('CREATE TABLE t (x)');
    try {
      const d = await memoryDetail([], file);
      const sum = Object.values(d.groups).reduce((s, v) => s + v, 0);
      // The groups partition smaps; smaps_rollup was read a moment later, so allow a little drift.
      expect(Math.abs(sum - d.rss)).toBeLessThan(0.05 * d.rss + 2);
      expect(d.groups.nodeBinary).toBeGreaterThan(0);
      expect(d.main.heapUsed).toBeGreaterThan(0);
      expect(d.sqliteConnections).toBe(2);
    } finally {
      a.close();
      b.close();
    }
  });
});
