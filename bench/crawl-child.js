/**
 * One crawl in a fresh process, so its peak RSS is its own: `node bench/crawl-child.js <dir>
 * <settings-json>` prints one JSON line with the time, the CPU time (all threads, and by thread
 * name: thread-cpu.js), the peak RSS and the URLs fetched with 200.
 * Starts like the `trove` CLI (bin/trove.js): JavaScript, with the compile cache on, before the
 * TypeScript core loads.
 */
import fs from 'node:fs';
import path from 'node:path';
import { enableCompileCache } from '../bin/compile-cache.js';
import { threadCpuMs } from './thread-cpu.js';

enableCompileCache();
const { startCrawl } = await import('../core/crawl/start-crawl.ts');

const [dir, json] = process.argv.slice(2);
const t0 = performance.now();
const crawl = await startCrawl({ dir, settings: JSON.parse(json) });
const final = await crawl.finished();
const ms = performance.now() - t0;
const threads = threadCpuMs();
const ok200 = fs
  .readFileSync(path.join(dir, 'logs', 'crawl.log'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => l.split(/\s+/))
  .filter((f) => f[1] === '200')
  .map((f) => f[3]);
process.stdout.write(
  JSON.stringify({ ms, cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000, maxRssMb: process.resourceUsage().maxRSS / 1024, downloaded: final.downloaded, failed: final.failed, state: final.state, reason: final.finishReason, threads, ok200 }) + '\n',
);
