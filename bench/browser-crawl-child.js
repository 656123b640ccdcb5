/**
 * One crawl (HTTP-only, auto or browser capture) in a fresh process for the browser bench: `node
 * bench/browser-crawl-child.js <dir> <settings-json>` prints one JSON line with the time, pages,
 * pages rendered, URIs, the peak RSS of this process *and every process under it* (Chromium's
 * browser, GPU and renderer processes), sampled every 50 ms from /proc, the peak PSS of the same
 * tree (from /proc/<pid>/smaps_rollup, so pages shared between Chromium's processes count once;
 * sampled every 250 ms, a walk of each process's page tables), and the URLs archived. CPU time
 * including the browser is taken by the parent (bash `times` over this child, which waits for
 * Chromium); the child splits it by process: its own (the crawl), and each of Chromium's by type
 * (renderer, gpu-process, the browser process, utility services), from /proc/<pid>/stat sampled
 * every 250 ms (a process's CPU after its last sample is missed: a few ms). It also lists the
 * crawl's pages and those rendered (from crawl.log).
 */
import fs from 'node:fs';
import { enableCompileCache } from '../bin/compile-cache.js';

enableCompileCache();
const { startCrawl } = await import('../core/crawl/start-crawl.ts');
const { readWarcDir } = await import('../test/helpers/read-warcs.ts');

/** The pids of `root` and all its descendants, from /proc (Linux). */
function treePids(root) {
  const children = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${name}/status`, 'utf8'))?.[1] ?? 0);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(name));
    } catch {
      /* the process ended meanwhile */
    }
  }
  const out = [];
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop();
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** Proportional set size of `root` and its descendants: each shared page divided among its sharers. */
function treePssBytes(root) {
  let total = 0;
  for (const pid of treePids(root)) {
    try {
      total += Number(/^Pss:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0) * 1024;
    } catch {
      /* ended meanwhile */
    }
  }
  return total;
}

/** Resident bytes of `root` and all its descendants, from /proc (Linux). */
function treeRssBytes(root) {
  const children = new Map();
  const rss = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = fs.readFileSync(`/proc/${name}/status`, 'utf8');
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      const kb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      rss.set(Number(name), kb * 1024);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(name));
    } catch {
      /* the process ended meanwhile */
    }
  }
  let total = 0;
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop();
    total += rss.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

/** Last CPU ticks seen per process of the tree, and its Chromium process type. */
const cpuSeen = new Map();
function sampleCpu(root) {
  for (const pid of treePids(root)) {
    if (pid === root) continue;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(f[11]) + Number(f[12]);
      let type = cpuSeen.get(pid)?.type;
      // A zygote's child names its type once it has set its title: asked again until then.
      if (!type || type === 'zygote') {
        const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
        const t = /--type=(\S+)/.exec(cmd)?.[1];
        const sub = /--utility-sub-type=\S*?(\w+)(\s|$)/.exec(cmd)?.[1];
        type = /chrom/i.test(cmd) ? (t ? (sub ? `${t}:${sub}` : t) : 'browser') : 'other';
      }
      cpuSeen.set(pid, { type, ticks });
    } catch {
      /* ended meanwhile */
    }
  }
}

const [dir, json] = process.argv.slice(2);
let peak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, treeRssBytes(process.pid))), 50);
let peakPss = 0;
const pssSampler = setInterval(() => {
  peakPss = Math.max(peakPss, treePssBytes(process.pid));
  sampleCpu(process.pid);
}, 250);
const t0 = performance.now();
const crawl = await startCrawl({ dir, settings: JSON.parse(json) });
const final = await crawl.finished();
const ms = performance.now() - t0;
const cpuByType = { crawl: (process.cpuUsage().user + process.cpuUsage().system) / 1000 };
for (const { type, ticks } of cpuSeen.values()) cpuByType[type] = (cpuByType[type] ?? 0) + ticks * 10;
clearInterval(sampler);
clearInterval(pssSampler);
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
process.stdout.write(JSON.stringify({ ms, pages: final.pages, rendered: final.rendered ?? 0, uris: final.downloaded + final.failed, peakRssMb: peak / 1048576, peakPssMb: peakPss / 1048576, state: final.state, reason: final.finishReason, cpuByType, archived, pageUrls, renderedUrls }) + '\n');
