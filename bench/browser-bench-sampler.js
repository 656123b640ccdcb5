/**
 * The browser bench's sampler of a crawl child's process tree (bench/browser-crawl-child.js
 * starts it with its own pid): every 250 ms the tree's resident and proportional set size and
 * each process's CPU ticks, from /proc (Linux). On SIGTERM it prints one JSON line: peak RSS,
 * peak PSS and the CPU ms of each Chromium process type. A process of its own, so that reading
 * /proc (a `stat` file for every process of the machine to find the tree, and each tree
 * process's smaps_rollup, a walk of its page tables) neither blocks the crawl's event loop, which
 * all the tabs' CDP traffic goes through, nor counts as the crawl's CPU: done inside the crawl
 * child, every 50 ms, it took most of that process's CPU on a shared machine with hundreds of
 * processes (a 16-page browser crawl: 61 s sampled, 50 s of it reading /proc).
 */
import fs from 'node:fs';

/**
 * One look at the process tree under `root` (Linux /proc): each process's parent, resident pages
 * and CPU ticks from its one `stat` line. Every process of the machine is read to find the tree,
 * so this is kept to one file a process every 250 ms: reading each one's `status` every 50 ms
 * besides (as the crawl child did before) took most of its CPU on a shared machine with
 * hundreds of processes (61 s sampled, 50 s of it reading /proc, for a 16-page browser crawl),
 * and blocked the event loop the crawl's tabs all wait on.
 */
function treeStats(root) {
  const children = new Map();
  const stats = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // Fields 4 (ppid), 14 and 15 (utime, stime) and 24 (rss, in pages) of stat(5).
      const ppid = Number(f[1]);
      stats.set(Number(name), { ticks: Number(f[11]) + Number(f[12]), rss: Number(f[21]) * 4096 });
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
    if (stats.has(pid)) out.push({ pid, ...stats.get(pid) });
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** Proportional set size of the tree's processes: each shared page divided among its sharers. */
function treePssBytes(procs) {
  let total = 0;
  for (const { pid } of procs) {
    try {
      total += Number(/^Pss:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0) * 1024;
    } catch {
      /* ended meanwhile */
    }
  }
  return total;
}

/** Last CPU ticks seen per process of the tree, and its Chromium process type. */
const cpuSeen = new Map();
function sampleCpu(root, procs, first) {
  for (const { pid, ticks } of procs) {
    if (pid === root || pid === process.pid) continue;
    try {
      let type = cpuSeen.get(pid)?.type;
      // A zygote's child names its type once it has set its title: asked again until then.
      if (!type || type === 'zygote') {
        const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
        const t = /--type=(\S+)/.exec(cmd)?.[1];
        const sub = /--utility-sub-type=\S*?(\w+)(\s|$)/.exec(cmd)?.[1];
        type = /chrom/i.test(cmd) ? (t ? (sub ? `${t}:${sub}` : t) : 'browser') : 'other';
      }
      // What a process that was there at the start had used before it is not counted.
      cpuSeen.set(pid, { type, ticks, base: cpuSeen.get(pid)?.base ?? (first ? ticks : 0) });
    } catch {
      /* ended meanwhile */
    }
  }
}

const root = Number(process.argv[2]);
let peak = 0;
let peakPss = 0;
function sample(first = false) {
  const procs = treeStats(root).filter((p) => p.pid !== process.pid);
  peak = Math.max(peak, procs.reduce((n, p) => n + p.rss, 0));
  peakPss = Math.max(peakPss, treePssBytes(procs));
  sampleCpu(root, procs, first);
}
sample(true);
const timer = setInterval(sample, 250);
process.on('SIGTERM', () => {
  clearInterval(timer);
  const cpuByType = {};
  for (const { type, ticks, base } of cpuSeen.values()) cpuByType[type] = (cpuByType[type] ?? 0) + (ticks - base) * 10;
  process.stdout.write(JSON.stringify({ peakRssMb: peak / 1048576, peakPssMb: peakPss / 1048576, cpuByType }) + '\n', () => process.exit(0));
});
