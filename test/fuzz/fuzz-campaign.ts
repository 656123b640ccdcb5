/**
 * A fuzz campaign: `iterations` cases from one seed, run in a worker thread (fuzz-worker.ts)
 * under a watchdog. A case that stops reporting for `stallMs` is a hang: the worker is
 * terminated, the case recorded, and a fresh worker goes on with the next case. A worker that
 * dies (out of heap: a reader buffering without bound) records a memory failure the same way.
 * The process RSS is sampled throughout, so growth across thousands of cases shows.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { FuzzFailure, FuzzKind, WorkerInput, WorkerMessage } from './fuzz-worker.ts';

export type { FuzzFailure, FuzzKind } from './fuzz-worker.ts';

export interface CampaignOptions {
  kind: FuzzKind;
  seed: number;
  iterations: number;
  /** Per reader per case (default 2000 ms). */
  caseTimeoutMs?: number;
  /** No word from the worker for this long is a hang (default 10 s). */
  stallMs?: number;
  /** Worker heap limit (default 512 MB). */
  maxOldGenerationMb?: number;
  /** Where failing inputs are saved (default: a new temp dir). */
  dir?: string;
  onProgress?: (done: number, total: number) => void;
}

export interface CampaignResult {
  kind: FuzzKind;
  seed: number;
  cases: number;
  failures: FuzzFailure[];
  elapsedMs: number;
  slowestCaseMs: number;
  rssStartMb: number;
  rssPeakMb: number;
  /** RSS after the last case minus before the first (native allocations plateau: see heapGrowthMb for leaks). */
  rssGrowthMb: number;
  /**
   * Live JS heap after a forced GC at the end minus after the warm-up cases, for the worker that
   * ran the most cases; null when GC could not be forced. A leak in a reader shows here.
   */
  heapGrowthMb: number | null;
  /** How often each reader ended how (`records`/`entries` counts are folded to "ok"). */
  outcomes: Record<string, Record<string, number>>;
  dir: string;
}

const MB = 1024 * 1024;

export async function runFuzzCampaign(opts: CampaignOptions): Promise<CampaignResult> {
  const dir = opts.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), `trove-fuzz-${opts.kind}-`));
  const failures: FuzzFailure[] = [];
  const outcomes: Record<string, Record<string, number>> = {};
  const t0 = performance.now();
  const rssStart = process.memoryUsage().rss;
  let rssPeak = rssStart;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 50);
  let slowest = 0;
  let heap: { cases: number; growth: number } | null = null;
  let done = 0;
  let next = 0;
  try {
    while (next < opts.iterations) {
      let heapStart: { i: number; mb: number } | null = null;
      next = await runWorker(opts, dir, next, (m) => {
        if (m.type === 'failure') failures.push(m.failure);
        if (m.type === 'heap' && m.usedMb !== null) {
          if (heapStart === null) heapStart = { i: m.i, mb: m.usedMb };
          else if (heap === null || m.i - heapStart.i > heap.cases) heap = { cases: m.i - heapStart.i, growth: m.usedMb - heapStart.mb };
        }
        if (m.type === 'end') {
          slowest = Math.max(slowest, m.ms);
          done++;
          for (const [target, outcome] of Object.entries(m.outcomes)) {
            const key = /^\d+ /.test(outcome) ? 'ok' : outcome;
            const t = (outcomes[target] ??= {});
            t[key] = (t[key] ?? 0) + 1;
          }
          opts.onProgress?.(done, opts.iterations);
        }
      }, failures);
    }
  } finally {
    clearInterval(sampler);
  }
  const rssEnd = process.memoryUsage().rss;
  // Keep the directory only when it holds failing inputs (or the caller chose it).
  if (opts.dir === undefined && failures.length === 0) fs.rmSync(dir, { recursive: true, force: true });
  return {
    kind: opts.kind,
    seed: opts.seed,
    cases: done + failures.filter((f) => f.kind === 'hang' || f.kind === 'memory').length,
    failures,
    elapsedMs: Math.round(performance.now() - t0),
    slowestCaseMs: Math.round(slowest),
    rssStartMb: Math.round(rssStart / MB),
    rssPeakMb: Math.round(rssPeak / MB),
    rssGrowthMb: Math.round((rssEnd - rssStart) / MB),
    heapGrowthMb: heap === null ? null : Math.round((heap as { growth: number }).growth * 10) / 10,
    outcomes,
    dir,
  };
}

/** Run cases from `from` until done or the worker is lost; returns the next case to run. */
function runWorker(opts: CampaignOptions, dir: string, from: number, onMessage: (m: WorkerMessage) => void, failures: FuzzFailure[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const input: WorkerInput = { kind: opts.kind, seed: opts.seed, from, to: opts.iterations, caseTimeoutMs: opts.caseTimeoutMs ?? 2000, dir };
    const worker = new Worker(new URL('./fuzz-worker.ts', import.meta.url), {
      workerData: input,
      resourceLimits: { maxOldGenerationSizeMb: opts.maxOldGenerationMb ?? 512 },
    });
    const stallMs = opts.stallMs ?? 10_000;
    let current: Extract<WorkerMessage, { type: 'start' }> | null = null;
    let lastError: Error | null = null;
    let settled = false;
    let watchdog = setTimeout(onStall, stallMs * 3); // the first case waits for the corpus to load
    const feed = (): void => {
      clearTimeout(watchdog);
      watchdog = setTimeout(onStall, stallMs);
    };
    const lost = (kind: FuzzFailure['kind'], error: string): void => {
      if (current) {
        const { i, caseSeed, file, applied, savedAs } = current;
        failures.push({ i, caseSeed, file, applied, target: '(worker)', kind, error, savedAs });
      } else {
        failures.push({ i: from, caseSeed: -1, file: '-', applied: [], target: '(worker)', kind, error });
      }
    };
    function onStall(): void {
      if (settled) return;
      settled = true;
      lost('hang', `no progress for ${stallMs} ms: the case never returned (a synchronous loop or a promise that never settles)`);
      const resume = current ? current.i + 1 : from + 1;
      void worker.terminate().then(() => resolve(resume));
    }
    worker.on('message', (m: WorkerMessage) => {
      feed();
      if (m.type === 'start') current = m;
      onMessage(m);
      if (m.type === 'end') current = null;
      if (m.type === 'done') {
        settled = true;
        clearTimeout(watchdog);
        void worker.terminate().then(() => resolve(opts.iterations));
      }
    });
    worker.on('error', (err) => {
      lastError = err;
    });
    worker.on('exit', (code) => {
      clearTimeout(watchdog);
      if (settled) return;
      settled = true;
      const why = lastError?.message ?? `worker exited with code ${code}`;
      if (current === null && from === 0 && lastError && !/memory/i.test(why)) {
        reject(lastError); // the harness itself is broken (cannot load the corpus …)
        return;
      }
      // Out of heap: a reader buffered without bound. Anything else: an uncaught error killed it.
      lost(/memory/i.test(why) ? 'memory' : 'exception', lastError?.stack ?? why);
      resolve(current ? current.i + 1 : from + 1);
    });
  });
}

export function formatFailure(f: FuzzFailure, kind: FuzzKind): string {
  return [
    `${f.kind} in ${f.target}, case ${f.i} (seed ${f.caseSeed}) on ${f.file} after ${f.applied.join(' ; ')}`,
    `  reproduce: node bench/fuzz.ts 1 ${f.caseSeed} ${kind}${f.savedAs ? `   input saved as ${f.savedAs}` : ''}`,
    `  ${f.error.split('\n').slice(0, 6).join('\n  ')}`,
  ].join('\n');
}
