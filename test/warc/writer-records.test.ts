import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isTroveError, type ErrorCode } from '../../core/errors.ts';
import { buildRecordHeader, newRecordId, warcDate, warcFields } from '../../core/warc/record-header.ts';
import { WarcWriter } from '../../core/warc/warc-writer.ts';
import type { RecordInput } from '../../core/warc/warc-writer.ts';
import { base32Obvious, readWarc, sha1Obvious } from './writer-read-back.ts';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-writer-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function expectCode(fn: () => unknown, code: ErrorCode): void {
  try {
    fn();
  } catch (err) {
    expect(isTroveError(err, code), `expected ${code}, got ${String(err)}`).toBe(true);
    return;
  }
  throw new Error(`expected ${code}, nothing thrown`);
}

const when = new Date('2026-11-21T09:00:00.123Z');

/** A fetch as the crawler writes it: response, then request and metadata pointing at it. */
function fetchGroup(url: string, body: string): RecordInput[] {
  const responseId = newRecordId();
  const head = Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`);
  return [
    {
      type: 'response',
      targetUri: url,
      date: when,
      recordId: responseId,
      contentType: 'application/http; msgtype=response',
      fields: [
        ['WARC-IP-Address', '127.0.0.1'],
        ['WARC-Payload-Digest', sha1Obvious(Buffer.from(body))],
      ],
      blockParts: [head, Buffer.from(body)],
    },
    {
      type: 'request',
      targetUri: url,
      date: when,
      contentType: 'application/http; msgtype=request',
      fields: [['WARC-Concurrent-To', responseId]],
      blockParts: [Buffer.from(`GET ${new URL(url).pathname} HTTP/1.1\r\nHost: ${new URL(url).host}\r\n\r\n`)],
    },
    {
      type: 'metadata',
      targetUri: url,
      date: when,
      contentType: 'application/warc-fields',
      fields: [['WARC-Concurrent-To', responseId]],
      blockParts: [Buffer.from(warcFields({ via: 'https://example.org/', hopsFromSeed: 'L', fetchTimeMs: 12, outlink: ['https://example.org/a L a/@href', 'https://example.org/b L a/@href'] }))],
    },
  ];
}

function revisitGroup(url: string, original: { id: string; date: string }): RecordInput[] {
  return [
    {
      type: 'revisit',
      targetUri: url,
      date: when,
      contentType: 'application/http; msgtype=response',
      fields: [
        ['WARC-Profile', 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest'],
        ['WARC-Refers-To-Target-URI', url],
        ['WARC-Refers-To-Date', original.date],
        ['WARC-Refers-To', original.id],
        ['WARC-Payload-Digest', sha1Obvious(Buffer.from('same'))],
      ],
      blockParts: [Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\n')],
    },
  ];
}

function newWriter(extra: Partial<ConstructorParameters<typeof WarcWriter>[0]> = {}): WarcWriter {
  return new WarcWriter({
    dir,
    prefix: 'TROVE',
    maxBytes: 1024 * 1024 * 1024,
    hostLabel: 'testhost',
    warcinfo: () => ({ fields: { software: 'Trove test', format: 'WARC File Format 1.1', isPartOf: 'unit' } }),
    ...extra,
  });
}

describe('record-header', () => {
  it('builds a WARC/1.1 header in the given order', () => {
    const h = buildRecordHeader([
      ['WARC-Type', 'resource'],
      ['Content-Length', '0'],
    ]);
    expect(h.toString()).toBe('WARC/1.1\r\nWARC-Type: resource\r\nContent-Length: 0\r\n\r\n');
  });

  it('refuses CR/LF injection and bad names with WARC_BAD_FIELD', () => {
    expectCode(() => buildRecordHeader([['WARC-Target-URI', 'http://x/\r\nWARC-Type: forged']]), 'WARC_BAD_FIELD');
    expectCode(() => buildRecordHeader([['WARC-Target-URI', 'http://x/\n']]), 'WARC_BAD_FIELD');
    expectCode(() => buildRecordHeader([['Bad Name', 'v']]), 'WARC_BAD_FIELD');
    expectCode(() => buildRecordHeader([['', 'v']]), 'WARC_BAD_FIELD');
    expectCode(() => warcFields({ outlink: ['ok', 'bad\r\nx: y'] }), 'WARC_BAD_FIELD');
    expectCode(() => warcFields({ n: Number.NaN }), 'WARC_BAD_FIELD');
  });

  it('keeps milliseconds in WARC-Date and refuses invalid dates', () => {
    expect(warcDate(when)).toBe('2026-11-21T09:00:00.123Z');
    expectCode(() => warcDate(new Date('nope')), 'WARC_BAD_FIELD');
    expectCode(() => warcDate(new Date(Date.UTC(10000, 0, 1))), 'WARC_BAD_FIELD');
  });

  it('writes warc-fields with repeated keys for arrays, and unique urn:uuid ids', () => {
    expect(warcFields({ a: 'x', n: 3, b: true, o: ['1', '2'] })).toBe('a: x\r\nn: 3\r\nb: true\r\no: 1\r\no: 2\r\n');
    const id = newRecordId();
    expect(id).toMatch(/^<urn:uuid:[0-9a-f-]{36}>$/);
    expect(newRecordId()).not.toBe(id);
  });
});

describe('WarcWriter records', () => {
  it('writes response/request/metadata and revisit groups that warcio reads back exactly', async () => {
    const w = newWriter();
    const g1 = fetchGroup('https://example.org/', '<html>hello</html>');
    const r1 = await w.writeGroup(g1);
    const r2 = await w.writeGroup(revisitGroup('https://example.org/', { id: r1[0]!.recordId, date: '2026-11-21T09:00:00.123Z' }));
    const written = [...r1, ...r2];
    await w.close();

    expect(w.filesClosed).toHaveLength(1);
    const file = w.filesClosed[0]!;
    expect(path.basename(file)).toMatch(/^TROVE-\d{17}-00000-\d+~testhost\.warc\.gz$/);
    const recs = await readWarc(file);
    expect(recs.map((r) => r.type)).toEqual(['warcinfo', 'response', 'request', 'metadata', 'revisit']);

    const [info, resp, req, meta, rev] = recs as [typeof recs[0], typeof recs[0], typeof recs[0], typeof recs[0], typeof recs[0]];
    expect(info.header('WARC-Filename')).toBe(path.basename(file));
    expect(info.header('Content-Type')).toBe('application/warc-fields');
    expect(info.block!.toString()).toContain('software: Trove test\r\n');
    for (const r of [resp, req, meta, rev]) {
      expect(r.header('WARC-Warcinfo-ID')).toBe(info.id);
      expect(r.header('WARC-Date')).toBe('2026-11-21T09:00:00.123Z');
      expect(r.header('WARC-Target-URI')).toBe('https://example.org/');
    }
    // Every record: Content-Length matches the block, and the block digest matches the bytes.
    for (const r of recs) {
      expect(r.contentLength).toBe(r.blockLength);
      expect(r.header('WARC-Block-Digest')).toBe(r.sha1);
    }
    expect(req.concurrentTo).toEqual([resp.id]);
    expect(meta.concurrentTo).toEqual([resp.id]);
    expect(resp.block!.toString()).toBe(
      'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 18\r\n\r\n<html>hello</html>',
    );
    expect(resp.header('WARC-Payload-Digest')).toBe(sha1Obvious(Buffer.from('<html>hello</html>')));
    expect(meta.block!.toString()).toContain('outlink: https://example.org/a L a/@href\r\noutlink: https://example.org/b L a/@href\r\n');
    expect(rev.header('WARC-Refers-To')).toBe(resp.id);
    expect(rev.header('WARC-Profile')).toBe('http://netpreserve.org/warc/1.1/revisit/identical-payload-digest');

    // Header field order: mandatory first, caller's extras in order, then Content-Type/digest/length.
    expect(resp.headers.map(([k]) => k)).toEqual([
      'WARC-Type',
      'WARC-Record-ID',
      'WARC-Date',
      'WARC-Target-URI',
      'WARC-Warcinfo-ID',
      'WARC-IP-Address',
      'WARC-Payload-Digest',
      'Content-Type',
      'WARC-Block-Digest',
      'Content-Length',
    ]);

    // Returned ids and offsets match what warcio sees.
    expect(written.map((x) => x.recordId)).toEqual(recs.slice(1).map((r) => r.id));
    expect(written.map((x) => x.offset)).toEqual(recs.slice(1).map((r) => r.offset));
    expect(written.every((x) => x.filename === path.basename(file))).toBe(true);
  });

  it('puts each record in its own gzip member: every returned offset/length reads alone', async () => {
    const w = newWriter();
    const written = [
      ...(await w.writeGroup(fetchGroup('https://example.org/a', 'A'.repeat(5000)))),
      ...(await w.writeGroup(fetchGroup('https://example.org/b', 'b'))),
    ];
    await w.close();
    const file = w.filesClosed[0]!;
    const bytes = fs.readFileSync(file);
    let expectedOffset = written[0]!.offset;
    for (const rec of written) {
      expect(rec.offset).toBe(expectedOffset);
      expectedOffset += rec.length;
      const member = bytes.subarray(rec.offset, rec.offset + rec.length);
      expect([member[0], member[1]]).toEqual([0x1f, 0x8b]);
      // One member, one whole record, ending in CRLFCRLF.
      const inflated = gunzipSync(member).toString('latin1');
      expect(inflated.startsWith('WARC/1.1\r\n')).toBe(true);
      expect(inflated.endsWith('\r\n\r\n')).toBe(true);
      const alone = await readWarc(file, { start: rec.offset, end: rec.offset + rec.length - 1 });
      expect(alone).toHaveLength(1);
      expect(alone[0]!.id).toBe(rec.recordId);
      expect(alone[0]!.contentLength).toBe(alone[0]!.blockLength);
    }
    expect(expectedOffset).toBe(bytes.length);
    expect(w.bytesWritten).toBe(bytes.length);
  });

  it('writes uncompressed .warc when gzip is false', async () => {
    const w = newWriter({ gzip: false });
    const written = await w.writeGroup(fetchGroup('https://example.org/', 'plain'));
    await w.close();
    const file = w.filesClosed[0]!;
    expect(file.endsWith('.warc')).toBe(true);
    const bytes = fs.readFileSync(file);
    expect(bytes.subarray(0, 10).toString()).toBe('WARC/1.1\r\n');
    for (const rec of written) expect(bytes.subarray(rec.offset, rec.offset + 9).toString()).toBe('WARC/1.1\r');
    const recs = await readWarc(file);
    expect(recs.map((r) => r.type)).toEqual(['warcinfo', 'response', 'request', 'metadata']);
    for (const r of recs) expect(r.header('WARC-Block-Digest')).toBe(r.sha1);
  });

  it('streams a block part and checks it against the declared digest and length', async () => {
    const w = newWriter();
    const head = Buffer.from('HTTP/1.1 200 OK\r\n\r\n');
    const body = Buffer.alloc(700_000, 'z');
    const spool = { length: body.length, stream: () => Readable.from([body.subarray(0, 300_000), body.subarray(300_000)]) };
    const [rec] = await w.writeGroup([
      {
        type: 'response',
        targetUri: 'https://example.org/big',
        date: when,
        contentType: 'application/http; msgtype=response',
        blockParts: [head, spool],
        blockDigest: sha1Obvious(Buffer.concat([head, body])),
      },
    ]);
    await w.close();
    const recs = await readWarc(w.filesClosed[0]!);
    expect(recs[1]!.id).toBe(rec!.recordId);
    expect(recs[1]!.blockLength).toBe(head.length + body.length);
    expect(recs[1]!.sha1).toBe(recs[1]!.header('WARC-Block-Digest'));
  });

  it('checks a declared sha256 (hex or base32) digest as the block streams; unknown algorithms pass unchecked', async () => {
    const w = newWriter();
    const body = Buffer.alloc(300_000, 'k');
    const spool = { length: body.length, stream: () => Readable.from([body], { objectMode: false }) };
    const rec = (blockDigest: string): RecordInput[] => [
      { type: 'resource', targetUri: 'https://example.org/k', date: when, blockParts: [spool], blockDigest },
    ];
    const hex = createHash('sha256').update(body).digest('hex');
    await w.writeGroup(rec(`sha256:${hex}`));
    await w.writeGroup(rec(`SHA-256:${hex.toUpperCase()}`));
    await expect(w.writeGroup(rec(`sha256:${hex.replace(/^./, hex[0] === '0' ? '1' : '0')}`))).rejects.toSatisfy((e: unknown) =>
      isTroveError(e, 'WARC_BLOCK_DIGEST_MISMATCH'),
    );
    const b32 = `sha256:${base32Obvious(createHash('sha256').update(body).digest())}`;
    await w.writeGroup(rec(b32));
    await w.writeGroup(rec('md5:whatever'));
    await w.close();
    const recs = await readWarc(w.filesClosed[0]!, { keepBlocks: false });
    expect(recs.slice(1).map((r) => r.header('WARC-Block-Digest'))).toEqual([`sha256:${hex}`, `SHA-256:${hex.toUpperCase()}`, b32, 'md5:whatever']);
  });

  it('refuses bad record input before writing anything', async () => {
    const w = newWriter();
    const ok = fetchGroup('https://example.org/', 'x');
    const cases: [RecordInput[], ErrorCode][] = [
      [[{ ...ok[0]!, targetUri: 'https://example.org/\r\nWARC-Type: forged' }], 'WARC_BAD_FIELD'],
      [[{ ...ok[0]!, fields: [['Content-Length', '5']] }], 'WARC_BAD_FIELD'],
      [[{ ...ok[0]!, recordId: 'not-a-uri' }], 'WARC_BAD_FIELD'],
      [[{ ...ok[0]!, date: new Date(Number.NaN) }], 'WARC_BAD_FIELD'],
      [[{ ...ok[0]!, type: 'continuation' as RecordInput['type'] }], 'WARC_BAD_RECORD'],
      [[{ ...ok[0]!, blockParts: [{ length: 3, stream: () => Readable.from([Buffer.from('abc')]) }] }], 'WARC_BLOCK_DIGEST_REQUIRED'],
      [[{ ...ok[0]!, blockParts: ['text' as unknown as Buffer] }], 'WARC_BAD_RECORD'],
    ];
    for (const [group, code] of cases) {
      await expect(w.writeGroup([ok[1]!, ...group])).rejects.toSatisfy((e: unknown) => isTroveError(e, code));
    }
    expect(w.currentFile).toBeNull();
    expect(w.bytesWritten).toBe(0);
    await w.close();
    expect(w.filesClosed).toEqual([]);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
