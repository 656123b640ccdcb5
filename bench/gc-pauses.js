/**
 * Preloaded with `--import` (in every thread: the crawl thread and each extraction worker):
 * the number of V8 collections by kind and the sum of their pauses on that thread, plus the
 * heap's spaces (resident / used) at the end, appended as one JSON line per thread to $GC_OUT
 * (tagged with $GC_TAG). What a young-generation or heap-growing flag costs is then counted in
 * collections and pause milliseconds, which scatter far less on a shared machine than CPU
 * seconds do (issue 20). E.g. with bench/cli-crawl-rss-bench.ts:
 *
 *   --variant='semi2|--max-semi-space-size=2 --import /abs/bench/gc-pauses.js|GC_OUT=/tmp/gc.jsonl,GC_TAG=semi2'
 *
 * Pauses are the main-thread part of each collection; V8's helper threads' share shows in
 * crawl-ab-bench.ts's "V8 helpers" column. Plain JavaScript: it loads before any TypeScript.
 */
import fs from 'node:fs';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import v8 from 'node:v8';
import { isMainThread } from 'node:worker_threads';

const out = process.env.GC_OUT;
const MIB = 1024 * 1024;
const kinds = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak',
};
/** @type {Record<string, { count: number, ms: number }>} */
const totals = {};

function line() {
  const spaces = {};
  for (const s of v8.getHeapSpaceStatistics()) {
    if (s.physical_space_size > 0) spaces[s.space_name.replace(/_space$/, '')] = [+(s.physical_space_size / MIB).toFixed(1), +(s.space_used_size / MIB).toFixed(1)];
  }
  const gc = Object.fromEntries(Object.entries(totals).map(([k, t]) => [k, { count: t.count, ms: Math.round(t.ms) }]));
  return JSON.stringify({ tag: process.env.GC_TAG ?? '', thread: isMainThread ? 'main' : 'worker', gc, spaces }) + '\n';
}

if (out) {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = kinds[e.detail?.kind] ?? 'other';
      const t = (totals[kind] ??= { count: 0, ms: 0 });
      t.count++;
      t.ms += e.duration;
    }
  }).observe({ entryTypes: ['gc'] });
  if (isMainThread) process.on('exit', () => fs.appendFileSync(out, line()));
  else {
    // A terminated worker gets no 'exit' event of its own: its figures are kept current in a
    // side file (one per thread, overwritten) and appended by the main thread at exit.
    const side = `${out}.worker-${process.pid}-${Math.random().toString(36).slice(2)}`;
    setInterval(() => fs.writeFileSync(side, line()), 100).unref();
  }
  if (isMainThread) {
    process.on('exit', () => {
      const dir = out.slice(0, out.lastIndexOf('/') + 1) || './';
      const base = out.slice(dir.length);
      for (const f of fs.readdirSync(dir)) {
        if (f.startsWith(`${base}.worker-${process.pid}-`)) {
          fs.appendFileSync(out, fs.readFileSync(dir + f, 'utf8'));
          fs.rmSync(dir + f);
        }
      }
    });
  }
}
