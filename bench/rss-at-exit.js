/**
 * Preloaded with `--import` into a `trove` CLI process by bench/cli-crawl-rss-bench.ts: at exit,
 * append one JSON line to $TROVE_RSS_OUT with the process's peak RSS and the kernel's split of
 * its resident memory (/proc/self/smaps_rollup: file-backed vs anonymous), so the CLI itself is
 * measured, flags, commander, progress and all, not a bench child that calls the core directly.
 * With TROVE_RSS_SAMPLE_MS, RSS is also read at that interval and, at each new high, the mappings
 * are grouped (bench/memory-detail.js) with the crawl thread's V8 figures: the breakdown at the
 * peak. With TROVE_NODE_PAGES=1, the node binary's resident pages at exit by what they hold
 * (bench/node-binary-pages.js). Plain JavaScript: it loads before any TypeScript.
 */
import fs from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import v8 from 'node:v8';
import { isMainThread } from 'node:worker_threads';
import { smapsGroups } from './memory-detail.js';
import { nodeBinaryResidency } from './node-binary-pages.js';

const MIB = 1024 * 1024;
const PAGE = 4096;
// `--import` preloads run in worker threads too: only the crawl thread samples and reports.
const out = isMainThread ? process.env.TROVE_RSS_OUT : undefined;
const every = Number(process.env.TROVE_RSS_SAMPLE_MS ?? 0);
let atPeak = null;

// The extraction worker's heap at the peak: reached by wrapping worker_threads' Worker before the
// core loads (as crawl-sample-child.js does), only when sampling.
/** @type {Set<import('node:worker_threads').Worker>} */
const workers = new Set();
if (out && every > 0) {
  const wt = createRequire(import.meta.url)('node:worker_threads');
  const Base = wt.Worker;
  wt.Worker = class extends Base {
    constructor(...args) {
      super(...args);
      workers.add(this);
      this.on('exit', () => workers.delete(this));
    }
  };
  syncBuiltinESMExports();
}

function rssBytes() {
  return Number(fs.readFileSync('/proc/self/statm', 'utf8').split(' ')[1]) * PAGE;
}

function breakdown(rss) {
  const { groups } = smapsGroups();
  const h = v8.getHeapStatistics();
  const m = process.memoryUsage();
  const mib = (n) => Math.round((n / MIB) * 10) / 10;
  return {
    rssMib: mib(rss),
    files: mib(groups.nodeBinary + groups.sharedLibs + groups.otherFiles),
    nodeBinary: mib(groups.nodeBinary),
    brk: mib(groups.mallocMain),
    threadArenas: mib(groups.mallocArenas),
    stacks: mib(groups.threadStacks),
    anonOther: mib(groups.anonOther),
    crawlHeapResident: mib(h.total_physical_size),
    crawlHeapUsed: mib(h.used_heap_size),
    external: mib(m.external),
    arrayBuffers: mib(m.arrayBuffers),
  };
}

// BENCH_SQLITE_PRAGMAS="cache_size=-4096;…": each pragma named there is set to that value instead
// whenever a connection sets it (every Trove connection sets its pragmas as it opens): an A/B of
// SQLite settings as the CLI runs, without a build.
const pragmaOverrides = new Map(
  (isMainThread ? (process.env.BENCH_SQLITE_PRAGMAS ?? '') : '')
    .split(';')
    .filter(Boolean)
    .map((p) => [p.slice(0, p.indexOf('=')).trim(), p]),
);
if (pragmaOverrides.size > 0) {
  const Database = createRequire(import.meta.url)('better-sqlite3');
  const pragma = Database.prototype.pragma;
  Database.prototype.pragma = function (source, ...rest) {
    const name = /^\s*(\w+)\s*=/.exec(source)?.[1];
    return pragma.call(this, (name && pragmaOverrides.get(name)) ?? source, ...rest);
  };
}

// TROVE_RSS_TRACE=FILE: every sample as a JSON line (ms since start, RSS, the crawl thread's heap
// and ArrayBuffers, the worker's heap), to see when in the crawl the peak comes.
const trace = process.env.TROVE_RSS_TRACE;
const t0 = performance.now();
if (out && every > 0) {
  let high = 0;
  setInterval(() => {
    const rss = rssBytes();
    if (trace) {
      const m = process.memoryUsage();
      const line = { ms: Math.round(performance.now() - t0), rss: +(rss / MIB).toFixed(1), heap: +(m.heapTotal / MIB).toFixed(1), used: +(m.heapUsed / MIB).toFixed(1), ab: +(m.arrayBuffers / MIB).toFixed(1) };
      Promise.all([...workers].map((w) => w.getHeapStatistics())).then(
        (ws) => fs.appendFileSync(trace, JSON.stringify({ ...line, worker: ws.map((w) => +(w.total_physical_size / MIB).toFixed(1)), workerUsed: ws.map((w) => +(w.used_heap_size / MIB).toFixed(1)) }) + '\n'),
        () => fs.appendFileSync(trace, JSON.stringify(line) + '\n'),
      );
    }
    if (rss > high + MIB) {
      high = rss;
      const at = breakdown(rss);
      atPeak = at;
      // Asked at once; the answer comes a few ms later (the worker may be busy with a page).
      for (const w of workers) {
        w.getHeapStatistics().then(
          (ws) => {
            at.workerHeapResident = (at.workerHeapResident ?? 0) + Math.round((ws.total_physical_size / MIB) * 10) / 10;
            at.workerHeapUsed = (at.workerHeapUsed ?? 0) + Math.round((ws.used_heap_size / MIB) * 10) / 10;
            at.workerExternal = (at.workerExternal ?? 0) + Math.round((ws.external_memory / MIB) * 10) / 10;
          },
          () => undefined,
        );
      }
    }
  }, every).unref();
}

process.on('exit', () => {
  if (!out) return;
  const t = fs.readFileSync('/proc/self/smaps_rollup', 'utf8');
  const kib = (k) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(t)?.[1] ?? NaN);
  const cpu = process.cpuUsage();
  fs.appendFileSync(
    out,
    JSON.stringify({ maxRssKib: process.resourceUsage().maxRSS, rssKib: kib('Rss'), anonKib: kib('Anonymous'), fileKib: kib('Rss') - kib('Anonymous'), cpuMs: (cpu.user + cpu.system) / 1000, atPeak, ...(process.env.TROVE_NODE_PAGES === '1' ? { nodeBinary: nodeBinaryResidency() } : {}) }) + '\n',
  );
});
