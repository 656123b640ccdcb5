/**
 * One crawl in a fresh process that samples itself as it goes (bench/crawl100k-bench.ts):
 * `node bench/crawl-sample-child.js <dir> <settings-json> <marks-json>` prints one JSON line with
 * the time, CPU time (all threads), peak RSS, and for each mark (a count of finished URIs, or of
 * pages) the elapsed time, CPU time and RSS when the crawl passed it.
 * Starts like the `trove` CLI (bin/trove.js): JavaScript, with the compile cache on, before the
 * TypeScript core loads. Sampling reads the controller's snapshot every 250 ms, which costs
 * the crawl next to nothing.
 */
import { enableCompileCache } from '../bin/compile-cache.js';

enableCompileCache();
const { startCrawl } = await import('../core/crawl/start-crawl.ts');

const [dir, json, marksJson] = process.argv.slice(2);
/** @type {{ uris: number[]; pages: number[] }} */
const marks = JSON.parse(marksJson);
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const t0 = performance.now();
const crawl = await startCrawl({ dir, settings: JSON.parse(json) });
const hits = { uris: [], pages: [] };
const sample = (s = crawl.snapshot()) => {
  const at = { ms: performance.now() - t0, cpuMs: cpuMs(), rssMb: process.memoryUsage.rss() / 2 ** 20, uris: s.downloaded + s.failed, pages: s.pages, bytes: s.bytes };
  while (hits.uris.length < marks.uris.length && at.uris >= marks.uris[hits.uris.length]) hits.uris.push(at);
  while (hits.pages.length < marks.pages.length && at.pages >= marks.pages[hits.pages.length]) hits.pages.push(at);
};
const timer = setInterval(sample, 250);
const final = await crawl.finished();
clearInterval(timer);
sample(final); // the marks the last quarter-second passed
const ms = performance.now() - t0;
process.stdout.write(
  JSON.stringify({ ms, cpuMs: cpuMs(), maxRssMb: process.resourceUsage().maxRSS / 1024, downloaded: final.downloaded, failed: final.failed, pages: final.pages, bytes: final.bytes, warcBytes: final.warcBytes, state: final.state, reason: final.finishReason, hits }) + '\n',
);
