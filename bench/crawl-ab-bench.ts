/**
 * Before and after in one run (issue 20): the Python docs crawl (as in crawl-bench.ts: nginx on
 * loopback, the CLI's flags and environment) by wget, by a baseline checkout of Trove and by this
 * one, alternated round by round (the order of the two Troves swapped each round), 8 connections
 * and one. Prints medians of CPU (all threads), CPU by thread (the crawl thread, the extraction
 * worker, V8's helpers, libuv's pool; thread-cpu.js), CPU against wget's, peak RSS, and the
 * after/before ratios. On a shared machine the absolute figures follow the load; the ratios from
 * the same rounds are the figures to compare.
 *
 *   git archive <commit> | tar -x -C /tmp/trove-base && ln -s "$PWD/node_modules" /tmp/trove-base/
 *   node bench/crawl-ab-bench.ts --baseline=/tmp/trove-base --runs=3
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nginxAvailable, startNginx } from './bench-nginx.ts';
import { cliNodeEnv, cliNodeFlags } from './cli-node-flags.ts';

const DOCS = '/usr/share/doc/python3-doc/html';
const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface Run {
  cpu: number;
  main: number;
  worker: number;
  v8: number;
  uv: number;
  uris: number;
  rssMb: number;
}

/** One crawl by the checkout at `tree` (its bench/crawl-child.js), in a fresh process. */
function crawl(tree: string, dir: string, settings: object): Run {
  const r = spawnSync(process.execPath, [...cliNodeFlags(tree), path.join(tree, 'bench', 'crawl-child.js'), dir, JSON.stringify(settings)], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: cliNodeEnv(tree),
  });
  if (r.status !== 0) throw new Error(`crawl in ${tree} failed: ${r.stderr}`);
  const j = JSON.parse(r.stdout.trim().split('\n').pop()!) as { cpuMs: number; threads: Record<string, number>; downloaded: number; maxRssMb: number };
  fs.rmSync(dir, { recursive: true, force: true });
  // The extraction worker has exited by the end: its CPU is what the threads still running did not use.
  const alive = Object.values(j.threads).reduce((a, b) => a + b, 0);
  return { cpu: j.cpuMs, main: j.threads.MainThread ?? 0, worker: j.cpuMs - alive, v8: j.threads.V8Worker ?? 0, uv: j.threads['libuv-worker'] ?? 0, uris: j.downloaded, rssMb: j.maxRssMb };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const baseline = arg('baseline');
const runs = Math.max(1, Number(arg('runs') ?? 3));
if (!baseline || !fs.existsSync(path.join(baseline, 'bench', 'crawl-child.js'))) {
  console.log('usage: node bench/crawl-ab-bench.ts --baseline=<a checkout of the commit to compare, with node_modules> [--runs=N]');
  process.exit(2);
}
if (!nginxAvailable() || !fs.existsSync(DOCS)) {
  console.log('crawl-ab bench skipped: needs Debian packages nginx, python3-doc and wget');
  process.exit(0);
}

const nginx = await startNginx(fs.realpathSync(DOCS));
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-crawl-ab-'));
try {
  const seed = nginx.origin + '/';
  const fast = { seeds: [seed], perHost: 8, concurrency: 8, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, name: 'bench' };
  const single = { ...fast, perHost: 1, concurrency: 1 };
  const trees = { before: path.resolve(baseline), after: here };
  // Warm the page cache, nginx and both compile caches.
  spawnSync('wget', ['-q', '-r', '-l', 'inf', '--no-parent', '-p', '--delete-after', '-P', path.join(work, 'warm'), seed]);
  for (const [name, tree] of Object.entries(trees)) crawl(tree, path.join(work, `warm-${name}`), { ...fast, maxHops: 1 });

  const wgetCpu: number[] = [];
  const results: Record<string, Run[]> = { 'before 8×8': [], 'after 8×8': [], 'before 1': [], 'after 1': [] };
  const loads = [os.loadavg()[0]!];
  for (let i = 0; i < runs; i++) {
    const w = spawnSync('bash', ['-c', 'wget "$@"; s=$?; times; exit $s', 'wget', '-q', '--recursive', '--level=inf', '--no-parent', '--page-requisites', `--warc-file=${path.join(work, `wget-${i}`)}`, '-P', path.join(work, `mirror-${i}`), seed], { encoding: 'utf8' });
    const m = /(\d+)m([\d.]+)s (\d+)m([\d.]+)s\s*$/.exec(w.stdout.trim());
    if (m) wgetCpu.push((Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) * 1000);
    fs.rmSync(path.join(work, `mirror-${i}`), { recursive: true, force: true });
    const order = (i % 2 === 0 ? ['before', 'after'] : ['after', 'before']) as ('before' | 'after')[];
    for (const o of order) results[`${o} 8×8`]!.push(crawl(trees[o], path.join(work, `${o}-8-${i}`), fast));
    for (const o of order) results[`${o} 1`]!.push(crawl(trees[o], path.join(work, `${o}-1-${i}`), single));
    loads.push(os.loadavg()[0]!);
    const line = Object.entries(results).map(([name, rs]) => `${name} ${(rs[i]!.cpu / 1000).toFixed(2)} s (crawl thread ${(rs[i]!.main / 1000).toFixed(2)})`);
    console.log(`round ${i + 1}, load ${loads.at(-1)!.toFixed(2)}: wget ${((wgetCpu[i] ?? NaN) / 1000).toFixed(2)} s; ${line.join('; ')}`);
  }

  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const w = median(wgetCpu);
  console.log(`\ncrawl-ab: Python docs, ${runs} alternated rounds (medians), before = ${trees.before}; 1-min load ${loads.map((l) => l.toFixed(2)).join(' → ')} on ${os.availableParallelism()} cores`);
  console.log(`wget CPU ${s(w)}`);
  console.log('| run | CPU | vs wget | crawl thread | extraction worker | V8 helpers | libuv pool | URIs | peak RSS |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const [name, rs] of Object.entries(results)) {
    const med = (k: keyof Run) => median(rs.map((r) => r[k]));
    console.log(`| ${name} | ${s(med('cpu'))} | ${(med('cpu') / w).toFixed(2)}× | ${s(med('main'))} | ${s(med('worker'))} | ${s(med('v8'))} | ${s(med('uv'))} | ${rs[0]!.uris} | ${Math.max(...rs.map((r) => r.rssMb)).toFixed(0)} MiB |`);
  }
  for (const c of ['8×8', '1']) {
    const b = results[`before ${c}`]!;
    const a = results[`after ${c}`]!;
    const ratio = (k: keyof Run) => (median(a.map((r) => r[k])) / median(b.map((r) => r[k]))).toFixed(3);
    console.log(`after/before, ${c}: CPU ${ratio('cpu')}, crawl thread ${ratio('main')}, extraction worker ${ratio('worker')}`);
  }
} finally {
  await nginx.close();
  fs.rmSync(work, { recursive: true, force: true });
}
