/**
 * One crawl (HTTP-only, auto or browser capture) in a fresh process for the browser bench: `node
 * bench/browser-crawl-child.js <dir> <settings-json>` prints one JSON line with the time, pages,
 * pages rendered, URIs, the peak RSS of this process *and every process under it* (Chromium's
 * browser, GPU and renderer processes), the peak PSS of the same tree (so pages shared between
 * Chromium's processes count once), the CPU of each process of the tree (its own, the crawl's,
 * and each of Chromium's by type: renderer, gpu-process, the browser process, utility services)
 * and the URLs archived. Memory and Chromium's CPU are sampled every 250 ms by a process of its
 * own (browser-bench-sampler.js); a process's CPU after its last sample is missed (a few ms). The
 * bench adds the CPU split up for its CPU per page (bash's `times` over this child misses
 * Chromium's renderers, which are not reaped back through the browser process). It also lists the
 * crawl's pages and those rendered (from crawl.log).
 */
import fs from 'node:fs';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { enableCompileCache } from '../bin/compile-cache.js';

enableCompileCache();
const { startCrawl } = await import('../core/crawl/start-crawl.ts');
const { readWarcDir } = await import('../test/helpers/read-warcs.ts');

const [dir, json] = process.argv.slice(2);
// The tree's memory and CPU, sampled by a process of its own (browser-bench-sampler.js says why).
const sampler = spawn(process.execPath, [fileURLToPath(new URL('./browser-bench-sampler.js', import.meta.url)), String(process.pid)], { stdio: ['ignore', 'pipe', 'inherit'] });
let sampled = '';
sampler.stdout.setEncoding('utf8').on('data', (d) => (sampled += d));
const t0 = performance.now();
const crawl = await startCrawl({ dir, settings: JSON.parse(json) });
const final = await crawl.finished();
const ms = performance.now() - t0;
const ended = new Promise((resolve) => sampler.on('exit', resolve));
sampler.kill('SIGTERM');
await ended;
const { peakRssMb, peakPssMb, cpuByType: chromium } = JSON.parse(sampled);
const cpuByType = { crawl: (process.cpuUsage().user + process.cpuUsage().system) / 1000, ...chromium };
const records = await readWarcDir(`${dir}/warcs`);
const archived = [...new Set(records.filter((r) => r.type === 'response' || r.type === 'revisit').map((r) => r.targetUri))];
// The crawl's pages (HTML answered 200) and those rendered in a browser, from crawl.log: what
// the bench's precision and recall of auto's decision are counted on.
const pageUrls = [];
const renderedUrls = [];
for (const line of fs.readFileSync(`${dir}/logs/crawl.log`, 'utf8').split('\n')) {
  const f = line.trim().split(/\s+/);
  if (f[1] !== '200' || !/^text\/html/.test(f[6] ?? '')) continue;
  pageUrls.push(f[3]);
  if (/(^|,)rendered:/.test(f.at(-1))) renderedUrls.push(f[3]);
}
process.stdout.write(JSON.stringify({ ms, pages: final.pages, rendered: final.rendered ?? 0, uris: final.downloaded + final.failed, peakRssMb, peakPssMb, state: final.state, reason: final.finishReason, cpuByType, archived, pageUrls, renderedUrls }) + '\n');
