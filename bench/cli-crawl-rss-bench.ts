/**
 * Peak RSS of the Python docs crawl as the `trove` CLI runs it (issue 20): `bin/trove.js crawl`
 * with its shebang's flags and environment, commander, the option parsing and the progress
 * output, not a bench child that calls the core directly (crawl-bench.ts). A preload
 * (rss-at-exit.js) records the peak, the split of RSS at exit (file-backed / anonymous), the
 * breakdown at the highest sample (mappings grouped, crawl thread's V8 heap) and the node
 * binary's resident pages by what they hold (node-binary-pages.js).
 *
 *   node bench/cli-crawl-rss-bench.ts [--runs=3] [--baseline=DIR] [--variant='name|NODE_FLAGS|ENV=V,…']…
 *
 * --baseline: another checkout (its node_modules linked) run alternately with this one, each with
 * its own shebang. --variant: this checkout again with extra Node flags and environment, e.g.
 * `--variant='pool1|--v8-pool-size=1|'` or `--variant='uv2||UV_THREADPOOL_SIZE=2'`; with
 * `--import /abs/path/bench/gc-pauses.js` in a variant's flags (and GC_OUT=FILE in its environment),
 * each thread's collections and pauses are written too. 8 × 8
 * connections, no delay, as crawl-bench.ts's first Trove run. Bytes are not CPU: one run per
 * variant is a fair figure on a loaded machine; CPU seconds are shown but are noisy here.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nginxAvailable, startNginx } from './bench-nginx.ts';
import { cliNodeEnv, cliNodeFlags } from './cli-node-flags.ts';

const DOCS = '/usr/share/doc/python3-doc/html';
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..');

interface Variant {
  name: string;
  tree: string;
  flags: string[];
  env: Record<string, string>;
}

interface Result {
  maxRssKib: number;
  rssKib: number;
  anonKib: number;
  fileKib: number;
  cpuMs: number;
  atPeak: Record<string, number> | null;
  nodeBinary?: { totalMib: number; groups: Record<string, number> };
}

const atPeakText = (p: Record<string, number> | null) =>
  p ? `${p.files} / ${p.brk} / ${p.threadArenas} / ${p.stacks} / ${p.anonOther} / ${p.crawlHeapResident} / ${p.crawlHeapUsed} / ${p.arrayBuffers} / ${p.external} / ${p.workerHeapResident ?? '-'} / ${p.workerHeapUsed ?? '-'}` : '-';

const argv = process.argv.slice(2);
const opt = (k: string) => argv.find((a) => a.startsWith(`--${k}=`))?.slice(k.length + 3);
const runs = Number(opt('runs') ?? 3);
const variants: Variant[] = [{ name: 'this checkout', tree: root, flags: [], env: {} }];
const baseline = opt('baseline');
if (baseline) variants.unshift({ name: `baseline ${path.basename(baseline)}`, tree: path.resolve(baseline), flags: [], env: {} });
for (const v of argv.filter((a) => a.startsWith('--variant='))) {
  const [name, flags, env] = v.slice('--variant='.length).split('|');
  variants.push({
    name: name!,
    tree: root,
    flags: (flags ?? '').split(/\s+/).filter(Boolean),
    env: Object.fromEntries((env ?? '').split(',').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])),
  });
}

if (!nginxAvailable() || !fs.existsSync(DOCS)) {
  console.log('skipped: needs Debian packages nginx and python3-doc');
  process.exit(0);
}
const nginx = await startNginx(fs.realpathSync(DOCS));
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-cli-rss-'));
const results = new Map<Variant, Result[]>();
const loads = [os.loadavg()[0]!];
try {
  const crawl = (v: Variant, i: number): Result => {
    const out = path.join(work, `crawl-${i}`);
    const rssOut = path.join(work, 'rss.jsonl');
    fs.rmSync(out, { recursive: true, force: true });
    fs.rmSync(rssOut, { force: true });
    const args = ['crawl', `${nginx.origin}/`, '--out', out, '--per-host', '8', '--concurrency', '8', '--delay-factor', '0', '--min-delay-ms', '0', '--max-delay-ms', '0'];
    const r = spawnSync(process.execPath, [...cliNodeFlags(v.tree), ...v.flags, '--import', path.join(here, 'rss-at-exit.js'), path.join(v.tree, 'bin', 'trove.js'), ...args], {
      cwd: v.tree,
      env: { ...cliNodeEnv(v.tree), ...v.env, TROVE_RSS_OUT: rssOut, TROVE_RSS_SAMPLE_MS: '100', TROVE_NODE_PAGES: '1' },
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`${v.name}: trove crawl exited ${r.status}: ${r.stderr.slice(-2000)}`);
    if (!/559 done, 0 queued, 0 failed.*finished/.test(r.stderr)) console.log(`  note: ${v.name}: ${r.stderr.trim().split('\n').pop()}`);
    fs.rmSync(out, { recursive: true, force: true });
    return JSON.parse(fs.readFileSync(rssOut, 'utf8').trim()) as Result;
  };
  // Warm the page cache, nginx and each tree's compile cache once.
  for (const v of variants) crawl(v, 0);
  for (let i = 0; i < runs; i++) {
    for (const v of variants) {
      const r = crawl(v, i);
      (results.get(v) ?? results.set(v, []).get(v)!).push(r);
      console.log(`  ${v.name.padEnd(28)} peak ${(r.maxRssKib / 1024).toFixed(1)} MiB, at exit ${(r.rssKib / 1024).toFixed(1)} (files ${(r.fileKib / 1024).toFixed(1)}, anonymous ${(r.anonKib / 1024).toFixed(1)}), CPU ${(r.cpuMs / 1000).toFixed(2)} s; at peak ${atPeakText(r.atPeak)}`);
    }
    loads.push(os.loadavg()[0]!);
  }
} finally {
  await nginx.close();
  fs.rmSync(work, { recursive: true, force: true });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`\nload (1-min average) ${loads.map((l) => l.toFixed(1)).join(' → ')}; ${runs} run(s) each, alternated\n`);
console.log('| run | peak RSS (each run) | median | CPU (median) | at peak: files / brk / arenas / stacks / other anon / crawl heap res. / used / ArrayBuffers / external / worker heap res. / used |');
console.log('|---|---:|---:|---:|---|');
for (const [v, rs] of results) {
  const peak = atPeakText(rs.reduce((a, b) => (b.maxRssKib > a.maxRssKib ? b : a)).atPeak);
  console.log(`| ${v.name} | ${rs.map((r) => (r.maxRssKib / 1024).toFixed(0)).join(', ')} MiB | ${(median(rs.map((r) => r.maxRssKib)) / 1024).toFixed(1)} MiB | ${(median(rs.map((r) => r.cpuMs)) / 1000).toFixed(2)} s | ${peak} |`);
}
console.log('\nnode binary resident at exit, MiB (last run of each):');
const groups = new Set<string>();
for (const rs of results.values()) for (const [g, mib] of Object.entries(rs.at(-1)!.nodeBinary?.groups ?? {})) if (mib >= 0.3) groups.add(g);
console.log(`| part | ${[...results.keys()].map((v) => v.name).join(' | ')} |`);
console.log(`|---|${[...results.keys()].map(() => '---:').join('|')}|`);
console.log(`| total | ${[...results.values()].map((rs) => rs.at(-1)!.nodeBinary?.totalMib ?? '-').join(' | ')} |`);
for (const g of groups) console.log(`| ${g} | ${[...results.values()].map((rs) => rs.at(-1)!.nodeBinary?.groups[g] ?? 0).join(' | ')} |`);
