/**
 * Cheap per URI on sites of small, link-heavy pages (issue 40): Trove against wget where the fixed
 * cost of a URI, not parsing, decides. Two sites served by nginx on 127.0.0.1 with gzip on, as
 * Debian's own nginx.conf has it (HTML sent compressed to clients that ask; wget does not ask):
 *  - Debian's PostgreSQL 15 HTML docs (`apt-get install postgresql-doc-15`: 1,169 pages of about
 *    7 KB, many with long tables of contents), a site nobody here wrote;
 *  - a generated site of 1,200 pages of about 4 KB, each linking 50–300 others (most already seen).
 * Both tools are timed as users run them, whole process under `/usr/bin/time -v`: Trove through
 * its shebang with 8 connections and no delays, wget `--recursive --page-requisites --warc-file`.
 * `--runs=N` alternates them N times (order rotated each round) and prints medians, CPU per URI
 * and /proc/loadavg; `--baseline=DIR` adds another checkout's CLI to the rotation (an A/B of a
 * change: this tree / baseline). Then one more Trove crawl of each site under `node --cpu-prof` gives CPU per
 * URI by phase (cpu-profile-table.ts `summarizePhases`: each sample charged to the Trove file
 * that asked for it): the profiler samples wall time per thread, so read its shares on a quiet
 * machine, and the whole-process figures above for the totals.
 *
 * Targets (issue 40): CPU ≤ 1.5× wget's, wall ≤ 1.0×, peak RSS ≤ 150 MiB.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nginxAvailable, startNginx } from './bench-nginx.ts';
import { cliNodeEnv, cliNodeFlags, shebangEnv } from './cli-node-flags.ts';
import { median, missingFrom, troveOk200, wget200s } from './crawl-bench.ts';
import { summarizePhases } from './cpu-profile-table.ts';
import { GNU_TIME, timeProcess, type ProcessTimes } from './time-v.ts';

const PG_DOCS = '/usr/share/doc/postgresql-doc-15/html';
const here = path.dirname(fileURLToPath(import.meta.url));
const trove = path.join(here, '..', 'bin', 'trove.js');

interface Site {
  name: string;
  root: string;
  seedPath: string;
}

/** 1,200 pages of about 4 KB: a heading, a paragraph, 50–300 links to other pages (a deterministic spread). */
function writeSyntheticSite(root: string, pages = 1200): void {
  fs.mkdirSync(root, { recursive: true, mode: 0o755 });
  let seed = 1;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (let i = 0; i < pages; i++) {
    const n = 50 + Math.floor(rand() * 251);
    const links: string[] = [];
    // The next page first, so every page is reachable; then pages spread over the site.
    links.push(`<li><a href="p${(i + 1) % pages}.html">next</a></li>`);
    for (let k = 1; k < n; k++) links.push(`<li><a href="p${Math.floor(rand() * pages)}.html">p${k}</a></li>`);
    const body = `<!doctype html><html><head><meta charset="utf-8"><title>Page ${i}</title><link rel="stylesheet" href="site.css"></head><body><h1>Page ${i}</h1><p>Page ${i} of a generated site of small pages with long lists of links.</p><ul>${links.join('')}</ul></body></html>`;
    fs.writeFileSync(path.join(root, `p${i}.html`), body);
  }
  fs.writeFileSync(path.join(root, 'site.css'), 'body { font-family: sans-serif; }\n');
}

const troveArgs = (seed: string, dir: string, extra: string[] = []) => ['crawl', seed, '--out', dir, '--per-host', '8', '--concurrency', '8', '--delay-factor', '0', '--min-delay-ms', '0', '--max-delay-ms', '0', '--min-free-disk', '0', ...extra];

async function benchSite(site: Site, work: string, runs: number, profile: boolean, baseline?: string): Promise<Record<string, number>> {
  const nginx = await startNginx(fs.realpathSync(site.root), 'gzip on;');
  const report = path.join(work, 'time-v.txt');
  const seed = nginx.origin + site.seedPath;
  try {
    // Warm the page cache, nginx and Trove's compile cache.
    spawnSync('wget', ['-q', '-r', '-l', 'inf', '--no-parent', '-p', '--delete-after', '-P', path.join(work, 'warm'), seed]);
    timeProcess(trove, troveArgs(seed, path.join(work, 'trove-warm')), { env: shebangEnv(), report });
    fs.rmSync(path.join(work, 'trove-warm'), { recursive: true, force: true });
    const loads = [fs.readFileSync('/proc/loadavg', 'utf8').trim()];
    const wgets: ProcessTimes[] = [];
    const troves: ProcessTimes[] = [];
    const bases: ProcessTimes[] = [];
    let wgetUrls: string[] = [];
    let troveOk: string[] = [];
    let troveUris = 0;
    for (let i = 0; i < runs; i++) {
      const steps = [
        async () => {
          const w = path.join(work, `wget-${i}`);
          wgets.push(timeProcess('wget', ['-q', '--recursive', '--level=inf', '--no-parent', '--page-requisites', `--warc-file=${w}`, '-P', path.join(work, `mirror-${i}`), seed], { report, ok: [0, 8] }));
          if (wgetUrls.length === 0) wgetUrls = await wget200s(`${w}.warc.gz`);
          fs.rmSync(path.join(work, `mirror-${i}`), { recursive: true, force: true });
          fs.rmSync(`${w}.warc.gz`, { force: true });
        },
        () => {
          const dir = path.join(work, `trove-${i}`);
          troves.push(timeProcess(trove, troveArgs(seed, dir), { env: shebangEnv(), report }));
          if (troveOk.length === 0) {
            troveOk = troveOk200(dir);
            troveUris = fs.readFileSync(path.join(dir, 'logs', 'crawl.log'), 'utf8').split('\n').filter(Boolean).length;
          }
          fs.rmSync(dir, { recursive: true, force: true });
        },
        // --baseline: the same crawl by another checkout's CLI (an A/B of a change), in the rotation.
        ...(baseline
          ? [
              () => {
                const dir = path.join(work, `base-${i}`);
                bases.push(timeProcess(path.join(baseline, 'bin', 'trove.js'), troveArgs(seed, dir), { env: shebangEnv(), report }));
                fs.rmSync(dir, { recursive: true, force: true });
              },
            ]
          : []),
      ];
      for (let k = 0; k < steps.length; k++) await steps[(i + k) % steps.length]!();
      loads.push(fs.readFileSync('/proc/loadavg', 'utf8').trim());
    }
    const cpu = (r: ProcessTimes) => r.userS + r.sysS;
    const w = { cpu: median(wgets.map(cpu)), wall: median(wgets.map((r) => r.wallS)), rss: median(wgets.map((r) => r.maxRssKib / 1024)) };
    const t = { cpu: median(troves.map(cpu)), wall: median(troves.map((r) => r.wallS)), rss: Math.max(...troves.map((r) => r.maxRssKib / 1024)) };
    const missing = missingFrom(wgetUrls, troveOk);
    const ms = (s: number, n: number) => `${((1000 * s) / n).toFixed(2)} ms/URI`;
    console.log(`\n${site.name}: nginx ${nginx.origin} (gzip on), wget captured ${wgetUrls.length} URLs with 200, Trove logged ${troveUris} URIs; ${runs > 1 ? `medians of ${runs} alternated runs` : 'one run each'}, ${os.availableParallelism()} cores`);
    console.log(`  /proc/loadavg: ${loads.join(' → ')}`);
    console.log(`  wget:  CPU ${w.cpu.toFixed(2)} s (${ms(w.cpu, wgetUrls.length)}), wall ${w.wall.toFixed(2)} s, max RSS ${w.rss.toFixed(0)} MiB`);
    console.log(`  trove: CPU ${t.cpu.toFixed(2)} s (${ms(t.cpu, troveUris)}), wall ${t.wall.toFixed(2)} s, peak RSS ${t.rss.toFixed(0)} MiB; coverage ${wgetUrls.length - missing.length}/${wgetUrls.length}`);
    if (bases.length > 0) {
      const b = { cpu: median(bases.map(cpu)), wall: median(bases.map((r) => r.wallS)), rss: Math.max(...bases.map((r) => r.maxRssKib / 1024)) };
      console.log(`  baseline ${baseline}: CPU ${b.cpu.toFixed(2)} s (${ms(b.cpu, troveUris)}), wall ${b.wall.toFixed(2)} s, peak RSS ${b.rss.toFixed(0)} MiB; this tree / baseline: CPU ${(t.cpu / b.cpu).toFixed(3)}×, wall ${(t.wall / b.wall).toFixed(3)}×`);
      console.log(`  CPU per run, this tree: ${troves.map(cpu).map((x) => x.toFixed(2)).join(' ')}; baseline: ${bases.map(cpu).map((x) => x.toFixed(2)).join(' ')}`);
    }
    console.log(`  trove / wget: CPU ${(t.cpu / w.cpu).toFixed(2)}× (target ≤ 1.5×), wall ${(t.wall / w.wall).toFixed(2)}× (target ≤ 1.0×); peak RSS target ≤ 150 MiB`);
    if (profile) {
      const profDir = path.join(work, 'profiles');
      const dir = path.join(work, 'trove-prof');
      const r = spawnSync(process.execPath, [...cliNodeFlags(), '--cpu-prof', `--cpu-prof-dir=${profDir}`, trove, ...troveArgs(seed, dir)], { env: cliNodeEnv(), encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`profiled crawl failed: ${r.stderr}`);
      const phases = summarizePhases(profDir, phaseOf);
      const total = phases.reduce((a, p) => a + p.ms, 0);
      console.log(`\n  CPU per URI by phase, one crawl under the V8 profiler (${(total / 1000).toFixed(2)} s sampled, ${troveUris} URIs):`);
      for (const p of phases.filter((x) => x.ms / total >= 0.005)) console.log(`    ${p.phase.padEnd(44)}${`${((1000 * p.ms) / troveUris).toFixed(0)} µs`.padStart(9)}${`${((100 * p.ms) / total).toFixed(1)}%`.padStart(8)}`);
      fs.rmSync(profDir, { recursive: true, force: true });
      fs.rmSync(dir, { recursive: true, force: true });
    }
    return { wgetCpuS: w.cpu, wgetWallS: w.wall, troveCpuS: t.cpu, troveWallS: t.wall, peakRssMib: t.rss, missing: missing.length };
  } finally {
    await nginx.close();
  }
}

/** A Trove source file's phase of a URI's work, for the per-phase table. */
export function phaseOf(module: string): string {
  const phases: [RegExp, string][] = [
    [/^core\/(fetch|robots)\//, 'fetch (undici, framing, inflating)'],
    [/^core\/extract\//, 'link and text extraction'],
    [/^core\/(warc|formats)\/|^core\/crawl\/(capture-records|chain\/write-records)/, 'WARC records (gzip, digests, writes)'],
    [/^core\/frontier\/|^core\/crawl\/candidate-chain|^core\/scope\//, 'frontier and scope'],
    [/^core\/archive\//, 'capture index and page text'],
    [/^core\/storage\//, 'commits and migrations'],
    [/^core\/cli\/|^core\/crawl\/start-crawl/, 'start-up and CLI'],
    [/^core\/crawl\//, 'crawl chain and controller'],
  ];
  for (const [re, name] of phases) if (re.test(module)) return name;
  return module;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const argv = process.argv.slice(2);
  const runsArg = argv.find((a) => a.startsWith('--runs='));
  const runs = runsArg ? Number(runsArg.slice('--runs='.length)) : 3;
  if (!nginxAvailable() || spawnSync('wget', ['--version']).status !== 0 || !fs.existsSync(GNU_TIME)) {
    console.log("small-pages bench skipped: needs Debian's nginx, wget and time (apt-get install nginx wget time)");
  } else {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-small-pages-'));
    try {
      const profile = !argv.includes('--no-profile');
      const baseline = argv.find((a) => a.startsWith('--baseline='))?.slice('--baseline='.length);
      if (fs.existsSync(PG_DOCS)) await benchSite({ name: 'PostgreSQL 15 docs', root: PG_DOCS, seedPath: '/index.html' }, work, runs, profile, baseline);
      else console.log('PostgreSQL docs skipped: apt-get install postgresql-doc-15');
      const synth = path.join(work, 'synthetic');
      writeSyntheticSite(synth);
      // nginx's workers run as another user: the generated site must be readable by them.
      fs.chmodSync(work, 0o755);
      await benchSite({ name: 'generated site of 1,200 pages of ~4 KB with 50–300 links each', root: synth, seedPath: '/p0.html' }, work, runs, profile, baseline);
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  }
}
