/**
 * The two gzip paths: the exact member-by-member inflater and the fast Gunzip stream that finds
 * member ends from their trailers. On the same files they must agree byte for byte and offset
 * for offset, including gzip headers with optional fields, members larger than the read window,
 * and record content crafted to look like a member boundary.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GzipMembers } from '../../core/warc/gzip-members.ts';
import { openArchiveFile, readRecordAt } from '../../core/warc/read-records.ts';
import type { WarcReadWarning } from '../../core/warc/read-errors.ts';

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'trove-gz-'));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

function record(n: number, block: Buffer): Buffer {
  const head = `WARC/1.1\r\nWARC-Type: resource\r\nWARC-Target-URI: urn:test:${n}\r\nWARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Record-ID: <urn:uuid:${n}>\r\nContent-Length: ${block.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), block, Buffer.from('\r\n\r\n')]);
}

/** A gzip member with FEXTRA, FNAME, FCOMMENT and FHCRC set, around the raw deflate data. */
function gzipWithOptionalFields(data: Buffer): Buffer {
  const extra = Buffer.from([0x73, 0x6c, 4, 0, 1, 2, 3, 4]); // an "sl" subfield, as wget 1.20 writes
  const header = Buffer.concat([
    Buffer.from([0x1f, 0x8b, 8, 4 | 8 | 16 | 2, 0, 0, 0, 0, 0, 255]),
    Buffer.from([extra.length, 0]), extra,
    Buffer.from('name.warc\0'), Buffer.from('a comment\0'),
  ]);
  const hcrc = Buffer.alloc(2);
  hcrc.writeUInt16LE(zlib.crc32(header) & 0xffff);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(zlib.crc32(data), 0);
  trailer.writeUInt32LE(data.length, 4);
  return Buffer.concat([header, hcrc, zlib.deflateRawSync(data), trailer]);
}

async function sequential(file: string) {
  const seen: { r: { offset: number; length: number; targetUri: string | null }; block: Buffer }[] = [];
  const warnings: WarcReadWarning[] = [];
  for await (const r of openArchiveFile(file, { onWarning: (w) => warnings.push(w) })) {
    const parts: Buffer[] = [];
    for await (const b of r.block()) parts.push(Buffer.from(b));
    seen.push({ r, block: Buffer.concat(parts) });
  }
  return { records: seen.map(({ r, block }) => ({ offset: r.offset, length: r.length, uri: r.targetUri, block })), warnings };
}

describe('gzip members', () => {
  it('the fast path and the exact path agree on many members of every kind', { timeout: 60_000 }, async () => {
    const blocks: Buffer[] = [];
    const members: Buffer[] = [];
    for (let n = 0; n < 300; n++) {
      const size = n % 50 === 0 ? 300_000 + n : (n * 7919) % 5000;
      const block = n % 3 === 0 ? randomBytes(size) : Buffer.from('x'.repeat(size));
      blocks.push(block);
      const rec = record(n, block);
      members.push(n % 7 === 0 ? gzipWithOptionalFields(rec) : zlib.gzipSync(rec, { level: n % 10 }));
    }
    const file = path.join(dir, 'many.warc.gz');
    await fs.writeFile(file, Buffer.concat(members));

    const { records, warnings } = await sequential(file);
    expect(warnings).toEqual([]);
    let at = 0;
    records.forEach((r, i) => {
      expect([r.uri, r.offset, r.length]).toEqual([`urn:test:${i}`, at, members[i]!.length]);
      expect(r.block.equals(blocks[i]!)).toBe(true);
      at += members[i]!.length;
    });

    // The exact inflater, member by member, says the same.
    const fh = await fs.open(file);
    const exact = new GzipMembers(fh, 0, at);
    const ends: number[] = [];
    for (let p = await exact.next(); p; p = await exact.next()) if (p.memberEnd !== null) ends.push(p.memberEnd);
    await fh.close();
    expect(ends).toEqual(records.map((r) => r.offset + r.length));

    for (const i of [0, 7, 50, 299]) {
      const one = await readRecordAt(file, records[i]!.offset, records[i]!.length);
      expect((await one.readBlock(1 << 20)).bytes.equals(blocks[i]!)).toBe(true);
    }
  });

  it('is not fooled by record content that looks like a member boundary (stored deflate blocks)', async () => {
    // Level 0 stores the bytes as they are, so this block shows up verbatim in the file:
    // an ISIZE equal to the record's length, then gzip magic. Only the CRC32 gives it away.
    const size = 4000;
    const probe = record(1, Buffer.alloc(size));
    const fake = Buffer.alloc(size, 0x20);
    fake.writeUInt32LE(0x12345678, 1000);
    fake.writeUInt32LE(probe.length, 1004);
    Buffer.from([0x1f, 0x8b, 0x08, 0x00]).copy(fake, 1008);
    const members = [zlib.gzipSync(record(1, fake), { level: 0 }), zlib.gzipSync(record(2, Buffer.from('next')))];
    const file = path.join(dir, 'forged.warc.gz');
    await fs.writeFile(file, Buffer.concat(members));
    const { records, warnings } = await sequential(file);
    expect(warnings).toEqual([]);
    expect(records.map((r) => [r.uri, r.offset, r.length])).toEqual([
      ['urn:test:1', 0, members[0]!.length],
      ['urn:test:2', members[0]!.length, members[1]!.length],
    ]);
  });

  it('reports a wrong CRC32 or ISIZE as WARC_BAD_GZIP at the member, and zero padding as trailing data', async () => {
    const good = zlib.gzipSync(record(1, Buffer.from('a')));
    for (const at of [8, 4]) {
      const bad = zlib.gzipSync(record(2, Buffer.from('b')));
      bad[bad.length - at]! ^= 1;
      const file = path.join(dir, `trailer${at}.warc.gz`);
      await fs.writeFile(file, Buffer.concat([good, bad]));
      await expect(sequential(file)).rejects.toMatchObject({ code: 'WARC_BAD_GZIP', details: { offset: good.length } });
    }
    const padded = path.join(dir, 'padded.warc.gz');
    await fs.writeFile(padded, Buffer.concat([good, Buffer.alloc(16)]));
    await expect(sequential(padded)).rejects.toMatchObject({ code: 'WARC_TRAILING_DATA', details: { offset: good.length } });
  });
});
