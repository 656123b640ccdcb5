/**
 * Replay and import benchmark.
 *
 *   lookup   a capture index of 1,000,000 synthetic captures (333,334 URLs × 3 times, inserted
 *            through the capture index API into a temp database), each pointing at one of a
 *            handful of real records in a small WARC; then `replay()` of random (url, time)
 *            pairs in process: p50 / p95 / p99 latency, for exact hits and for misses (which
 *            also run the fuzzy lookup). Target: p50 under 2 ms.
 *   import   a ~200 MB per-record-gzip WARC (HTML pages with text, images, a few large binary
 *            bodies, chunked and gzip-encoded responses) imported in a child process; its
 *            peak RSS (getrusage maxrss) and throughput. Target: flat, under 300 MB.
 *
 * RSS note: most of the import's memory above the reader's own is V8's young generation, which
 * V8 grows to ~130 MB under a high allocation rate on a machine with plenty of RAM. The import
 * child runs with the `trove` CLI's flags (an 8 MB semi-space; other flags may be given).
 *
 * Run: node bench/replay-bench.ts [n] [importMB] [node flags for the import child…]
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import zlib from 'node:zlib';
import { openArchive } from '../core/archive/archive-dir.ts';
import type { RecordRow } from '../core/archive/capture-index.ts';
import { importFiles } from '../core/archive/import-warc.ts';
import { replay } from '../core/replay/replay.ts';
import { surtKey } from '../core/scope/surt.ts';
import { recordTypeCode } from '../core/archive/record-type-key.ts';
import { checkpointWal, closeDatabase, crawlDatabasePath, openDatabase } from '../core/storage/open-database.ts';
import { cliNodeFlags } from './cli-node-flags.ts';

export interface ReplayBenchOptions {
  /** Synthetic captures in the index (default 1,000,000). */
  n?: number;
  /** Size of the WARC imported for the memory figure, MB (default 200; 0 skips the import). */
  importMB?: number;
  /** Replay lookups timed (default 5,000). */
  lookups?: number;
  /** Node/V8 flags for the import child (default: the `trove` CLI's, see cli-node-flags.ts). */
  importFlags?: string[];
  print?: boolean;
}

const CAPTURES_PER_URL = 3;
const BASE_TS = Date.UTC(2020, 0, 1) / 1000;
const here = path.dirname(fileURLToPath(import.meta.url));

function ts14(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

function warcRecord(url: string, date: string, httpHead: string, body: Buffer, type = 'response'): Buffer {
  const block = Buffer.concat([Buffer.from(httpHead, 'latin1'), body]);
  const head =
    `WARC/1.1\r\nWARC-Type: ${type}\r\nWARC-Record-ID: <urn:uuid:${crypto.randomUUID()}>\r\nWARC-Target-URI: ${url}\r\n` +
    `WARC-Date: ${date}\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: ${block.length}\r\n\r\n`;
  return zlib.gzipSync(Buffer.concat([Buffer.from(head, 'latin1'), block, Buffer.from('\r\n\r\n')]), { level: 1 });
}

function html200(body: Buffer, extra = ''): string {
  return `HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n${extra}Content-Length: ${body.length}\r\n\r\n`;
}

/** A few real records for the synthetic captures to point at. */
function smallWarc(file: string): void {
  const parts: Buffer[] = [];
  for (let i = 0; i < 8; i++) {
    const body = Buffer.from(`<!doctype html><title>Bench page ${i}</title><p>${'lorem ipsum '.repeat(200 * (i + 1))}</p>`);
    parts.push(warcRecord(`http://seed.bench.test/${i}`, '2020-01-01T00:00:00Z', html200(body), body));
  }
  fs.writeFileSync(file, Buffer.concat(parts));
}

/** Host and path of synthetic URL i, written so that its SURT key is known without computing it. */
function syntheticUrl(i: number): { url: string; key: string } {
  const h = i % 997;
  return { url: `http://h${h}.bench.test/p/${i}`, key: `test,bench,h${h})/p/${i}` };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function lookupBench(dir: string, n: number, lookups: number): Promise<Record<string, number>> {
  const warc = path.join(dir, 'small.warc.gz');
  smallWarc(warc);
  const archiveDir = path.join(dir, 'lookup');
  await importFiles(archiveDir, [warc]);
  const archive = openArchive(archiveDir);
  // A second connection for what the bench asks of the database itself (the archive hands none out).
  const db = openDatabase(crawlDatabasePath(archiveDir));
  try {
    const real = archive.index.findCaptures(surtKey('http://seed.bench.test/0'));
    const targets = db.prepare(`SELECT file_id, offset, length FROM records WHERE record_type = ${recordTypeCode('response')}`).all() as {
      file_id: number;
      offset: number;
      length: number;
    }[];
    if (real.length !== 1 || targets.length !== 8) throw new Error('bench WARC did not import as expected');
    for (const i of [0, 1, 12345, 999999]) {
      const s = syntheticUrl(i);
      if (surtKey(s.url) !== s.key) throw new Error(`synthetic key mismatch: ${surtKey(s.url)} vs ${s.key}`);
    }

    const urls = Math.ceil(n / CAPTURES_PER_URL);
    const t0 = performance.now();
    const BATCH = 20_000;
    let batch: RecordRow[] = [];
    let made = 0;
    for (let u = 0; u < urls && made < n; u++) {
      const { url, key } = syntheticUrl(u);
      for (let c = 0; c < CAPTURES_PER_URL && made < n; c++, made++) {
        const t = targets[made % targets.length]!;
        const seconds = BASE_TS + c * 86_400 * 30 + (u % 86_400);
        batch.push({
          fileId: t.file_id,
          offset: t.offset,
          length: t.length,
          recordType: 'response',
          recordId: `<urn:bench:${made}>`,
          targetUri: url,
          urlkey: key,
          ts: ts14(seconds),
          date: null,
          mime: 'text/html',
          status: 200,
          payloadDigest: null,
        });
        if (batch.length >= BATCH) {
          archive.index.addRecords(batch);
          batch = [];
        }
      }
    }
    archive.index.addRecords(batch);
    const insertMs = performance.now() - t0;
    // As after a crawl or an import has settled: the WAL folded into the database file.
    checkpointWal(db);

    // Warm up statements and caches, then time hits at random URLs and random times.
    for (let i = 0; i < 200; i++) await replay(archive, { url: syntheticUrl(i).url });
    const hit: number[] = [];
    const miss: number[] = [];
    let rnd = 12345;
    const next = () => (rnd = (rnd * 1103515245 + 12345) & 0x7fffffff);
    for (let i = 0; i < lookups; i++) {
      const u = next() % urls;
      const at = ts14(BASE_TS + (next() % (86_400 * 90)));
      const s = performance.now();
      const r = await replay(archive, { url: syntheticUrl(u).url, at });
      hit.push(performance.now() - s);
      if (r.kind !== 'archived') throw new Error(`expected a hit for ${syntheticUrl(u).url}`);
    }
    for (let i = 0; i < Math.min(lookups, 2000); i++) {
      const s = performance.now();
      const r = await replay(archive, { url: `http://h${i % 997}.bench.test/q/${i}?a=1`, at: '2020' });
      miss.push(performance.now() - s);
      if (r.kind !== 'not-archived') throw new Error('expected a miss');
    }
    hit.sort((a, b) => a - b);
    miss.sort((a, b) => a - b);
    return {
      captures: archive.index.count(),
      insertMs: Math.round(insertMs),
      insertPerSec: Math.round((n / insertMs) * 1000),
      replayP50Ms: round(percentile(hit, 50)),
      replayP95Ms: round(percentile(hit, 95)),
      replayP99Ms: round(percentile(hit, 99)),
      missP50Ms: round(percentile(miss, 50)),
      missP95Ms: round(percentile(miss, 95)),
      dbMB: Math.round(fs.statSync(path.join(archiveDir, 'crawl.sqlite')).size / 1e6),
    };
  } finally {
    closeDatabase(db);
    archive.close();
  }
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** Write a per-record-gzip WARC of about `mb` MB with a realistic mix of records. */
function bigWarc(file: string, mb: number): number {
  const fd = fs.openSync(file, 'w');
  let size = 0;
  let i = 0;
  const words = 'archive crawl replay heritrix warc capture index page text search lorem ipsum dolor'.split(' ');
  const chunked = (body: Buffer) => Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]);
  try {
    while (size < mb * 1e6) {
      const date = new Date(Date.UTC(2021, 0, 1) + i * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
      const kind = i % 10;
      let rec: Buffer;
      if (kind < 5) {
        const text = Array.from({ length: 4000 }, (_, k) => words[(i + k * 7) % words.length]).join(' ');
        const body = Buffer.from(`<!doctype html><title>Page ${i}</title><body><p>${text}</p></body>`);
        rec = warcRecord(`http://big.bench.test/page/${i}`, date, html200(body), body);
      } else if (kind === 5) {
        const body = zlib.gzipSync(Buffer.from(`<title>Gz ${i}</title>${'compressed text '.repeat(5000)}`));
        rec = warcRecord(`http://big.bench.test/gz/${i}`, date, html200(body, 'Content-Encoding: gzip\r\n'), body);
      } else if (kind === 6) {
        const body = Buffer.from(`<title>Chunked ${i}</title>${'chunked text '.repeat(3000)}`);
        rec = warcRecord(`http://big.bench.test/ch/${i}`, date, 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n', chunked(body));
      } else if (kind === 9 && i % 100 === 9) {
        const body = randomBytes(24 << 20); // a large video-like body
        rec = warcRecord(`http://big.bench.test/video/${i}.mp4`, date, 'HTTP/1.1 200 OK\r\nContent-Type: video/mp4\r\n\r\n', body);
      } else {
        const body = randomBytes(300 << 10);
        rec = warcRecord(`http://big.bench.test/img/${i}.jpg`, date, 'HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\n\r\n', body);
      }
      fs.writeSync(fd, rec);
      size += rec.length;
      i++;
    }
  } finally {
    fs.closeSync(fd);
  }
  return i;
}

function importBench(dir: string, mb: number, flags: string[]): Record<string, number> {
  const file = path.join(dir, 'big.warc.gz');
  const records = bigWarc(file, mb);
  const size = fs.statSync(file).size;
  const child = spawnSync(process.execPath, [...flags, path.join(here, 'replay-bench.ts'), '--import-child', path.join(dir, 'imported'), file], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (child.status !== 0) throw new Error(`import child failed: ${child.stderr}`);
  const r = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as { ms: number; maxRssKB: number; startRssKB: number; records: number; pages: number };
  if (r.records !== records) throw new Error(`imported ${r.records} of ${records} records`);
  return {
    importFileMB: Math.round(size / 1e6),
    importRecords: r.records,
    importPages: r.pages,
    importMs: Math.round(r.ms),
    importMBps: Math.round((size / 1e6 / (r.ms / 1000)) * 10) / 10,
    importStartRssMB: Math.round(r.startRssKB / 1024),
    importPeakRssMB: Math.round(r.maxRssKB / 1024),
  };
}

/** The child: import one file, print timing and peak RSS as JSON. */
async function importChild(archiveDir: string, file: string): Promise<void> {
  const startRssKB = process.memoryUsage.rss() / 1024;
  const t = performance.now();
  const report = await importFiles(archiveDir, [file]);
  const ms = performance.now() - t;
  if (report.problems.length > 0) throw new Error(JSON.stringify(report.problems));
  process.stdout.write(`${JSON.stringify({ ms, maxRssKB: process.resourceUsage().maxRSS, startRssKB, records: report.records, pages: report.pages })}\n`);
}

export async function runReplayBench(opts: ReplayBenchOptions = {}): Promise<Record<string, number>> {
  const n = opts.n ?? 1_000_000;
  const importMB = opts.importMB ?? 200;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-replay-bench-'));
  try {
    const out: Record<string, number> = {};
    if (importMB > 0) Object.assign(out, importBench(dir, importMB, opts.importFlags ?? cliNodeFlags()));
    Object.assign(out, await lookupBench(dir, n, opts.lookups ?? 5000));
    if (opts.print) for (const [k, v] of Object.entries(out)) console.log(`${k.padEnd(18)} ${v}`);
    return out;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  if (process.argv[2] === '--import-child') {
    await importChild(process.argv[3]!, process.argv[4]!);
  } else {
    const n = process.argv[2] ? Number(process.argv[2]) : undefined;
    const importMB = process.argv[3] ? Number(process.argv[3]) : undefined;
    const importFlags = process.argv.length > 4 ? process.argv.slice(4) : undefined;
    await runReplayBench({ ...(n !== undefined ? { n } : {}), ...(importMB !== undefined ? { importMB } : {}), ...(importFlags ? { importFlags } : {}), print: true });
  }
}
