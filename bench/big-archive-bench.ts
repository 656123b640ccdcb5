/**
 * Archives of tens of gigabytes (issue 39, part 3): generates synthetic WARCs of realistic records
 * (HTML pages of varied text that compress as real pages do, big-archive-data.ts; incompressible images; the request
 * record of each) up to `--size` MB, then runs each operation on them as a whole `trove` process
 * under GNU time and prints its wall time, CPU and peak RSS beside a plain `gunzip -c` and a `cp`
 * of the same bytes:
 *
 *   import           trove import <warcs> --archive <dir>       (by reference: no copy of the WARCs)
 *   check            trove check <warcs>
 *   cdxj export      trove export <dir> --cdxj <file>
 *   wacz export      trove export <dir> --wacz <file>
 *   wacz check       trove check <that file>                      (step checkwacz; its WARCs are read in place)
 *
 * The issue's target at 20 GB (about 1.2M captures): peak RSS at most 300 MB each, time printed
 * against the gunzip/copy. Then, on the imported archive, in a child of its own
 * (big-archive-queries.ts): replay lookup p50/p99 (target p50 < 2 ms), full-text search p50
 * (target < 100 ms over 1M pages) and the Pages view's first screen (target < 1 s).
 *
 * The WARCs are files of 1 GB (as crawlers roll them; `--file-mb`), each written by a child
 * process of its own (big-archive-warc.ts), as many at once as `--jobs` (default: the cores). A 20 GB run takes
 * hours, so it can be spread over sessions: `--keep DIR` keeps the WARCs (DIR/warcs), the
 * imported archive (DIR/archive) and each step's figures (DIR/results.json); a later run with the
 * same DIR writes only the WARCs missing, and `--steps` picks the steps to run (the others'
 * figures are printed from results.json). Before it writes anything it prints the disk space the
 * run needs and stops if the temporary folder (or DIR) has less free.
 *
 *   npm run bench -- big-archive --size 200                     (default 100 MB; all removed at the end)
 *   npm run bench -- big-archive --size 20480 --keep /tmp/big20g --steps gen,gunzip,cp,import
 *   npm run bench -- big-archive --size 20480 --keep /tmp/big20g --steps check,cdxj,wacz,checkwacz,queries
 *
 * The WACZ is removed as soon as the last step that reads it has run: `wacz`, or `checkwacz`
 * (which needs `wacz` in the same run: the package is not kept).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execSync, spawn, spawnSync } from 'node:child_process';
import { cliNodeEnv, cliNodeFlags } from './cli-node-flags.ts';
import { timeProcess, type ProcessTimes } from './time-v.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.join(here, '..', 'bin', 'trove.js');
const queriesScript = path.join(here, 'big-archive-queries.ts');
const warcScript = path.join(here, 'big-archive-warc.ts');
const MIB = 1024 ** 2;
/** Gzipped bytes per capture (response + request) as big-archive-warc.ts writes them: 54.6 MB for 3,000. */
const BYTES_PER_CAPTURE = 18_200;
/**
 * Disk the WACZ check's temporary record store takes per capture at most: WARC number, offset,
 * length, digest and URL of its indexed record, and the URL index the pages check builds.
 */
const CHECK_STORE_BYTES_PER_CAPTURE = 512;
const STEPS = ['gen', 'gunzip', 'cp', 'import', 'check', 'cdxj', 'wacz', 'checkwacz', 'queries'] as const;
type Step = (typeof STEPS)[number];

interface WarcPlan {
  prefix: string;
  first: number;
  count: number;
}

/** The files a run of `captures` captures is made of: fixed ranges, so a kept folder can be completed. */
function planWarcs(captures: number, fileBytes: number): WarcPlan[] {
  const perFile = Math.max(1, Math.round(fileBytes / BYTES_PER_CAPTURE));
  const plan: WarcPlan[] = [];
  for (let first = 0; first < captures; first += perFile) {
    const count = Math.min(perFile, captures - first);
    plan.push({ prefix: `BIG-${String(first).padStart(9, '0')}-${count}`, first, count });
  }
  return plan;
}

/** The complete file of this plan in `dir` (WarcWriter renames `.open` files when done), or null. */
function finished(dir: string, w: WarcPlan): string | null {
  const name = fs.readdirSync(dir).find((n) => n.startsWith(`${w.prefix}-`) && n.endsWith('.warc.gz'));
  return name ? path.join(dir, name) : null;
}

/** Writes the missing files of `plan` into `dir`, `jobs` children at once; returns every file. */
async function writeWarcs(dir: string, plan: WarcPlan[], jobs: number): Promise<string[]> {
  fs.mkdirSync(dir, { recursive: true });
  for (const n of fs.readdirSync(dir)) if (n.endsWith('.open')) fs.rmSync(path.join(dir, n)); // an interrupted run's
  const todo = plan.filter((w) => !finished(dir, w));
  const one = (w: WarcPlan): Promise<void> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [warcScript, dir, w.prefix, String(w.first), String(w.count)], { stdio: ['ignore', 'inherit', 'inherit'] });
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`big-archive-warc.ts ${w.prefix} exited ${code}`))));
    });
  const workers = Array.from({ length: Math.min(jobs, todo.length) }, async () => {
    for (let w = todo.shift(); w; w = todo.shift()) await one(w);
  });
  await Promise.all(workers);
  return plan.map((w) => finished(dir, w)!);
}

/** Free bytes where `dir` lives (df), or null when df cannot say. */
function freeBytes(dir: string): number | null {
  const r = spawnSync('df', ['-Pk', dir], { encoding: 'utf8' });
  const kib = Number(r.stdout?.trim().split('\n').at(-1)?.split(/\s+/)[3]);
  return Number.isFinite(kib) ? kib * 1024 : null;
}

/**
 * What the steps to run will still write, at their peak: the missing WARCs, the archive's
 * database with its full-text index (234 MB for 198 MB of these WARCs: page text is stored and
 * indexed uncompressed), and the larger of the `cp` copy and the WACZ (each about the WARC bytes;
 * the copy is removed as soon as it is timed, the CDXJ too, the WACZ once checked), with the WACZ
 * check's record store beside the WACZ (it reads the WARCs in the package in place: no copy). The
 * WARCs are imported by reference, not copied. At 20 GB: 20 + 25 + 20 + 0.6 = about 66 GB.
 */
function bytesNeeded(size: number, missing: number, steps: Set<Step>): number {
  const archive = steps.has('import') ? 1.25 * size : 0;
  const copy = steps.has('cp') || steps.has('wacz') ? size : 0;
  const checkStore = steps.has('checkwacz') ? (size / BYTES_PER_CAPTURE) * CHECK_STORE_BYTES_PER_CAPTURE : 0;
  return Math.ceil(missing + archive + copy + checkStore + 64 * MIB);
}

function arg(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

type Results = Record<string, ProcessTimes>;

function fmt(t: ProcessTimes, gunzip: ProcessTimes | undefined): string {
  const cpu = t.userS + t.sysS;
  const ref = gunzip ? gunzip.userS + gunzip.sysS : NaN;
  return `${t.wallS.toFixed(1).padStart(8)} ${cpu.toFixed(1).padStart(8)} ${(t.maxRssKib / 1024).toFixed(0).padStart(12)} ${(gunzip ? t.wallS / gunzip.wallS : NaN).toFixed(2).padStart(10)} ${(cpu / ref).toFixed(2).padStart(9)}`;
}

async function main(): Promise<void> {
  const sizeMb = Number(arg('--size') ?? 100);
  const keep = arg('--keep');
  const jobs = Math.max(1, Number(arg('--jobs') ?? os.availableParallelism()));
  const steps = new Set((arg('--steps') ?? STEPS.join(',')).split(',').map((x) => x.trim()) as Step[]);
  for (const st of steps) if (!STEPS.includes(st)) throw new Error(`--steps: unknown step ${st} (steps: ${STEPS.join(',')})`);
  if (steps.has('checkwacz') && !steps.has('wacz')) throw new Error('--steps: checkwacz checks the WACZ the wacz step writes in the same run; add wacz');
  if (keep) fs.mkdirSync(keep, { recursive: true });
  // Scratch (the copy, the CDXJ, the WACZ) on the same disk as the WARCs, so one df says it all.
  const tmp = fs.mkdtempSync(path.join(keep ? path.resolve(keep) : os.tmpdir(), 'trove-big-archive-'));
  const home = keep ? path.resolve(keep) : tmp;
  const warcDir = path.join(home, 'warcs');
  const archive = path.join(home, 'archive');
  const resultsFile = path.join(home, 'results.json');
  // Figures kept from earlier runs of the same size only.
  const kept = keep && fs.existsSync(resultsFile) ? (JSON.parse(fs.readFileSync(resultsFile, 'utf8')) as { sizeMb?: number; results?: Results }) : {};
  const results: Results = kept.sizeMb === sizeMb ? (kept.results ?? {}) : {};
  const report = path.join(tmp, 'time.txt');
  try {
    // WARC files of 1 GB by default, as crawlers roll them.
    const plan = planWarcs(Math.max(1, Math.round((sizeMb * MIB) / BYTES_PER_CAPTURE)), Number(arg('--file-mb') ?? 1024) * MIB);
    const captures = plan.reduce((n, w) => n + w.count, 0);
    fs.mkdirSync(warcDir, { recursive: true });
    const missing = plan.filter((w) => !finished(warcDir, w)).reduce((n, w) => n + w.count * BYTES_PER_CAPTURE, 0);
    const need = bytesNeeded(sizeMb * MIB, steps.has('gen') ? missing : 0, steps);
    const free = freeBytes(home);
    console.log(`uptime: ${execSync('uptime').toString().trim()}`);
    console.log(`big-archive: ${plan.length} WARC file(s) of ${captures.toLocaleString('en')} captures (about ${sizeMb} MB) in ${home}; ${(missing / MIB).toFixed(0)} MB of them to write; this run needs about ${(need / 1024 ** 3).toFixed(1)} GB free, ${free === null ? 'df cannot say how much is' : `${(free / 1024 ** 3).toFixed(1)} GB are`}`);
    if (free !== null && free < need) {
      console.error(`big-archive: not enough free disk in ${home}: the run needs about ${(need / 1024 ** 3).toFixed(1)} GB (WARCs still to write, the archive's database, a WACZ or copy of the WARCs), and df shows ${(free / 1024 ** 3).toFixed(1)} GB. Free some space, or pass --keep DIR on a bigger disk.`);
      process.exitCode = 1;
      return;
    }
    let files: string[];
    if (steps.has('gen')) {
      const t0 = performance.now();
      const cpu0 = childCpuSeconds();
      const before = new Set(plan.map((w) => finished(warcDir, w)));
      files = await writeWarcs(warcDir, plan, jobs);
      const s = (performance.now() - t0) / 1000;
      const cpu = childCpuSeconds() - cpu0;
      const written = files.filter((f) => !before.has(f)).reduce((n, f) => n + fs.statSync(f).size, 0);
      if (written > 0) console.log(`written: ${(written / MIB).toFixed(0)} MB in ${s.toFixed(1)} s wall = ${(written / MIB / s).toFixed(1)} MB/s with ${Math.min(jobs, plan.length)} process(es) at once, ${cpu.toFixed(1)} CPU s = ${(written / MIB / cpu).toFixed(1)} MB per CPU s; uptime: ${execSync('uptime').toString().trim()}`);
    } else {
      files = plan.map((w) => finished(warcDir, w)).filter((f): f is string => f !== null);
      if (files.length < plan.length) throw new Error(`--steps without gen: ${plan.length - files.length} of the ${plan.length} WARC files are not in ${warcDir}`);
    }
    const bytes = files.reduce((n, f) => n + fs.statSync(f).size, 0);
    console.log(`big-archive: ${files.length} WARC file(s), ${(bytes / MIB).toFixed(0)} MB gzipped, ${captures.toLocaleString('en')} captures, ${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(1)}`);
    // The CLI as users run it: bin/trove.js's shebang flags and environment (cli-node-flags.ts).
    const trove = (...args: string[]): [string, string[]] => [process.execPath, [...cliNodeFlags(), bin, ...args]];
    const copyDir = path.join(tmp, 'copy');
    const wacz = path.join(tmp, 'all.wacz');
    const removeWacz = () => fs.rmSync(wacz, { force: true });
    const ops: [Step, string, string, string[], () => void][] = [
      ['gunzip', 'gunzip -c (reference)', 'sh', ['-c', `for f in ${files.map((f) => `'${f}'`).join(' ')}; do gunzip -c "$f" > /dev/null; done`], () => undefined],
      ['cp', 'cp (reference)', 'cp', [...files, (fs.mkdirSync(copyDir, { recursive: true }), copyDir)], () => fs.rmSync(copyDir, { recursive: true, force: true })],
      ['import', 'import', ...trove('import', ...files, '--archive', archive, '--no-progress'), () => undefined],
      ['check', 'check', ...trove('check', '--errors-only', '--no-progress', ...files), () => undefined],
      ['cdxj', 'cdxj export', ...trove('export', archive, '--cdxj', path.join(tmp, 'all.cdxj'), '--no-progress'), () => fs.rmSync(path.join(tmp, 'all.cdxj'), { force: true })],
      ['wacz', 'wacz export', ...trove('export', archive, '--wacz', wacz, '--no-progress'), steps.has('checkwacz') ? () => undefined : removeWacz],
      ['checkwacz', 'wacz check', ...trove('check', wacz, '--errors-only', '--no-progress'), removeWacz],
    ];
    for (const [step, name, cmd, args, after] of ops) {
      if (!steps.has(step)) continue;
      if (step === 'import') fs.rmSync(archive, { recursive: true, force: true });
      if ((step === 'cdxj' || step === 'wacz') && !fs.existsSync(archive)) throw new Error(`${name}: no imported archive in ${archive} (run the import step)`);
      results[name] = timeProcess(cmd, args, { report, env: cliNodeEnv() });
      after();
      if (keep) fs.writeFileSync(resultsFile, JSON.stringify({ sizeMb, results }, null, 2));
      console.log(`${name}: done (${results[name]!.wallS.toFixed(1)} s)`);
    }
    const gunzip = results['gunzip -c (reference)'];
    console.log(`${'operation'.padEnd(24)} ${'wall s'.padStart(8)} ${'cpu s'.padStart(8)} ${'peak RSS MB'.padStart(12)} ${'wall x gz'.padStart(10)} ${'cpu x gz'.padStart(9)}`);
    for (const [, name] of ops) {
      const t = results[name];
      if (t) console.log(`${name.padEnd(24)} ${fmt(t, gunzip)}${steps.has(ops.find((o) => o[1] === name)![0]) ? '' : '  (kept from an earlier run)'}`);
    }
    if (fs.existsSync(archive)) console.log(`archive folder: ${(Number(execSync(`du -sk '${archive}'`).toString().split(/\s/)[0]) / 1024).toFixed(0)} MB (the WARCs are referenced, not copied)`);
    console.log(`target at 20 GB: peak RSS <= 300 MB for import, check, cdxj and wacz export, wacz check (this run: ${(bytes / 1024 ** 3).toFixed(2)} GB)`);
    if (steps.has('queries') && fs.existsSync(archive)) queryFigures(archive, captures);
    console.log(`uptime: ${execSync('uptime').toString().trim()}`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** CPU seconds of this process's finished children (the WARC writers). */
function childCpuSeconds(): number {
  const stat = fs.readFileSync(`/proc/${process.pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) / 100; // fields 16 and 17: cutime + cstime, in clock ticks (USER_HZ = 100)
}

function queryFigures(archive: string, captures: number): void {
  const queries = spawnSync(process.execPath, [...cliNodeFlags(), queriesScript, archive, String(captures)], { encoding: 'utf8', env: cliNodeEnv() });
  if (queries.status !== 0) throw new Error(`big-archive-queries failed: ${queries.stderr}`);
  const q = JSON.parse(queries.stdout.trim().split('\n').at(-1)!) as Record<string, number>;
  const f = (n: number | undefined) => (n ?? NaN).toFixed(2);
  console.log(`replay lookup (replayHead, 500 URLs): p50 ${f(q.lookupP50)} ms, p99 ${f(q.lookupP99)} ms, CPU p50 ${f(q.lookupCpuP50)} ms, ${q.lookupMisses} not found (target p50 < 2 ms)`);
  console.log(`full-text search (records.search, 50 hits, ${q.searchHits} hits over 16 queries): p50 ${f(q.searchP50)} ms, p99 ${f(q.searchP99)} ms, CPU p50 ${f(q.searchCpuP50)} ms (target p50 < 100 ms)`);
  console.log(`Pages view first screen (open + records.sortedPages, 200 by title, of ${q.pagesTotal}): ${f(q.pagesFirstMs)} ms, again p50 ${f(q.pagesAgainP50)} ms (target < 1000 ms)`);
}

await main();
