/**
 * One crawl in a fresh process that samples itself as it goes (bench/crawl100k-bench.ts):
 * `node bench/crawl-sample-child.js <dir> <settings-json> <marks-json>` prints one JSON line with
 * the time, CPU time (all threads), peak RSS, and for each mark (a count of finished URIs, or of
 * pages) the elapsed time, CPU time and RSS when the crawl passed it.
 * Starts like the `trove` CLI (bin/trove.js): JavaScript, with the compile cache on, before the
 * TypeScript core loads. Sampling reads the controller's snapshot every 250 ms, which costs
 * the crawl next to nothing.
 *
 * With `detail: true` in the marks, each hit also carries a memory breakdown (memory-detail.js:
 * smaps grouped, both threads' V8 statistics, SQLite connections), and `peaks` holds one taken
 * each time RSS passes its previous high by 4 MiB (at most one every 2 s). To reach the
 * extraction workers and SQLite connections without changing the core, the child wraps
 * worker_threads' Worker and better-sqlite3's `pragma` (every Trove connection sets pragmas when
 * it opens) before the core loads. `BENCH_SQLITE_PRAGMAS="cache_size=-4096;…"` applies pragmas to
 * every connection open once the crawl has started: an A/B of SQLite settings without a build.
 * `BENCH_HEAP_SNAPSHOTS="8000,20000"` writes a V8 heap snapshot of the crawl thread into the
 * working directory (as Node's own snapshot flags do) as the crawl passes each of those counts of
 * URIs; bench/heap-snapshot-diff.js compares two.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import v8 from 'node:v8';
import { enableCompileCache } from '../bin/compile-cache.js';
import { memoryDetail } from './memory-detail.js';
import { threadCpuMs } from './thread-cpu.js';

const [dir, json, marksJson] = process.argv.slice(2);
/** @type {{ uris: number[]; pages: number[]; detail?: boolean }} */
const marks = JSON.parse(marksJson);

const require = createRequire(import.meta.url);
/** @type {Set<import('node:worker_threads').Worker>} */
const workers = new Set();
/** @type {Set<import('better-sqlite3').Database>} */
const connections = new Set();
if (marks.detail) {
  const wt = require('node:worker_threads');
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
const Database = require('better-sqlite3');
const pragma = Database.prototype.pragma;
Database.prototype.pragma = function (...args) {
  connections.add(this);
  return pragma.apply(this, args);
};

enableCompileCache();
const { startCrawl } = await import('../core/crawl/start-crawl.ts');
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const t0 = performance.now();
const crawl = await startCrawl({ dir, settings: JSON.parse(json) });
for (const p of (process.env.BENCH_SQLITE_PRAGMAS ?? '').split(';').filter(Boolean)) {
  for (const db of connections) if (db.open) pragma.call(db, p);
}
const dbFile = path.resolve(dir, 'crawl.sqlite');
const hits = { uris: [], pages: [], peaks: [] };
const pending = [];
const detail = (at) => {
  if (marks.detail) pending.push(memoryDetail([...workers], dbFile).then((d) => (at.detail = { ...d, sqliteCacheKib: [...connections].filter((c) => c.open).map((c) => -pragma.call(c, 'cache_size', { simple: true })) })));
};
const snapshotAt = (process.env.BENCH_HEAP_SNAPSHOTS ?? '').split(',').filter(Boolean).map(Number);
let peakDetailMb = 0;
let peakDetailMs = -Infinity;
const sample = (s = crawl.snapshot()) => {
  const at = { ms: performance.now() - t0, cpuMs: cpuMs(), rssMb: process.memoryUsage.rss() / 2 ** 20, uris: s.downloaded + s.failed, pages: s.pages, bytes: s.bytes };
  while (snapshotAt.length > 0 && at.uris >= snapshotAt[0]) v8.writeHeapSnapshot(`crawl-${snapshotAt.shift()}.heapsnapshot`);
  let hit = false;
  while (hits.uris.length < marks.uris.length && at.uris >= marks.uris[hits.uris.length]) hits.uris.push(at), (hit = true);
  while (hits.pages.length < marks.pages.length && at.pages >= marks.pages[hits.pages.length]) hits.pages.push(at), (hit = true);
  if (hit) detail(at);
  else if (marks.detail && at.rssMb > peakDetailMb + 4 && at.ms > peakDetailMs + 2000) {
    peakDetailMb = at.rssMb;
    peakDetailMs = at.ms;
    hits.peaks.push(at);
    detail(at);
  }
};
const timer = setInterval(sample, 250);
const final = await crawl.finished();
clearInterval(timer);
sample(final); // the marks the last quarter-second passed
await Promise.all(pending);
const ms = performance.now() - t0;
process.stdout.write(
  JSON.stringify({ ms, cpuMs: cpuMs(), threads: threadCpuMs(), maxRssMb: process.resourceUsage().maxRSS / 1024, downloaded: final.downloaded, failed: final.failed, pages: final.pages, bytes: final.bytes, warcBytes: final.warcBytes, state: final.state, reason: final.finishReason, hits }) + '\n',
);
