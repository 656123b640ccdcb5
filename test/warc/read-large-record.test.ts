/**
 * A 1 GiB record streams through the reader with flat memory, gzipped (one member larger than
 * any window, inflated through a stream) and plain (skipped without being read).
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchiveFile, readRecordAt } from '../../core/warc/read-records.ts';

const GiB = 1 << 30;
const CHUNK = 1 << 20;
let dir: string;
beforeAll(async () => {
  dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'trove-large-'));
});
afterAll(async () => {
  await fsp.rm(dir, { recursive: true, force: true });
});

function head(uri: string, length: number): Buffer {
  return Buffer.from(`WARC/1.1\r\nWARC-Type: resource\r\nWARC-Target-URI: ${uri}\r\nWARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Record-ID: <urn:uuid:${uri.length}>\r\nContent-Length: ${length}\r\n\r\n`);
}

/** head + `size` bytes (a byte pattern that compresses well) + CRLF CRLF, as a stream. */
function recordStream(uri: string, size: number): Readable {
  return Readable.from(
    (function* () {
      yield head(uri, size);
      const block = Buffer.alloc(CHUNK, 'abcdefgh');
      for (let left = size; left > 0; left -= CHUNK) yield left >= CHUNK ? block : block.subarray(0, left);
      yield Buffer.from('\r\n\r\n');
    })(),
  );
}

describe('a 1 GiB record', () => {
  it('streams out of a gzip member with flat memory, then the next record follows', { timeout: 120_000 }, async () => {
    const file = path.join(dir, 'big.warc.gz');
    const out = fs.createWriteStream(file);
    await pipeline(recordStream('http://example.com/big', GiB), zlib.createGzip({ level: 1 }), out, { end: false });
    const small = zlib.gzipSync(Buffer.concat([head('http://example.com/after', 5), Buffer.from('after\r\n\r\n')]));
    await new Promise<void>((resolve, reject) => out.end(small, () => resolve()).on('error', reject));
    const size = (await fsp.stat(file)).size;

    const before = process.memoryUsage().rss;
    let peak = before;
    const seen: { uri: string | null; bytes: number; offset: number; record: { length: number } }[] = [];
    for await (const r of openArchiveFile(file)) {
      let bytes = 0;
      let n = 0;
      for await (const b of r.block()) {
        bytes += b.length;
        if (++n % 64 === 0) peak = Math.max(peak, process.memoryUsage().rss);
      }
      seen.push({ uri: r.targetUri, bytes, offset: r.offset, record: r });
    }
    expect(seen.map((s) => [s.uri, s.bytes])).toEqual([
      ['http://example.com/big', GiB],
      ['http://example.com/after', 5],
    ]);
    expect(seen[0]!.offset).toBe(0);
    expect(seen[0]!.record.length).toBe(size - small.length);
    expect(seen[1]!.offset).toBe(size - small.length);
    expect(peak - before).toBeLessThan(200 << 20);

    // Random access to the record after the big one, and to the big one's first bytes.
    const after = await readRecordAt(file, size - small.length);
    expect((await after.readBlock(100)).bytes.toString()).toBe('after');
    const big = await readRecordAt(file, 0);
    expect((await big.readBlock(8)).bytes.toString()).toBe('abcdefgh');
  });

  it('is skipped in an uncompressed file without reading it', { timeout: 60_000 }, async () => {
    const file = path.join(dir, 'big.warc');
    // A sparse file: the 1 GiB block is a hole, so writing and skipping it is cheap.
    const h = head('http://example.com/big', GiB);
    const fd = await fsp.open(file, 'w');
    await fd.write(h, 0, h.length, 0);
    const tail = Buffer.concat([Buffer.from('\r\n\r\n'), head('http://example.com/after', 5), Buffer.from('after\r\n\r\n')]);
    await fd.write(tail, 0, tail.length, h.length + GiB);
    await fd.close();
    const got: [string | null, number, number][] = [];
    for await (const r of openArchiveFile(file)) got.push([r.targetUri, r.offset, r.length]);
    expect(got).toEqual([
      ['http://example.com/big', 0, h.length + GiB],
      ['http://example.com/after', h.length + GiB + 4, tail.length - 8],
    ]);
  });
});
