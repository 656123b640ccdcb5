/**
 * How much body memory the crawl thread holds (issue 20): the Python docs crawl (nginx on
 * loopback, 8 connections, the CLI's flags) by a baseline checkout and by this one, alternated,
 * each sampling `process.memoryUsage().arrayBuffers` every 20 ms (buffers-sample-child.js).
 * Prints the peak, 99th, 90th and 50th percentiles and the mean of ArrayBuffer memory, and the
 * peak RSS, per checkout, with after/before ratios from the same rounds.
 *
 *   node bench/body-buffers-bench.ts --baseline=<checkout with node_modules> [--runs=N]
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
const child = path.join(here, 'bench', 'buffers-sample-child.js');

interface Sampled {
  downloaded: number;
  arrayBuffersMb: { max: number; p99: number; p90: number; p50: number; mean: number };
  maxRssMb: number;
  atPeakMb: Record<string, number>;
}

function crawl(tree: string, dir: string, settings: object): Sampled {
  const r = spawnSync(process.execPath, [...cliNodeFlags(), child, tree, dir, JSON.stringify(settings)], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: cliNodeEnv() });
  if (r.status !== 0) throw new Error(`crawl in ${tree} failed: ${r.stderr}`);
  fs.rmSync(dir, { recursive: true, force: true });
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Sampled;
}

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const baseline = arg('baseline');
const runs = Math.max(1, Number(arg('runs') ?? 3));
if (!baseline || !fs.existsSync(path.join(baseline, 'core', 'crawl', 'start-crawl.ts'))) {
  console.log('usage: node bench/body-buffers-bench.ts --baseline=<a checkout to compare, with node_modules> [--runs=N]');
  process.exit(2);
}
if (!nginxAvailable() || !fs.existsSync(DOCS)) {
  console.log('body-buffers bench skipped: needs Debian packages nginx and python3-doc');
  process.exit(0);
}

const nginx = await startNginx(fs.realpathSync(DOCS));
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-body-buffers-'));
try {
  const settings = { seeds: [nginx.origin + '/'], perHost: 8, concurrency: 8, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, name: 'bench' };
  const trees = { before: path.resolve(baseline), after: here };
  const results: Record<string, Sampled[]> = { before: [], after: [] };
  for (let i = 0; i < runs; i++) {
    const order = (i % 2 === 0 ? ['before', 'after'] : ['after', 'before']) as ('before' | 'after')[];
    for (const o of order) results[o]!.push(crawl(trees[o], path.join(work, `${o}-${i}`), settings));
    console.log(`round ${i + 1}, load ${os.loadavg()[0]!.toFixed(2)}: ` + order.map((o) => `${o} ArrayBuffers peak ${results[o]![i]!.arrayBuffersMb.max.toFixed(1)} MiB, RSS peak ${results[o]![i]!.maxRssMb.toFixed(0)} MiB`).join('; '));
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
  const row = (o: string, f: (s: Sampled) => number) => med(results[o]!.map(f));
  const cols: [string, (s: Sampled) => number][] = [
    ['ArrayBuffers peak', (s) => s.arrayBuffersMb.max],
    ['p99', (s) => s.arrayBuffersMb.p99],
    ['p90', (s) => s.arrayBuffersMb.p90],
    ['p50', (s) => s.arrayBuffersMb.p50],
    ['mean', (s) => s.arrayBuffersMb.mean],
    ['RSS peak', (s) => s.maxRssMb],
  ];
  console.log(`\n| medians of ${runs} (MiB) | ${cols.map((c) => c[0]).join(' | ')} | URIs |`);
  console.log(`|---|${cols.map(() => '---:').join('|')}|---:|`);
  for (const o of ['before', 'after']) console.log(`| ${o} | ${cols.map(([, f]) => row(o, f).toFixed(1)).join(' | ')} | ${results[o]![0]!.downloaded} |`);
  console.log(`| after/before | ${cols.map(([, f]) => (row('after', f) / row('before', f)).toFixed(2)).join(' | ')} | |`);
  for (const o of ['before', 'after']) console.log(`${o}, process.memoryUsage() at the RSS peak (MiB): ${results[o]!.map((r) => JSON.stringify(r.atPeakMb)).join(' ')}`);
} finally {
  await nginx.close();
  fs.rmSync(work, { recursive: true, force: true });
}
