/**
 * The Monitor's log view on a large crawl.log: a page of the newest lines, a page deep in the
 * file, and a filter that matches nothing (the read stops at SCAN_CAP). References measured in
 * the same run on the same file: coreutils `tail -n 100` for the first page, and a plain
 * fs.readSync of the same bytes the capped scan reads. Printed as ratios.
 *
 *   node bench/log-tail-bench.ts [lines]     (default 600,000 lines, about 100 MB)
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readLogTail, SCAN_CAP } from '../core/app/crawl-log-tail.ts';
import { formatCrawlLogLine } from '../core/crawl/crawl-log.ts';

const LINES = Number(process.argv[2] ?? 600_000);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-logtail-bench-'));
const file = path.join(dir, 'crawl.log');

function best(runs: number, fn: () => void): number {
  let min = Infinity;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    min = Math.min(min, performance.now() - t);
  }
  return min;
}

try {
  const fd = fs.openSync(file, 'w');
  let chunk: string[] = [];
  const t0 = Date.UTC(2026, 0, 1);
  for (let i = 0; i < LINES; i++) {
    chunk.push(
      formatCrawlLogLine({
        time: new Date(t0 + i * 50),
        status: i % 50 === 0 ? 404 : 200,
        size: 1000 + (i % 9000),
        url: `https://host${i % 40}.example.org/section/${i % 700}/page-${i}.html`,
        hopsPath: 'LL',
        via: `https://host${i % 40}.example.org/section/${i % 700}/`,
        mime: 'text/html',
        slot: i % 8,
        fetchStart: t0 + i * 50,
        durationMs: 40,
        digest: 'sha1:ABCDEFGHIJKLMNOPQRSTUVWXYZ234567',
      }),
    );
    if (chunk.length === 10_000) {
      fs.writeSync(fd, chunk.join('\n') + '\n');
      chunk = [];
    }
  }
  if (chunk.length) fs.writeSync(fd, chunk.join('\n') + '\n');
  fs.closeSync(fd);
  const size = fs.statSync(file).size;
  console.log(`crawl.log: ${LINES.toLocaleString('en-US')} lines, ${(size / 1e6).toFixed(1)} MB`);

  const first = best(20, () => readLogTail(file, { id: 'b', log: 'crawl', limit: 100 }));
  const tail = best(20, () => spawnSync('tail', ['-n', '100', file], { encoding: 'utf8' }));
  console.log(`newest 100 lines: ${first.toFixed(2)} ms; tail -n 100 (incl. process start) ${tail.toFixed(2)} ms; ratio ${(first / tail).toFixed(2)}`);

  // Page 50 deep, following the cursor as the UI does.
  let before: number | undefined;
  const deep = best(3, () => {
    before = undefined;
    for (let i = 0; i < 50; i++) before = readLogTail(file, { id: 'b', log: 'crawl', limit: 100, ...(before !== undefined ? { before } : {}) }).next ?? undefined;
  });
  console.log(`50 pages back (5,000 lines): ${deep.toFixed(1)} ms, ${(deep / 50).toFixed(2)} ms a page`);

  const none = best(5, () => readLogTail(file, { id: 'b', log: 'crawl', limit: 100, text: 'no-such-text' }));
  const buf = Buffer.alloc(SCAN_CAP);
  const raw = best(5, () => {
    const f = fs.openSync(file, 'r');
    fs.readSync(f, buf, 0, SCAN_CAP, Math.max(0, size - SCAN_CAP));
    fs.closeSync(f);
  });
  console.log(`filter matching nothing (stops after ${SCAN_CAP / 1024 / 1024} MB): ${none.toFixed(1)} ms; plain read of those bytes ${raw.toFixed(1)} ms; ratio ${(none / raw).toFixed(1)}`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
