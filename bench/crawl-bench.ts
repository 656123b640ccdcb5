/**
 * Trove against wget on Debian's Python 3.11 HTML docs (`apt-get install nginx python3-doc wget
 * time`: 530 pages, 1,063 files) served by nginx on 127.0.0.1. Both are timed as users run them:
 * the whole process under `/usr/bin/time -v` (start-up and shutdown included), Trove through its
 * shebang (`bin/trove.js crawl`, its Node flags and environment), wget with `--recursive
 * --level=inf --no-parent --page-requisites --warc-file`. Trove runs (a) 8 connections per host
 * and 8 slots, (b) one connection, delays 0. Prints each run's CPU (user + system), wall time and
 * max RSS beside wget's, the ratios, whether every URL wget captured with 200 was captured too,
 * and /proc/loadavg before and after each round: on a shared machine the load moves the ratios.
 *
 * `--runs=N` alternates wget, (a) and (b) N times (the order rotated each round) and prints
 * medians. `--in-process` adds, in each round, the same two crawls timed inside a bench child
 * that calls the core directly (crawl-child.js, the CLI's flags): the difference from the
 * whole-process figure is the CLI's start-up and shutdown; it also gives CPU by thread.
 * `--profile` adds one more (a) crawl under `node --cpu-prof` and prints the self-time tables of
 * cpu-profile-table.ts.
 *
 * Targets (issue 20: on loopback every tool is CPU-bound, so CPU and memory per URI decide): CPU
 * ≤ 1.0× wget's, (a) ≤ 0.6× wget's wall time, (b) ≤ 0.9×, peak RSS ≤ 150 MiB, full coverage.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WARCParser } from 'warcio';
import { nginxAvailable, startNginx } from './bench-nginx.ts';
import { cliNodeEnv, cliNodeFlags, shebangEnv } from './cli-node-flags.ts';
import { formatSummary, summarizeProfiles } from './cpu-profile-table.ts';
import { GNU_TIME, timeProcess, type ProcessTimes } from './time-v.ts';

const DOCS = '/usr/share/doc/python3-doc/html';
const here = path.dirname(fileURLToPath(import.meta.url));
const trove = path.join(here, '..', 'bin', 'trove.js');

/** One crawl as a whole process: /usr/bin/time's figures and the URLs it captured with 200. */
interface Timed extends ProcessTimes {
  ok200: string[];
}

/** One crawl timed inside a bench child (crawl-child.js). */
interface ChildResult {
  ms: number;
  /** CPU time of the crawl process, every thread (user + system). */
  cpuMs: number;
  maxRssMb: number;
  /** CPU ms by thread name of the threads still running at the end (thread-cpu.js). */
  threads: Record<string, number>;
  downloaded: number;
  ok200: string[];
}

interface Settings {
  perHost: number;
  concurrency: number;
}

/** The URLs a Trove crawl folder's crawl.log has with status 200. */
export function troveOk200(dir: string): string[] {
  return fs
    .readFileSync(path.join(dir, 'logs', 'crawl.log'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(/\s+/))
    .filter((f) => f[1] === '200')
    .map((f) => f[3]!);
}

function runTroveCli(seed: string, dir: string, s: Settings, report: string): Timed {
  const args = ['crawl', seed, '--out', dir, '--per-host', String(s.perHost), '--concurrency', String(s.concurrency), '--delay-factor', '0', '--min-delay-ms', '0', '--max-delay-ms', '0', '--min-free-disk', '0'];
  const t = timeProcess(trove, args, { env: shebangEnv(), report });
  return { ...t, ok200: troveOk200(dir) };
}

function runTroveChild(seed: string, dir: string, s: Settings, nodeFlags: string[] = []): ChildResult {
  const settings = { seeds: [seed], perHost: s.perHost, concurrency: s.concurrency, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, name: 'bench' };
  const r = spawnSync(process.execPath, [...cliNodeFlags(), ...nodeFlags, path.join(here, 'crawl-child.js'), dir, JSON.stringify(settings)], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: cliNodeEnv() });
  if (r.status !== 0) throw new Error(`trove crawl child failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as ChildResult;
}

export async function wget200s(warc: string): Promise<string[]> {
  const urls: string[] = [];
  for await (const rec of new WARCParser(fs.createReadStream(warc))) {
    if (rec.warcType === 'response' && rec.httpHeaders?.statusCode && Number(rec.httpHeaders.statusCode) === 200) urls.push(rec.warcTargetURI!);
  }
  return urls;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

const loadavg = () => fs.readFileSync('/proc/loadavg', 'utf8').trim();

/** URLs wget captured with 200 that a Trove crawl did not (a directory and its index.html are one page). */
export function missingFrom(wgetUrls: string[], ok200: string[]): string[] {
  const have = new Set(ok200);
  const norm = (u: string) => u.replace(/\/index\.html$/, '/');
  return wgetUrls.filter((u) => !have.has(u) && !have.has(norm(u)) && !(u.endsWith('/') && have.has(u + 'index.html')));
}

export async function runCrawlBench(opts: { runs?: number; profile?: boolean; inProcess?: boolean } = {}): Promise<Record<string, number> | null> {
  if (!nginxAvailable() || !fs.existsSync(DOCS)) {
    console.log('crawl bench skipped: needs Debian packages nginx and python3-doc (apt-get install nginx python3-doc)');
    return null;
  }
  if (spawnSync('wget', ['--version']).status !== 0) {
    console.log('crawl bench skipped: needs GNU wget (apt-get install wget)');
    return null;
  }
  if (!fs.existsSync(GNU_TIME)) {
    console.log("crawl bench skipped: needs GNU time at /usr/bin/time (Debian's `time` package)");
    return null;
  }
  const nginx = await startNginx(fs.realpathSync(DOCS));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-crawl-bench-'));
  const report = path.join(work, 'time-v.txt');
  try {
    const seed = nginx.origin + '/';
    const fast: Settings = { perHost: 8, concurrency: 8 };
    const single: Settings = { perHost: 1, concurrency: 1 };

    // Warm the page cache and nginx once, so neither side pays for a cold disk; and Trove's
    // compile cache (bin/compile-cache.js), as after any earlier `trove` run: a short crawl.
    spawnSync('wget', ['-q', '-r', '-l', 'inf', '--no-parent', '-p', '--delete-after', '-P', path.join(work, 'warm'), seed]);
    runTroveCli(seed, path.join(work, 'trove-warm'), fast, report);
    fs.rmSync(path.join(work, 'trove-warm'), { recursive: true, force: true });

    const runs = Math.max(1, opts.runs ?? 1);
    const loads: string[] = [loadavg()];
    const wgets: ProcessTimes[] = [];
    const as: Timed[] = [];
    const bs: Timed[] = [];
    const ias: ChildResult[] = [];
    const ibs: ChildResult[] = [];
    let wgetUrls: string[] = [];
    for (let i = 0; i < runs; i++) {
      const steps: (() => Promise<void> | void)[] = [
        async () => {
          const wdir = path.join(work, `wget-${i}`);
          const args = ['-q', '--recursive', '--level=inf', '--no-parent', '--page-requisites', `--warc-file=${wdir}`, '-P', path.join(work, `mirror-${i}`), seed];
          // wget exits 8 when any response was an error (the docs link a few missing files).
          wgets.push(timeProcess('wget', args, { report, ok: [0, 8] }));
          if (wgetUrls.length === 0) wgetUrls = await wget200s(`${wdir}.warc.gz`);
          fs.rmSync(path.join(work, `mirror-${i}`), { recursive: true, force: true });
          fs.rmSync(`${wdir}.warc.gz`, { force: true });
        },
        () => {
          as.push(runTroveCli(seed, path.join(work, `trove-8x8-${i}`), fast, report));
          fs.rmSync(path.join(work, `trove-8x8-${i}`), { recursive: true, force: true });
        },
        () => {
          bs.push(runTroveCli(seed, path.join(work, `trove-1-${i}`), single, report));
          fs.rmSync(path.join(work, `trove-1-${i}`), { recursive: true, force: true });
        },
      ];
      if (opts.inProcess) {
        steps.push(() => {
          ias.push(runTroveChild(seed, path.join(work, `child-8x8-${i}`), fast));
          ibs.push(runTroveChild(seed, path.join(work, `child-1-${i}`), single));
        });
      }
      // Rotated each round, so a change of load does not always fall on the same side.
      for (let k = 0; k < steps.length; k++) await steps[(i + k) % steps.length]!();
      loads.push(loadavg());
    }

    const med = (rs: ProcessTimes[]) => ({
      wallS: median(rs.map((r) => r.wallS)),
      cpuS: median(rs.map((r) => r.userS + r.sysS)),
      maxRssMib: median(rs.map((r) => r.maxRssKib / 1024)),
      peakRssMib: Math.max(...rs.map((r) => r.maxRssKib / 1024)),
    });
    const w = med(wgets);
    const a = med(as);
    const b = med(bs);
    const missA = missingFrom(wgetUrls, as[0]!.ok200);
    const missB = missingFrom(wgetUrls, bs[0]!.ok200);
    const x = (v: number, ref: number) => `${(v / ref).toFixed(2)}×`;
    const s2 = (v: number) => `${v.toFixed(2)} s`;

    console.log(`\ncrawl: Python 3.11 docs on nginx ${nginx.origin} (${wgetUrls.length} URLs with 200 from wget), whole processes under ${GNU_TIME} -v;` + ` ${runs > 1 ? `medians of ${runs} alternated runs` : 'one run each'}, ${os.availableParallelism()} cores`);
    console.log(`  /proc/loadavg: ${loads.join(' → ')}`);
    console.log('  ' + 'run'.padEnd(40) + 'CPU'.padStart(10) + 'vs wget'.padStart(9) + 'wall'.padStart(10) + 'vs wget'.padStart(9) + 'max RSS'.padStart(11) + 'coverage'.padStart(11));
    const row = (name: string, r: ReturnType<typeof med>, cov: string, ratios: boolean) =>
      console.log(`  ${name.padEnd(40)}${s2(r.cpuS).padStart(10)}${(ratios ? x(r.cpuS, w.cpuS) : '').padStart(9)}${s2(r.wallS).padStart(10)}${(ratios ? x(r.wallS, w.wallS) : '').padStart(9)}${`${r.maxRssMib.toFixed(0)} MiB`.padStart(11)}${cov.padStart(11)}`);
    row('wget, 1 connection', w, `${wgetUrls.length}`, false);
    row('trove crawl, 8 × 8 connections', a, `${wgetUrls.length - missA.length}/${wgetUrls.length}`, true);
    row('trove crawl, one connection', b, `${wgetUrls.length - missB.length}/${wgetUrls.length}`, true);
    console.log(`  targets: CPU ≤ 1.0× wget's; wall ≤ 0.6× (8 × 8), ≤ 0.9× (one); peak RSS ≤ 150 MiB (highest of all Trove runs: ${Math.max(a.peakRssMib, b.peakRssMib).toFixed(0)} MiB)`);
    if (missA.length) console.log(`  missing from the 8 × 8 crawl (first 10): ${missA.slice(0, 10).join(' ')}`);
    if (opts.inProcess) {
      const im = (rs: ChildResult[]) => ({ wallS: median(rs.map((r) => r.ms)) / 1000, cpuS: median(rs.map((r) => r.cpuMs)) / 1000, maxRssMib: Math.max(...rs.map((r) => r.maxRssMb)) });
      const ia = im(ias);
      const ib = im(ibs);
      console.log(`\n  timed inside a bench child (crawl-child.js: from startCrawl to the end; no CLI start-up or shutdown), against the same wget runs:`);
      console.log(`    8 × 8: CPU ${s2(ia.cpuS)} (${x(ia.cpuS, w.cpuS)}), wall ${s2(ia.wallS)} (${x(ia.wallS, w.wallS)}), peak RSS ${ia.maxRssMib.toFixed(0)} MiB`);
      console.log(`    one connection: CPU ${s2(ib.cpuS)} (${x(ib.cpuS, w.cpuS)}), wall ${s2(ib.wallS)} (${x(ib.wallS, w.wallS)}), peak RSS ${ib.maxRssMib.toFixed(0)} MiB`);
      console.log(`    the CLI's start-up and shutdown, whole process minus in-process (8 × 8): CPU ${s2(a.cpuS - ia.cpuS)}, wall ${s2(a.wallS - ia.wallS)}`);
      const byThread = (r: ChildResult) =>
        Object.entries(r.threads)
          .filter(([, v]) => v > 0)
          .sort((p, q) => q[1] - p[1])
          .map(([k, v]) => `${k} ${s2(v / 1000)}`)
          .join(', ');
      console.log(`    CPU by thread, 8 × 8 (first run): ${byThread(ias[0]!)}`);
    }
    if (opts.profile) {
      // One more 8×8 crawl under the V8 CPU profiler: one .cpuprofile per thread (workers inherit the flag).
      const profDir = path.join(work, 'profiles');
      const p = runTroveChild(seed, path.join(work, 'trove-prof'), fast, ['--cpu-prof', `--cpu-prof-dir=${profDir}`]);
      console.log(`\n  CPU profile of one 8×8 crawl (${p.downloaded} URIs, ${s2(p.cpuMs / 1000)} CPU with the profiler on), self time:\n`);
      console.log(formatSummary(summarizeProfiles(profDir), 25));
    }
    return {
      wgetWallS: w.wallS,
      wgetCpuS: w.cpuS,
      fastWallS: a.wallS,
      fastCpuS: a.cpuS,
      singleWallS: b.wallS,
      singleCpuS: b.cpuS,
      peakRssMib: Math.max(a.peakRssMib, b.peakRssMib),
      wgetUrls: wgetUrls.length,
      missing: missA.length,
    };
  } finally {
    await nginx.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const argv = process.argv.slice(2);
  const runs = argv.find((a) => a.startsWith('--runs='));
  await runCrawlBench({ profile: argv.includes('--profile'), inProcess: argv.includes('--in-process'), runs: runs ? Number(runs.slice('--runs='.length)) : 1 });
}
