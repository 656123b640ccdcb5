/**
 * Indexing benchmark (issue: archive library): `trove index` against warcio's own
 * `warcio cdx-index` on the same 300+ MB WARC.gz in the same run, and against the time to merely
 * inflate the file (Node's gunzip stream into nothing). The file is built by crawling Debian's
 * Python docs with nginx when they are installed (a realistic mix of request, response and
 * metadata records) and concatenating that crawl's WARC until it passes 300 MB; otherwise by
 * writing synthetic pages with Trove's WARC writer.
 *
 * `trove index` runs as users run it, through bin/trove.js's shebang, and warcio's CLI on the same
 * Node: each a whole process (start-up included), under GNU time when /usr/bin/time is there, so
 * CPU and max RSS are printed beside the wall time.
 *
 * Targets: trove ≥ 2× faster than warcio; trove ≤ 1.5× the inflate time.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { nginxAvailable, startNginx } from './bench-nginx.ts';
import { startCrawl } from '../core/crawl/start-crawl.ts';
import { writeSyntheticWarc } from './synthetic-warc.ts';
import { shebangEnv } from './cli-node-flags.ts';
import { GNU_TIME, timeProcess, type ProcessTimes } from './time-v.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const DOCS = '/usr/share/doc/python3-doc/html';
const TARGET = 300 * 1024 * 1024;

async function seedWarc(work: string): Promise<string> {
  if (nginxAvailable() && fs.existsSync(DOCS)) {
    const nginx = await startNginx(fs.realpathSync(DOCS));
    try {
      const dir = path.join(work, 'crawl');
      const crawl = await startCrawl({ dir, settings: { seeds: [nginx.origin + '/'], perHost: 8, concurrency: 8, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, name: 'index-bench' } });
      await crawl.finished();
      const warcs = fs.readdirSync(path.join(dir, 'warcs')).filter((n) => n.endsWith('.warc.gz'));
      return path.join(dir, 'warcs', warcs[0]!);
    } finally {
      await nginx.close();
    }
  }
  // Synthetic: 2,000 pages of 40 KB, each response with its request record.
  return writeSyntheticWarc(path.join(work, 'synthetic'));
}

function buildBig(seed: string, out: string): number {
  const bytes = fs.readFileSync(seed);
  const fd = fs.openSync(out, 'w');
  let size = 0;
  try {
    while (size < TARGET) {
      fs.writeSync(fd, bytes);
      size += bytes.length;
    }
  } finally {
    fs.closeSync(fd);
  }
  return size;
}

/**
 * One command as a whole process, start-up included: under GNU time when it is installed (CPU,
 * wall and max RSS), else its wall time alone.
 */
function timeCommand(cmd: string, args: string[], env: NodeJS.ProcessEnv, report: string): ProcessTimes {
  if (fs.existsSync(GNU_TIME)) return timeProcess(cmd, args, { env, report });
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 30, env });
  const wallS = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  return { userS: NaN, sysS: NaN, wallS, maxRssKib: NaN, exitStatus: 0 };
}

async function inflateMs(file: string): Promise<number> {
  const t0 = performance.now();
  await pipeline(fs.createReadStream(file, { highWaterMark: 1 << 20 }), zlib.createGunzip({ chunkSize: 1 << 20 }), new Writable({ write: (_c, _e, cb) => cb() }));
  return performance.now() - t0;
}

/** The run with the shortest wall time of `n`. */
function bestRun(n: number, f: () => ProcessTimes): ProcessTimes {
  let m: ProcessTimes | null = null;
  for (let i = 0; i < n; i++) {
    const t = f();
    if (m === null || t.wallS < m.wallS) m = t;
  }
  return m!;
}

export async function runIndexBench(): Promise<Record<string, number>> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-index-bench-'));
  try {
    const seed = await seedWarc(work);
    const big = path.join(work, 'big.warc.gz');
    const size = buildBig(seed, big);
    await inflateMs(big); // warm the page cache
    let inflate = Infinity;
    for (let i = 0; i < 3; i++) inflate = Math.min(inflate, await inflateMs(big));
    // Both as users run them, each a whole process: warcio's CLI on the same Node, Trove's through its shebang.
    const report = path.join(work, 'time-v.txt');
    const w = bestRun(2, () => timeCommand(process.execPath, [path.join(root, 'node_modules/warcio/dist/cli.js'), 'cdx-index', big], process.env, report));
    const t = bestRun(3, () => timeCommand(path.join(root, 'bin/trove.js'), ['index', big], shebangEnv(), report));
    const warcio = w.wallS * 1000;
    const trove = t.wallS * 1000;
    const cpu = (p: ProcessTimes) => (Number.isFinite(p.userS) ? `, CPU ${(p.userS + p.sysS).toFixed(2)} s, max RSS ${(p.maxRssKib / 1024).toFixed(0)} MiB` : '');
    console.log(`\nindex: ${(size / 1048576).toFixed(0)} MB WARC.gz (${path.basename(seed)} concatenated); whole processes, best wall of 2 (warcio) and 3 (trove); load ${fs.readFileSync('/proc/loadavg', 'utf8').trim()}`);
    console.log(`  inflate only (node gunzip)   ${(inflate / 1000).toFixed(2)} s`);
    console.log(`  warcio cdx-index             ${(warcio / 1000).toFixed(2)} s${cpu(w)}`);
    console.log(`  trove index                  ${(trove / 1000).toFixed(2)} s${cpu(t)}`);
    console.log(`  warcio / trove               ${(warcio / trove).toFixed(2)}×   target ≥ 2×`);
    console.log(`  trove / inflate              ${(trove / inflate).toFixed(2)}×   target ≤ 1.5×`);
    return { sizeMb: size / 1048576, inflateMs: inflate, warcioMs: warcio, troveMs: trove, speedupVsWarcio: warcio / trove, vsInflate: trove / inflate };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runIndexBench();
