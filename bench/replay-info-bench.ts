/**
 * The replay banner's info (replayInfo, asked on every navigation of the replay view) against
 * the way it was answered before: a whole replay with method HEAD, which reads and decodes the
 * body and then drops it. Measured in the same run on the same archive: a small HTML page, and
 * a large body (a video-sized response, gzip-compressed on the wire as servers send them).
 * Printed as ratios (old ÷ new).
 *
 *   node bench/replay-info-bench.ts [MiB]     (default 64: the large body's decoded size)
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { openArchive } from '../core/archive/archive-dir.ts';
import { importFiles } from '../core/archive/import-warc.ts';
import { replayInfo } from '../core/app/replay-bridge.ts';
import { replay } from '../core/replay/replay.ts';
import { WarcWriter } from '../core/warc/warc-writer.ts';

const MIB = Number(process.argv[2] ?? 64);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-replay-info-bench-'));

async function best(runs: number, fn: () => Promise<unknown>): Promise<number> {
  let min = Infinity;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    min = Math.min(min, performance.now() - t);
  }
  return min;
}

async function writeWarc(): Promise<string> {
  const out = path.join(dir, 'warcs');
  fs.mkdirSync(out);
  const w = new WarcWriter({ dir: out, prefix: 'BENCH', maxBytes: 1e12, warcinfo: () => ({ fields: { software: 'trove bench' } }) });
  const response = (url: string, headers: string, body: Buffer) => ({
    type: 'response' as const,
    targetUri: url,
    date: new Date(Date.UTC(2026, 0, 1)),
    contentType: 'application/http; msgtype=response',
    blockParts: [Buffer.from(`HTTP/1.1 200 OK\r\n${headers}Content-Length: ${body.length}\r\n\r\n`), body],
  });
  const page = Buffer.from(`<html><title>Page</title><body>${'lorem ipsum '.repeat(3000)}</body></html>`);
  await w.writeGroup([response('http://bench.example/page.html', 'Content-Type: text/html\r\n', page)]);
  // Random bytes, as video is: the stored body is as large as the decoded one.
  const block = randomBytes(1 << 20);
  const big = zlib.gzipSync(Buffer.concat(Array.from({ length: MIB }, () => block)), { level: 1 });
  await w.writeGroup([response('http://bench.example/video.bin', 'Content-Type: application/octet-stream\r\nContent-Encoding: gzip\r\n', big)]);
  await w.close();
  return path.join(out, fs.readdirSync(out).find((n) => n.endsWith('.warc.gz'))!);
}

try {
  const warc = await writeWarc();
  await importFiles(path.join(dir, 'archive'), [warc]);
  const archive = openArchive(path.join(dir, 'archive'));
  try {
    console.log(`archive: a ${(fs.statSync(warc).size / 1e6).toFixed(1)} MB WARC; large body ${MIB} MiB decoded`);
    for (const [name, url, runs] of [
      ['small page', 'http://bench.example/page.html', 50],
      ['large body', 'http://bench.example/video.bin', 3],
    ] as const) {
      const before = await best(runs, () => replay(archive, { url, method: 'HEAD' }));
      const now = await best(runs, () => replayInfo(archive, url));
      console.log(`${name}: replayInfo ${now.toFixed(2)} ms; whole replay (as before) ${before.toFixed(2)} ms; ratio ${(before / now).toFixed(1)}x`);
    }
  } finally {
    archive.close();
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
