/**
 * Crawl benchmark (issue: crawl engine). Debian's Python 3.11 HTML docs (`apt-get install nginx
 * python3-doc`: 530 pages, 1063 files) served by nginx on 127.0.0.1, crawled in the same run by
 * wget (`--recursive --level=inf --no-parent --page-requisites --warc-file`) and by Trove with
 * delays set to 0, (a) 8 connections per host and 8 slots, (b) one connection. Prints times as
 * ratios against wget, Trove's peak RSS, and whether every URL wget captured with 200 was
 * captured too.
 *
 * Targets (issue 20, which replaced the 0.25× of the crawl engine issue: on loopback every tool
 * is CPU-bound, so CPU and memory per URI decide): CPU ≤ 1.0× wget's, (a) ≤ 0.6× wget's time,
 * (b) ≤ 0.9×, peak RSS ≤ 150 MiB, full coverage.
 *
 * Flags: `--runs=N` alternates wget, (a) and (b) N times and prints medians (the machine is
 * shared: alternating spreads load changes over all three; CPU seconds are less distorted by load
 * than wall time, and the load average is printed). `--profile` adds one more (a) crawl under
 * `node --cpu-prof` and prints the self-time tables of bench/cpu-profile-table.ts.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WARCParser } from 'warcio';
import { nginxAvailable, startNginx } from './bench-nginx.ts';
import { cliNodeEnv, cliNodeFlags } from './cli-node-flags.ts';
import { formatSummary, summarizeProfiles } from './cpu-profile-table.ts';

const DOCS = '/usr/share/doc/python3-doc/html';
const here = path.dirname(fileURLToPath(import.meta.url));

interface ChildResult {
  ms: number;
  /** CPU time of the crawl process, every thread (user + system). */
  cpuMs: number;
  maxRssMb: number;
  /** CPU ms by thread name of the threads still running at the end (thread-cpu.js). */
  threads: Record<string, number>;
  downloaded: number;
  failed: number;
  state: string;
  reason: string;
  ok200: string[];
}

function runTrove(dir: string, settings: Record<string, unknown>, nodeFlags: string[] = []): ChildResult {
  const r = spawnSync(process.execPath, [...cliNodeFlags(), ...nodeFlags, path.join(here, 'crawl-child.js'), dir, JSON.stringify(settings)], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: cliNodeEnv() });
  if (r.status !== 0) throw new Error(`trove crawl child failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as ChildResult;
}

/** Children's user + system time from bash's `times` (its second line: `0m3.260s 0m0.330s`). */
function childCpuMs(out: string): number {
  const line = out.trim().split('\n').at(-1) ?? '';
  const m = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/.exec(line.trim());
  if (!m) return NaN;
  return (Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) * 1000;
}

async function wget200s(warc: string): Promise<string[]> {
  const urls: string[] = [];
  for await (const rec of new WARCParser(fs.createReadStream(warc))) {
    if (rec.warcType === 'response' && rec.httpHeaders?.statusCode && Number(rec.httpHeaders.statusCode) === 200) urls.push(rec.warcTargetURI!);
  }
  return urls;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

function medianRun(runs: ChildResult[]): ChildResult {
  return { ...runs[0]!, ms: median(runs.map((r) => r.ms)), cpuMs: median(runs.map((r) => r.cpuMs)), maxRssMb: Math.max(...runs.map((r) => r.maxRssMb)) };
}

export async function runCrawlBench(opts: { runs?: number; profile?: boolean } = {}): Promise<Record<string, number> | null> {
  if (!nginxAvailable() || !fs.existsSync(DOCS)) {
    console.log('crawl bench skipped: needs Debian packages nginx and python3-doc (apt-get install nginx python3-doc)');
    return null;
  }
  const nginx = await startNginx(fs.realpathSync(DOCS));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-crawl-bench-'));
  try {
    const seed = nginx.origin + '/';
    const fast = { seeds: [seed], perHost: 8, concurrency: 8, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, name: 'bench' };
    const single = { ...fast, perHost: 1, concurrency: 1 };

    // Warm the page cache and nginx once, so neither side pays for a cold disk.
    spawnSync('wget', ['-q', '-r', '-l', 'inf', '--no-parent', '-p', '--delete-after', '-P', path.join(work, 'warm'), seed]);
    // And Trove's compile cache (bin/compile-cache.js), as after any earlier `trove` run: a short crawl.
    runTrove(path.join(work, 'trove-warm'), { ...fast, maxHops: 1 });

    // Through bash, whose `times` reports the CPU time wget used.
    const runs = Math.max(1, opts.runs ?? 1);
    const loads: number[] = [os.loadavg()[0]!];
    const wgetTimes: number[] = [];
    const wgetCpus: number[] = [];
    const as: ChildResult[] = [];
    const bs: ChildResult[] = [];
    let wgetUrls: string[] = [];
    for (let i = 0; i < runs; i++) {
      const wdir = path.join(work, `wget-${i}`);
      const wgetArgs = ['-q', '--recursive', '--level=inf', '--no-parent', '--page-requisites', `--warc-file=${wdir}`, '-P', path.join(work, `mirror-${i}`), seed];
      const t0 = performance.now();
      const w = spawnSync('bash', ['-c', 'wget "$@"; s=$?; times; exit $s', 'wget', ...wgetArgs], { encoding: 'utf8' });
      wgetTimes.push(performance.now() - t0);
      wgetCpus.push(childCpuMs(w.stdout));
      if (w.status !== 0 && w.status !== 8) throw new Error(`wget failed (${w.status}): ${w.stderr}`);
      if (i === 0) wgetUrls = await wget200s(`${wdir}.warc.gz`);
      fs.rmSync(path.join(work, `mirror-${i}`), { recursive: true, force: true });
      as.push(runTrove(path.join(work, `trove-8x8-${i}`), fast));
      bs.push(runTrove(path.join(work, `trove-1-${i}`), single));
      loads.push(os.loadavg()[0]!);
    }
    const wgetMs = median(wgetTimes);
    const wgetCpuMs = median(wgetCpus);
    const a = { ...medianRun(as), ok200: as[0]!.ok200 };
    const b = { ...medianRun(bs), ok200: bs[0]!.ok200 };
    const have = new Set(a.ok200);
    const haveB = new Set(b.ok200);
    const norm = (u: string) => u.replace(/\/index\.html$/, '/');
    const missing = wgetUrls.filter((u) => !have.has(u) && !have.has(norm(u)) && !(u.endsWith('/') && have.has(u + 'index.html')));
    const missingB = wgetUrls.filter((u) => !haveB.has(u) && !haveB.has(norm(u)) && !(u.endsWith('/') && haveB.has(u + 'index.html')));

    const rows = [
      ['wget, 1 connection', wgetMs, wgetCpuMs, wgetUrls.length, '-', '-'],
      ['trove --per-host 8 --concurrency 8, no delay', a.ms, a.cpuMs, a.downloaded, (a.ms / wgetMs).toFixed(2) + '×', a.maxRssMb.toFixed(0) + ' MiB', `CPU ${(a.cpuMs / wgetCpuMs).toFixed(2)}× wget's (target ≤ 1.0×); time target ≤ 0.6×`],
      ['trove, one connection, no delay', b.ms, b.cpuMs, b.downloaded, (b.ms / wgetMs).toFixed(2) + '×', b.maxRssMb.toFixed(0) + ' MiB', `CPU ${(b.cpuMs / wgetCpuMs).toFixed(2)}× wget's; time target ≤ 0.9×`],
    ];
    const secs = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : '-');
    console.log(`\ncrawl: Python 3.11 docs on nginx ${nginx.origin} (${wgetUrls.length} URLs with 200 from wget); ${runs > 1 ? `medians of ${runs} alternated runs, ` : ''}1-min load average ${loads.map((l) => l.toFixed(2)).join(' → ')} on ${os.availableParallelism()} cores`);
    console.log('  run'.padEnd(50) + 'time'.padStart(10) + 'CPU'.padStart(10) + 'URIs'.padStart(8) + 'vs wget'.padStart(10) + 'peak RSS'.padStart(10));
    for (const r of rows) {
      console.log(`  ${String(r[0]).padEnd(48)}${secs(Number(r[1])).padStart(10)}${secs(Number(r[2])).padStart(10)}${String(r[3]).padStart(8)}${String(r[4]).padStart(10)}${String(r[5]).padStart(10)}  ${r[6] ?? ''}`);
    }
    // wget here is busy on the CPU, not waiting on the network: CPU per crawl is the figure that counts.
    if (Number.isFinite(wgetCpuMs)) {
      console.log(`  CPU: wget used ${secs(wgetCpuMs)} in ${secs(wgetMs)} (${((100 * wgetCpuMs) / wgetMs).toFixed(0)}% of one core); Trove's 8×8 crawl ${secs(a.cpuMs)} (${(a.cpuMs / wgetCpuMs).toFixed(2)}×), one connection ${secs(b.cpuMs)} (${(b.cpuMs / wgetCpuMs).toFixed(2)}×)`);
    }
    console.log(`  coverage: 8×8 run captured ${wgetUrls.length - missing.length}/${wgetUrls.length} of wget's 200 URLs; one-connection run ${wgetUrls.length - missingB.length}/${wgetUrls.length}`);
    // Per thread: what ran where. The extraction worker has exited by the end (the pool closes
    // with the crawl), so its CPU is what the process used beyond the threads still running.
    const byThread = (r: ChildResult) => {
      const alive = Object.values(r.threads).reduce((x, y) => x + y, 0);
      const parts = Object.entries(r.threads).filter(([, v]) => v > 0).sort((x, y) => y[1] - x[1]).map(([k, v]) => `${k} ${secs(v)}`);
      return [...parts, `exited threads (the extraction worker) ${secs(r.cpuMs - alive)}`].join(', ');
    };
    console.log(`  CPU by thread, 8×8 (first run): ${byThread(as[0]!)}`);
    console.log(`  CPU by thread, one connection (first run): ${byThread(bs[0]!)}`);
    if (missing.length) console.log(`  missing (first 10): ${missing.slice(0, 10).join(' ')}`);
    const peak = Math.max(...as.map((r) => r.maxRssMb), ...bs.map((r) => r.maxRssMb));
    console.log(`  peak RSS ${peak.toFixed(0)} MiB (highest of all Trove runs), target ≤ 150 MiB: ${peak <= 150 ? 'met' : 'MISSED'}`);
    if (opts.profile) {
      // One more 8×8 crawl under the V8 CPU profiler: one .cpuprofile per thread (workers inherit the flag).
      const profDir = path.join(work, 'profiles');
      const p = runTrove(path.join(work, 'trove-prof'), fast, ['--cpu-prof', `--cpu-prof-dir=${profDir}`]);
      console.log(`\n  CPU profile of one 8×8 crawl (${p.downloaded} URIs, ${secs(p.cpuMs)} CPU with the profiler on), self time:\n`);
      console.log(formatSummary(summarizeProfiles(profDir), 25));
    }
    return {
      wgetMs,
      wgetCpuMs,
      fastMs: a.ms,
      fastCpuMs: a.cpuMs,
      singleMs: b.ms,
      fastRatio: a.ms / wgetMs,
      singleRatio: b.ms / wgetMs,
      peakRssMb: peak,
      wgetUrls: wgetUrls.length,
      missing: missing.length,
    };
  } finally {
    await nginx.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const argv = process.argv.slice(2);
  const runs = argv.find((a) => a.startsWith('--runs='));
  await runCrawlBench({ profile: argv.includes('--profile'), runs: runs ? Number(runs.slice('--runs='.length)) : 1 });
}
