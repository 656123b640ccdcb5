/**
 * One crawl in a fresh process that samples its own ArrayBuffer memory every 20 ms
 * (bench/body-buffers-bench.ts): `node bench/buffers-sample-child.js <tree> <dir> <settings-json>`
 * starts the crawl of the checkout at <tree> in-process, as bench/crawl-sample-child.js does, and
 * prints one JSON line with the peak and the distribution of `process.memoryUsage().arrayBuffers`
 * (the crawl thread's bodies in flight, their copies and their garbage) and of RSS. Taking the
 * tree as an argument lets one script sample a baseline checkout and this one alike.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [tree, dir, json] = process.argv.slice(2);
const { enableCompileCache } = await import(pathToFileURL(path.join(tree, 'bin', 'compile-cache.js')).href);
enableCompileCache();
const { startCrawl } = await import(pathToFileURL(path.join(tree, 'core', 'crawl', 'start-crawl.ts')).href);

const ab = [];
const rss = [];
/** process.memoryUsage() when RSS peaked, in MiB. */
let atPeak = { rss: 0 };
const sample = () => {
  const m = process.memoryUsage();
  ab.push(m.arrayBuffers / 2 ** 20);
  rss.push(m.rss / 2 ** 20);
  if (m.rss / 2 ** 20 > atPeak.rss) atPeak = Object.fromEntries(Object.entries(m).map(([k, v]) => [k, Math.round((v / 2 ** 20) * 10) / 10]));
};
const crawl = await startCrawl({ dir, settings: JSON.parse(json) });
const timer = setInterval(sample, 20);
const final = await crawl.finished();
clearInterval(timer);
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))] ?? 0;
};
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
process.stdout.write(
  JSON.stringify({
    samples: ab.length,
    downloaded: final.downloaded,
    arrayBuffersMb: { max: pct(ab, 100), p99: pct(ab, 99), p90: pct(ab, 90), p50: pct(ab, 50), mean: mean(ab) },
    rssMb: { max: pct(rss, 100), p90: pct(rss, 90), p50: pct(rss, 50) },
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    atPeakMb: atPeak,
  }) + '\n',
);
