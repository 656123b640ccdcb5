/**
 * Export benchmark (issue: Export). WACZ export of a crawl against a plain copy of its WARC bytes,
 * measured in the same run, in a child process so its peak RSS is the export's own:
 *
 *   copy      the WARC files copied with a stream (read + write, as the export must do) and with
 *             fs.copyFile (which the kernel may shortcut: copy_file_range, reflinks);
 *   wacz      exportWacz() of the same archive (the WARCs stored with the fixity recorded when the
 *             crawl wrote them, plus index and pages);
 *   verify    the same with verifyFixity (every WARC hashed again: SHA-256 and CRC-32);
 *   ratio     wacz / stream copy, and wacz / copyFile. Target: ≤ 1.5× the copy.
 *   rss       peak RSS (getrusage maxrss) of a child that only exports, for the archive and for
 *             one holding every WARC twice (median of three children each). Target: flat (the
 *             same for both).
 *
 * Without an archive directory it makes one (~70 MB): a generated site (600 HTML pages with
 * links, 200 incompressible 300 KB "images") served by nginx when installed (else a small Node
 * static server), crawled by Trove at full speed. After a warm-up read the measurements take
 * turns for five rounds and the fastest round of each counts, so neither side pays for a cold
 * page cache.
 *
 * Run: node bench/export-bench.ts [archiveDir]
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { openArchive } from '../core/archive/archive-dir.ts';
import { importFiles } from '../core/archive/import-warc.ts';
import { startCrawl } from '../core/crawl/start-crawl.ts';
import { archiveWarcs } from '../core/export/archive-warcs.ts';
import { exportWacz } from '../core/export/export-wacz.ts';
import { nginxAvailable, startNginx } from './bench-nginx.ts';
import { cliNodeFlags } from './cli-node-flags.ts';

const here = fileURLToPath(import.meta.url);
const PAGES = 600;
const IMAGES = 200;
const IMAGE_BYTES = 300 << 10;
/** Runs of each measurement; the fastest counts (this machine's timings are noisy). */
const ROUNDS = 5;

/** A folder of generated pages and incompressible images. */
function generateSite(root: string): void {
  fs.mkdirSync(path.join(root, 'p'), { recursive: true });
  fs.mkdirSync(path.join(root, 'img'), { recursive: true });
  const rnd = crypto.createHash('sha256');
  for (let i = 0; i < IMAGES; i++) {
    const chunks: Buffer[] = [];
    let seed = rnd.update(String(i)).copy().digest();
    for (let n = 0; n < IMAGE_BYTES; n += seed.length) {
      seed = crypto.createHash('sha256').update(seed).digest();
      chunks.push(seed);
    }
    fs.writeFileSync(path.join(root, 'img', `${i}.png`), Buffer.concat(chunks).subarray(0, IMAGE_BYTES));
  }
  const words = 'archive crawl lighthouse harbour ledger quill folio margin index vellum'.split(' ');
  for (let i = 0; i < PAGES; i++) {
    const links = [1, 2, 3, 7, 31].map((d) => `<a href="/p/${(i + d) % PAGES}.html">page ${(i + d) % PAGES}</a>`).join(' ');
    const text = Array.from({ length: 2000 }, (_, k) => words[(i * 7 + k * 3) % words.length]).join(' ');
    const img = i < IMAGES ? `<img src="/img/${i}.png">` : '';
    fs.writeFileSync(
      path.join(root, 'p', `${i}.html`),
      `<!doctype html><html><head><title>Page ${i}</title><link rel="stylesheet" href="/site.css"></head><body><h1>Page ${i}</h1>${img}<p>${text}</p>${links}</body></html>`,
    );
  }
  fs.writeFileSync(path.join(root, 'site.css'), 'body { font-family: serif; }');
  fs.writeFileSync(path.join(root, 'index.html'), `<!doctype html><title>Bench</title><a href="/p/0.html">start</a>`);
}

/** A Node static file server, for machines without nginx. */
async function startStatic(root: string): Promise<{ origin: string; close(): Promise<void> }> {
  const types: Record<string, string> = { '.html': 'text/html', '.css': 'text/css', '.png': 'image/png' };
  const server = http.createServer((req, res) => {
    const p = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const file = path.join(root, p.endsWith('/') ? `${p}index.html` : p);
    if (!file.startsWith(root) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': types[path.extname(file)] ?? 'application/octet-stream', 'Content-Length': fs.statSync(file).size });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function makeArchive(work: string): Promise<string> {
  const site = path.join(work, 'site');
  generateSite(site);
  const server = nginxAvailable() ? await startNginx(site) : await startStatic(site);
  const dir = path.join(work, 'archive');
  try {
    const crawl = await startCrawl({
      dir,
      settings: { name: 'export-bench', seeds: [server.origin + '/'], perHost: 8, concurrency: 8, minDelayMs: 0, maxDelayMs: 0, delayFactor: 0, minFreeDiskBytes: 0 },
    });
    await crawl.finished();
  } finally {
    await server.close();
  }
  return dir;
}

/** In a child: only a WACZ export, for its peak RSS. */
async function exportOnly(dir: string, out: string): Promise<Record<string, number>> {
  const archive = openArchive(dir, { create: false });
  try {
    const rssBefore = process.memoryUsage().rss;
    const r = await exportWacz(archive, path.join(out, 'rss.wacz'));
    await fsp.rm(path.join(out, 'rss.wacz'), { force: true });
    return { warcMB: +(archiveWarcs(archive).reduce((s, w) => s + w.size, 0) / 1e6).toFixed(1), rssBeforeMB: Math.round(rssBefore / 2 ** 20), peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024), captures: r.captures };
  } finally {
    archive.close();
  }
}

/** In the child: the timings. */
async function measure(dir: string, out: string): Promise<Record<string, number>> {
  const archive = openArchive(dir, { create: false });
  try {
    const warcs = archiveWarcs(archive);
    const bytes = warcs.reduce((s, w) => s + w.size, 0);
    const copyDir = path.join(out, 'copy');
    await fsp.mkdir(copyDir, { recursive: true });
    for (const w of warcs) await pipeline(fs.createReadStream(w.source, { start: w.start, end: w.start + w.size - 1, highWaterMark: 1 << 20 }), fs.createWriteStream('/dev/null'));
    // The measurements take turns, round after round, so each sees the same page cache and
    // writeback state; the fastest round of each counts.
    const runs: Record<string, () => Promise<void>> = {
      stream: async () => {
        for (const w of warcs) {
          await pipeline(fs.createReadStream(w.source, { start: w.start, end: w.start + w.size - 1, highWaterMark: 1 << 20 }), fs.createWriteStream(path.join(copyDir, w.name)));
        }
      },
      copyFile: async () => {
        for (const w of warcs) await fsp.copyFile(w.source, path.join(copyDir, w.name));
      },
      wacz: async () => {
        const r = await exportWacz(archive, path.join(copyDir, 'bench.wacz'));
        waczBytes = r.bytes;
        recorded = r.fixity.recorded;
      },
      verify: async () => {
        await exportWacz(archive, path.join(copyDir, 'verify.wacz'), { verifyFixity: true });
      },
    };
    let waczBytes = 0;
    let recorded = 0;
    const best: Record<string, number> = {};
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, fn] of Object.entries(runs)) {
        await fsp.rm(copyDir, { recursive: true, force: true });
        await fsp.mkdir(copyDir, { recursive: true });
        const t = performance.now();
        await fn();
        best[name] = Math.min(best[name] ?? Infinity, performance.now() - t);
      }
    }
    const streamMs = best.stream!;
    const copyFileMs = best.copyFile!;
    const waczMs = best.wacz!;
    const verifyMs = best.verify!;
    await fsp.rm(copyDir, { recursive: true, force: true });
    return {
      warcMB: +(bytes / 1e6).toFixed(1),
      waczMB: +(waczBytes / 1e6).toFixed(1),
      records: archive.index.count(),
      streamCopyMs: Math.round(streamMs),
      copyFileMs: Math.round(copyFileMs),
      waczMs: Math.round(waczMs),
      warcsWithRecordedFixity: recorded,
      warcs: warcs.length,
      verifyMs: Math.round(verifyMs),
      ratioVerifyVsStreamCopy: +(verifyMs / streamMs).toFixed(2),
      ratioVsStreamCopy: +(waczMs / streamMs).toFixed(2),
      ratioVsCopyFile: +(waczMs / copyFileMs).toFixed(2),
      waczMBps: +(bytes / 1e6 / (waczMs / 1000)).toFixed(0),
    };
  } finally {
    archive.close();
  }
}

/** An archive holding every WARC of `dir` twice (copies under other names, imported in place): twice the bytes and captures. */
async function doubled(dir: string, work: string): Promise<string> {
  const archive = openArchive(dir, { create: false });
  const warcs = archiveWarcs(archive);
  archive.close();
  const files: string[] = [];
  const copies = path.join(work, 'doubled-warcs');
  fs.mkdirSync(copies, { recursive: true });
  for (const w of warcs) {
    for (const n of [1, 2]) {
      const f = path.join(copies, `${n}-${w.name}`);
      await fsp.copyFile(w.source, f);
      files.push(f);
    }
  }
  const out = path.join(work, 'doubled');
  await importFiles(out, files);
  return out;
}

function child(mode: string, dir: string, work: string): Record<string, number> {
  // With the `trove` CLI's Node flags: the export runs as `trove export` would.
  const r = spawnSync(process.execPath, [...cliNodeFlags(), here, mode, dir, work], { encoding: 'utf8', maxBuffer: 16 << 20 });
  if (r.status !== 0) throw new Error(`export bench child failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, number>;
}

export async function runExportBench(archiveDir?: string): Promise<Record<string, number>> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-export-bench-'));
  fs.chmodSync(work, 0o755); // nginx's workers (www-data) must be able to read the generated site
  try {
    const dir = archiveDir ?? (await makeArchive(work));
    if (process.env.TROVE_BENCH_KEEP && !archiveDir) fs.cpSync(dir, process.env.TROVE_BENCH_KEEP, { recursive: true, preserveTimestamps: true });
    const t = child('--time', dir, work);
    // Peak RSS swings by tens of MB from run to run (allocator and GC timing): the median of three.
    const median = (runs: Record<string, number>[]) => runs.sort((a, b) => a.peakRssMB! - b.peakRssMB!)[1]!;
    const one = median([1, 2, 3].map(() => child('--rss', dir, work)));
    const twice = await doubled(dir, work);
    const two = median([1, 2, 3].map(() => child('--rss', twice, work)));
    const result: Record<string, number> = {
      ...t,
      rssBeforeMB: one.rssBeforeMB!,
      peakRssMB: one.peakRssMB!,
      doubledWarcMB: two.warcMB!,
      doubledPeakRssMB: two.peakRssMB!,
    };
    console.log(
      `export bench: ${result.warcMB} MB of WARC (${result.records} records) → WACZ ${result.waczMB} MB in ${result.waczMs} ms (${result.waczMBps} MB/s); ` +
        `stream copy ${result.streamCopyMs} ms, copyFile ${result.copyFileMs} ms; ratio ${result.ratioVsStreamCopy}× stream copy ` +
        `(target ≤ 1.5×), ${result.ratioVsCopyFile}× copyFile; ${result.warcsWithRecordedFixity}/${result.warcs} WARCs with fixity recorded at capture; ` +
        `with --verify (every WARC hashed again) ${result.verifyMs} ms, ${result.ratioVerifyVsStreamCopy}× stream copy; peak RSS ${result.peakRssMB} MB (${result.rssBeforeMB} MB before exporting), ` +
        `${result.doubledPeakRssMB} MB exporting ${result.doubledWarcMB} MB (target: flat)`,
    );
    return result;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [mode, dir, work] = process.argv.slice(2);
  if (mode === '--time') process.stdout.write(JSON.stringify(await measure(dir!, work!)) + '\n');
  else if (mode === '--rss') process.stdout.write(JSON.stringify(await exportOnly(dir!, work!)) + '\n');
  else await runExportBench(mode);
}
