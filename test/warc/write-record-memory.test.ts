/**
 * A small record compressed in memory holds about its own size of ArrayBuffer, not zlib's
 * default 16 KiB output buffer: on a crawl of small pages the difference (three records per URI)
 * piled up to tens of MiB of dead buffers between garbage collections. The members are read back
 * with Node's gunzip, which is not the code under test.
 */
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { recordBytesInMemory } from '../../core/warc/write-record.ts';

function requestRecord(i: number) {
  const block = Buffer.from(`GET /p/${i}.html HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: Trove test\r\nAccept: */*\r\n\r\n`);
  const header = Buffer.from(`WARC/1.1\r\nWARC-Type: request\r\nWARC-Target-URI: http://127.0.0.1:8080/p/${i}.html\r\nContent-Length: ${block.length}\r\n\r\n`);
  return { header, parts: [block], blockLength: block.length, check: null };
}

describe('recordBytesInMemory', () => {
  it('keeps a small gzip member near its own size', async () => {
    const n = 400;
    const kept: Buffer[] = [];
    const before = process.memoryUsage().arrayBuffers;
    for (let i = 0; i < n; i++) kept.push((await recordBytesInMemory(requestRecord(i), { gzip: true, gzipLevel: 6 }))!);
    const perRecord = (process.memoryUsage().arrayBuffers - before) / n;
    // zlib's default would be ≥ 16,384 bytes per record; the raw record is ~230 bytes.
    expect(perRecord).toBeLessThan(2048);
    const r = requestRecord(7);
    expect(gunzipSync(kept[7]!).equals(Buffer.concat([r.header, ...r.parts, Buffer.from('\r\n\r\n')]))).toBe(true);
  });

  it('compresses a record larger than one output piece whole', async () => {
    // Incompressible and over 256 KiB: several pieces, concatenated by zlib.
    const block = Buffer.alloc(600 * 1024);
    for (let i = 0; i < block.length; i++) block[i] = (i * 2654435761) >>> 24;
    const header = Buffer.from(`WARC/1.1\r\nWARC-Type: resource\r\nContent-Length: ${block.length}\r\n\r\n`);
    const member = await recordBytesInMemory({ header, parts: [block], blockLength: block.length, check: null }, { gzip: true, gzipLevel: 6 });
    expect(gunzipSync(member!).equals(Buffer.concat([header, block, Buffer.from('\r\n\r\n')]))).toBe(true);
  });
});
