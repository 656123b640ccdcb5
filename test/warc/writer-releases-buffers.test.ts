/**
 * The writer frees the buffers it made for a record (the joined raw record once zlib has it, the
 * gzip member once it is on disk, a kept zlib stream's output buffer once all its members are) at once instead of leaving them to a collection (issue 20), and
 * that changes nothing on disk: every member is still, byte for byte, the one-concat path's
 * (header, block and `\r\n\r\n` joined, then gzipped alone with the same level, window and
 * memLevel), for bodies of several sizes in pieces cut differently, and warcio reads every record
 * back whole. The caller's block pieces are never freed: they stay the caller's.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { newRecordId } from '../../core/warc/record-header.ts';
import { WarcWriter } from '../../core/warc/warc-writer.ts';
import type { RecordInput } from '../../core/warc/warc-writer.ts';
import { gzipMemberOptions, memberWritten, recordBytesInMemory } from '../../core/warc/write-record.ts';
import { readWarc } from './writer-read-back.ts';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-release-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** HTML-like text (compresses as a page does) or hash output (does not compress). */
function body(n: number, kind: 'text' | 'noise', seed: number): Buffer {
  if (kind === 'text') {
    const line = (i: number) => `<p class="x${(i * 7 + seed) % 13}">line ${i} of page ${seed}: <a href="/p/${i % 97}.html">link</a></p>\n`;
    let s = '';
    for (let i = 0; s.length < n; i++) s += line(i);
    return Buffer.from(s.slice(0, n));
  }
  const out = Buffer.alloc(n);
  for (let at = 0, i = 0; at < n; i++) at += createHash('sha256').update(`${seed}/${i}`).digest().copy(out, at);
  return out;
}

/** `buf` cut into pieces of the given sizes (cycled), each its own buffer, as socket reads are. */
function cut(buf: Buffer, sizes: number[]): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0, i = 0; at < buf.length; i++) {
    const n = Math.min(sizes[i % sizes.length]!, buf.length - at);
    out.push(Buffer.from(buf.subarray(at, at + n)));
    at += n;
  }
  return out;
}

const HEAD = Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n');
const cases: { n: number; kind: 'text' | 'noise'; sizes: number[] }[] = [
  { n: 300, kind: 'text', sizes: [300] },
  { n: 6_000, kind: 'text', sizes: [1000, 5000] },
  { n: 9_000, kind: 'text', sizes: [9000] },
  { n: 40_000, kind: 'noise', sizes: [16_384, 7, 65_536] },
  { n: 100_000, kind: 'text', sizes: [65_536] },
  { n: 100_000, kind: 'text', sizes: [30_000, 1, 20_000] },
  { n: 300_000, kind: 'noise', sizes: [65_536, 64_512] },
  { n: 700_000, kind: 'text', sizes: [65_536, 29_696, 18_720] },
];

function response(parts: Buffer[], i: number): RecordInput {
  return {
    type: 'response',
    targetUri: `https://example.org/${i}.html`,
    date: new Date('2026-11-26T06:00:00Z'),
    recordId: newRecordId(),
    contentType: 'application/http; msgtype=response',
    blockParts: [HEAD, ...parts],
  };
}

it('frees the members it wrote, not the caller pieces, and writes what the one-concat path makes', async () => {
  const w = new WarcWriter({ dir, prefix: 'R', maxBytes: 1 << 30, hostLabel: 'h', warcinfo: () => ({ fields: { software: 'Trove' } }) });
  const bodies = cases.map((c, i) => body(c.n, c.kind, i));
  const pieces = cases.map((c, i) => cut(bodies[i]!, c.sizes));
  // One group written plainly (the writer compresses), to open the file; then every case
  // precompressed first, as the crawl does.
  const first = await w.writeGroup([response(pieces[0]!, 0)]);
  const written = [...first];
  const members: Buffer[] = [];
  for (let i = 1; i < cases.length; i++) {
    const pre = await w.precompress([response(pieces[i]!, i)]);
    members.push(pre[0]!.member!);
    written.push(...(await w.writeGroup(pre)));
  }
  await w.close();

  // Freed once written (their own buffers, or a kept stream's output buffer once it is full and
  // all its members are on disk); the rest are left to the collector. Sizes on disk come from
  // WrittenRecord, taken before.
  expect(members.filter((m) => m.length === 0).length).toBeGreaterThanOrEqual(1);
  // The caller's pieces are untouched.
  for (let i = 0; i < cases.length; i++) expect(Buffer.concat(pieces[i]!).equals(bodies[i]!)).toBe(true);

  const file = w.filesClosed[0]!;
  const bytes = fs.readFileSync(file);
  const read = new Map((await readWarc(file)).map((r) => [r.id, r]));
  for (let i = 0; i < cases.length; i++) {
    const r = written[i]!;
    const back = read.get(r.recordId)!;
    expect(back.offset).toBe(r.offset);
    expect(back.block!.equals(Buffer.concat([HEAD, bodies[i]!]))).toBe(true);
    expect(back.header('WARC-Block-Digest')).toBe(back.sha1);
    // The one-concat path: the record joined whole, gzipped alone.
    const header = Buffer.from(r.fields.map(([k, v]) => `${k}: ${v}\r\n`).join(''), 'utf8');
    const raw = Buffer.concat([Buffer.from('WARC/1.1\r\n'), header, Buffer.from('\r\n'), HEAD, bodies[i]!, Buffer.from('\r\n\r\n')]);
    const member = gzipSync(raw, { level: 6, ...gzipMemberOptions(raw.length) });
    expect(bytes.subarray(r.offset, r.offset + r.length).equals(member), `case ${i}`).toBe(true);
  }
});

it("frees a kept stream's output buffer once it is full and every member cut from it is written", async () => {
  // Incompressible 100 KB records: two members fit in a stream's 256 KiB output buffer, the third
  // runs over into the next one (and is joined from both). Level 5: streams of their own, fresh.
  const opts = { gzip: true, gzipLevel: 5 };
  const header = Buffer.from('WARC/1.1\r\nWARC-Type: resource\r\n\r\n');
  const blocks = [0, 1, 2].map((i) => body(100_000, 'noise', 100 + i));
  const made: Buffer[] = [];
  for (const b of blocks) made.push((await recordBytesInMemory({ header, parts: [b], blockLength: b.length, check: null }, opts))!);
  const [m1, m2, m3] = made as [Buffer, Buffer, Buffer];
  for (let i = 0; i < 3; i++) {
    const raw = Buffer.concat([header, blocks[i]!, Buffer.from('\r\n\r\n')]);
    expect(made[i]!.equals(gzipSync(raw, { level: 5, ...gzipMemberOptions(raw.length) }))).toBe(true);
  }
  // (Compared as booleans: a failing toBe would print two 256 KiB buffers.)
  expect(m1.buffer === m2.buffer).toBe(true);
  expect(m3.buffer === m1.buffer).toBe(false);
  memberWritten(m1);
  expect(m2.length).toBeGreaterThan(0); // m2 not written yet: the buffer stays
  memberWritten(m2);
  expect(m1.length).toBe(0);
  expect(m2.length).toBe(0);
  expect(m3.length).toBeGreaterThan(0);
  memberWritten(m3); // joined: its own buffer
  expect(m3.length).toBe(0);
});
