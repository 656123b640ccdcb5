/**
 * Archives of tens of gigabytes (issue 39, part 3): generates synthetic WARCs of realistic records
 * (HTML pages of varied text that compress as real pages do, incompressible images, the request
 * record of each, a revisit now and then) up to `--size` MB, then runs each operation on them as a
 * whole `trove` process under GNU time and prints its wall time and peak RSS beside a plain
 * `gunzip -c` and a `cp` of the same bytes:
 *
 *   import           trove import <warcs> --archive <dir>
 *   check            trove check <warcs>
 *   cdxj export      trove export <dir> --cdxj <file>
 *   wacz export      trove export <dir> --wacz <file>
 *
 * The issue's target at 20 GB (about 2M captures): peak RSS at most 300 MB each, time printed
 * against the gunzip/copy. Then, on the imported archive, in a child of its own
 * (big-archive-queries.ts): replay lookup p50/p99 (target p50 < 2 ms), full-text search p50
 * (target < 100 ms over 1M pages) and the Pages view's first screen (target < 1 s).
 * Run: `npm run bench -- big-archive --size 200` (default 100 MB; the generated files are removed
 * at the end, `--keep DIR` writes and keeps them there). The issue's run: `--size 20480`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execSync, spawnSync } from 'node:child_process';
import { cliNodeEnv, cliNodeFlags } from './cli-node-flags.ts';
import { WarcWriter } from '../core/warc/warc-writer.ts';
import { timeProcess, type ProcessTimes } from './time-v.ts';
import { bigArchiveUrl, isImageCapture, rng, textWord } from './big-archive-data.ts';

const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'trove.js');
const queriesScript = path.join(path.dirname(fileURLToPath(import.meta.url)), 'big-archive-queries.ts');
const FILE_BYTES = 1024 ** 3; // WARC files of 1 GB, as crawlers roll them

function htmlPage(i: number, rand: () => number): Buffer {
  const words = 800 + Math.floor(rand() * 4000);
  const text: string[] = [];
  for (let w = 0; w < words; w++) text.push(textWord(rand));
  const links = Array.from({ length: 20 }, () => `<a href="/p/${Math.floor(rand() * 1e6)}.html">more</a>`).join(' ');
  return Buffer.from(`<!doctype html><html><head><title>Page ${i} ${text.slice(0, 6).join(' ')}</title></head><body><h1>${text.slice(0, 8).join(' ')}</h1><p>${text.join(' ')}</p>${links}</body></html>`);
}

/** Writes about `sizeMb` MB of gzipped WARC into `dir`; returns the files and the captures written. */
async function writeWarcs(dir: string, sizeMb: number): Promise<{ files: string[]; captures: number }> {
  fs.mkdirSync(dir, { recursive: true });
  const w = new WarcWriter({ dir, prefix: 'BIG', maxBytes: FILE_BYTES, warcinfo: () => ({ fields: { software: 'trove big-archive bench' } }) });
  const rand = rng(39);
  const start = new Date('2026-01-01T00:00:00Z').getTime();
  let captures = 0;
  const size = () => fs.readdirSync(dir).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);
  for (let i = 0; ; i++) {
    if (i % 200 === 0 && size() >= sizeMb * 1024 * 1024) break;
    const image = isImageCapture(i);
    const url = bigArchiveUrl(i);
    const body = image ? Buffer.from(Array.from({ length: 20_000 + Math.floor(rand() * 60_000) }, () => Math.floor(rand() * 256))) : htmlPage(i, rand);
    const head = Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: ${image ? 'image/jpeg' : 'text/html; charset=utf-8'}\r\nContent-Length: ${body.length}\r\n\r\n`);
    const id = `<urn:uuid:00000000-0000-4000-8000-${String(i).padStart(12, '0')}>`;
    const date = new Date(start + i * 1000);
    await w.writeGroup([
      { type: 'response', targetUri: url, date, recordId: id, contentType: 'application/http; msgtype=response', blockParts: [head, body] },
      { type: 'request', targetUri: url, date, contentType: 'application/http; msgtype=request', fields: [['WARC-Concurrent-To', id]], blockParts: [Buffer.from(`GET ${new URL(url).pathname} HTTP/1.1\r\nHost: ${new URL(url).host}\r\n\r\n`)] },
    ]);
    captures++;
  }
  await w.close();
  return { files: fs.readdirSync(dir).filter((n) => n.endsWith('.warc.gz')).sort().map((n) => path.join(dir, n)), captures };
}

function arg(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

async function main(): Promise<void> {
  const sizeMb = Number(arg('--size') ?? 100);
  const keep = arg('--keep');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-big-archive-'));
  const warcDir = keep ?? path.join(tmp, 'warcs');
  const report = path.join(tmp, 'time.txt');
  try {
    const t0 = performance.now();
    const { files, captures } = await writeWarcs(warcDir, sizeMb);
    const bytes = files.reduce((n, f) => n + fs.statSync(f).size, 0);
    console.log(`uptime: ${execSync('uptime').toString().trim()}`);
    console.log(`big-archive: ${files.length} WARC file(s), ${(bytes / 1024 ** 2).toFixed(0)} MB gzipped, ${captures.toLocaleString('en')} captures, written in ${((performance.now() - t0) / 1000).toFixed(1)} s, ${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(1)}`);
    const archive = path.join(tmp, 'archive');
    // The CLI as users run it: bin/trove.js's shebang flags and environment (cli-node-flags.ts).
    const trove = (...args: string[]): [string, string[]] => [process.execPath, [...cliNodeFlags(), bin, ...args]];
    const ops: [string, string, string[]][] = [
      ['gunzip -c (reference)', 'sh', ['-c', `for f in ${files.map((f) => `'${f}'`).join(' ')}; do gunzip -c "$f" > /dev/null; done`]],
      ['cp (reference)', 'cp', [...files, fs.mkdtempSync(path.join(tmp, 'copy-'))]],
      ['import', ...trove('import', ...files, '--archive', archive, '--no-progress')],
      ['check', ...trove('check', '--errors-only', '--no-progress', ...files)],
      ['cdxj export', ...trove('export', archive, '--cdxj', path.join(tmp, 'all.cdxj'), '--no-progress')],
      ['wacz export', ...trove('export', archive, '--wacz', path.join(tmp, 'all.wacz'), '--no-progress')],
    ];
    const rows: [string, ProcessTimes][] = [];
    for (const [name, cmd, args] of ops) rows.push([name, timeProcess(cmd, args, { report, env: cliNodeEnv() })]);
    const gunzip = rows[0]![1].wallS;
    console.log(`${'operation'.padEnd(24)} ${'wall s'.padStart(8)} ${'cpu s'.padStart(8)} ${'peak RSS MB'.padStart(12)} ${'x gunzip'.padStart(9)}`);
    for (const [name, t] of rows) {
      console.log(`${name.padEnd(24)} ${t.wallS.toFixed(1).padStart(8)} ${(t.userS + t.sysS).toFixed(1).padStart(8)} ${(t.maxRssKib / 1024).toFixed(0).padStart(12)} ${(t.wallS / gunzip).toFixed(2).padStart(9)}`);
    }
    console.log(`target at 20 GB: peak RSS <= 300 MB for import, check, cdxj and wacz export (this run: ${(bytes / 1024 ** 3).toFixed(2)} GB)`);
    const queries = spawnSync(process.execPath, [...cliNodeFlags(), queriesScript, archive, String(captures)], { encoding: 'utf8', env: cliNodeEnv() });
    if (queries.status !== 0) throw new Error(`big-archive-queries failed: ${queries.stderr}`);
    const q = JSON.parse(queries.stdout.trim().split('\n').at(-1)!) as Record<string, number>;
    const f = (n: number | undefined) => (n ?? NaN).toFixed(2);
    console.log(`replay lookup (replayHead, 500 URLs): p50 ${f(q.lookupP50)} ms, p99 ${f(q.lookupP99)} ms, CPU p50 ${f(q.lookupCpuP50)} ms, ${q.lookupMisses} not found (target p50 < 2 ms)`);
    console.log(`full-text search (records.search, 50 hits, ${q.searchHits} hits over 16 queries): p50 ${f(q.searchP50)} ms, p99 ${f(q.searchP99)} ms, CPU p50 ${f(q.searchCpuP50)} ms (target p50 < 100 ms)`);
    console.log(`Pages view first screen (open + records.sortedPages, 200 by title, of ${q.pagesTotal}): ${f(q.pagesFirstMs)} ms, again p50 ${f(q.pagesAgainP50)} ms (target < 1000 ms)`);
    console.log(`uptime: ${execSync('uptime').toString().trim()}`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
