/**
 * The writer frees the buffers it made for a record (the joined raw record once zlib has it, the
 * gzip member once it is on disk) at once instead of leaving them to a collection (issue 20), and
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
import { gzipMemberOptions } from '../../core/warc/write-record.ts';
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
  const members: { member: Buffer; length: number; own: boolean }[] = [];
  for (let i = 1; i < cases.length; i++) {
    const pre = await w.precompress([response(pieces[i]!, i)]);
    const m = pre[0]!.member!;
    members.push({ member: m, length: m.length, own: m.byteOffset === 0 && m.byteLength === m.buffer.byteLength });
    written.push(...(await w.writeGroup(pre)));
  }
  await w.close();

  // Freed once written: a member that is its own buffer reads as empty now. Smaller ones (views
  // into Node's pool, which cannot be freed this way, or into a zlib output buffer) are left to
  // the collector.
  expect(members.filter((m) => m.own && m.length >= 4096).length).toBeGreaterThanOrEqual(3);
  for (const m of members) expect(m.member.length).toBe(m.own && m.length >= 4096 ? 0 : m.length);
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
