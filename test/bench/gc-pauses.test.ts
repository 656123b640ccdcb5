/**
 * bench/gc-pauses.js on a real process: preloaded into a main thread and a worker that both
 * allocate, the worker terminated (as the crawl's extraction worker is, with no exit event of its
 * own), it reports each thread's collections and heap spaces, one JSON line per thread.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-gc-pauses-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const probe = path.resolve(import.meta.dirname, '../../bench/gc-pauses.js');

// Short-lived objects in slices, with the event loop turning between them so the worker's
// side file is written; the main thread terminates the worker when it says it is done.
const SCRIPT = `
import { Worker, isMainThread, parentPort } from 'node:worker_threads';
async function churn(ms) {
  const end = performance.now() + ms;
  let keep = [];
  while (performance.now() < end) {
    for (let i = 0; i < 2e5; i++) keep.push({ i, s: 'x' + i });
    keep = [];
    await new Promise((r) => setTimeout(r, 5));
  }
}
if (isMainThread) {
  const w = new Worker(new URL(import.meta.url));
  await churn(200);
  await new Promise((r) => w.once('message', r));
  await w.terminate();
} else {
  await churn(400);
  // Past two of the probe's 100 ms ticks (timers fire in order of expiry): its side file is
  // written after the last collection, however slowly the machine runs.
  await new Promise((r) => setTimeout(r, 250));
  parentPort.postMessage('done');
  await new Promise(() => setInterval(() => {}, 1000));
}
`;

it('counts each thread’s collections and reads its heap spaces, a terminated worker too', () => {
  const script = path.join(dir, 'churn.mjs');
  fs.writeFileSync(script, SCRIPT);
  const out = path.join(dir, 'gc.jsonl');
  const r = spawnSync(process.execPath, ['--max-semi-space-size=1', '--import', probe, script], {
    encoding: 'utf8',
    env: { ...process.env, GC_OUT: out, GC_TAG: 'test' },
  });
  expect(r.status, r.stderr).toBe(0);

  const lines = fs.readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  expect(lines.map((l) => l.thread).sort()).toEqual(['main', 'worker']);
  for (const l of lines) {
    expect(l.tag).toBe('test');
    expect(l.gc.minor.count).toBeGreaterThan(0);
    expect(l.gc.minor.ms).toBeGreaterThanOrEqual(0);
    const [resident, used] = l.spaces.new as [number, number];
    expect(resident).toBeGreaterThan(0);
    expect(used).toBeLessThanOrEqual(resident);
    expect(l.spaces.old[0]).toBeGreaterThan(0);
  }
  // The worker's side file was folded into the output and removed.
  expect(fs.readdirSync(dir).filter((f) => f.startsWith('gc.jsonl.worker-'))).toEqual([]);
}, 60_000);
