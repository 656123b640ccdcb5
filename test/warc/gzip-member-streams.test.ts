/**
 * In-memory records over 8 KiB are compressed on the thread pool by kept zlib streams, reset
 * between members (write-record.ts `gzipOnPool`; issue 20). Each member must be byte for byte what
 * a new stream makes (gzipSync with the same level, window and memLevel), also when many run at
 * once and when a stream is reused after a member of another size, and a WARC written that way must
 * read back with warcio, an independent reader, record by record.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { WARCParser } from 'warcio';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newRecordId } from '../../core/warc/record-header.ts';
import { WarcWriter } from '../../core/warc/warc-writer.ts';
import type { RecordInput } from '../../core/warc/warc-writer.ts';
import { gzipMemberOptions, recordBytesInMemory } from '../../core/warc/write-record.ts';

const CRLFCRLF = Buffer.from('\r\n\r\n');

/** HTML-like text that compresses as pages do, different for every seed. */
function page(bytes: number, seed: number): Buffer {
  const words = ['section', 'class', 'href', 'reference', 'internal', 'module', 'function', 'return', 'value', 'docs'];
  let s = '<!DOCTYPE html>\n<html><body>\n';
  let x = seed * 7919 + 1;
  while (s.length < bytes) {
    x = (x * 1103515245 + 12345) >>> 0;
    s += `<a class="${words[x % 10]}" href="/${words[(x >>> 8) % 10]}/${x % 997}.html">${words[(x >>> 16) % 10]} ${x % 100}</a>\n`;
  }
  return Buffer.from(s.slice(0, bytes));
}

/** Bytes no compressor can shrink (its member is larger than one 256 KiB output piece when big). */
function noise(bytes: number, seed: number): Buffer {
  const b = Buffer.alloc(bytes);
  let x = seed + 1;
  for (let i = 0; i < bytes; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    b[i] = x >>> 24;
  }
  return b;
}

function record(body: Buffer, i: number) {
  const header = Buffer.from(`WARC/1.1\r\nWARC-Type: resource\r\nWARC-Target-URI: https://example.org/${i}\r\nContent-Length: ${body.length}\r\n\r\n`);
  return { header, parts: [body.subarray(0, 1000), body.subarray(1000)], blockLength: body.length, check: null };
}

/** What a new zlib stream makes of the record: the reference the kept streams must match. */
function expected(rec: ReturnType<typeof record>): Buffer {
  const raw = Buffer.concat([rec.header, ...rec.parts, CRLFCRLF]);
  return gzipSync(raw, { level: 6, ...gzipMemberOptions(raw.length) });
}

describe('gzip members from kept streams', () => {
  it('are byte for byte a new stream’s, one after another and at sizes that change the window', async () => {
    // 9 KiB and 20 KiB records get a 16 KiB window, 40 KiB and more zlib's 32 KiB; the 700 KiB
    // noise record's member is larger than one output piece.
    const sizes = [9_000, 40_000, 20_000, 120_000, 9_500, 700_000, 33_000, 250_000, 16_000];
    for (const [i, size] of sizes.entries()) {
      const rec = record(i === 5 ? noise(size, i) : page(size, i), i);
      const member = await recordBytesInMemory(rec, { gzip: true, gzipLevel: 6 });
      expect(member!.equals(expected(rec)), `record ${i} (${size} bytes)`).toBe(true);
    }
  });

  it('are byte for byte a new stream’s when many are compressed at once', async () => {
    const recs = Array.from({ length: 24 }, (_, i) => record(i % 7 === 3 ? noise(30_000 + i * 1000, i) : page(12_000 + i * 9_000, i), i));
    const members = await Promise.all(recs.map((r) => recordBytesInMemory(r, { gzip: true, gzipLevel: 6 })));
    for (const [i, m] of members.entries()) expect(m!.equals(expected(recs[i]!)), `record ${i}`).toBe(true);
    // And at another level: streams are kept per level, window and memLevel.
    const rec = record(page(50_000, 99), 99);
    const raw = Buffer.concat([rec.header, ...rec.parts, CRLFCRLF]);
    const level1 = await recordBytesInMemory(rec, { gzip: true, gzipLevel: 1 });
    expect(level1!.equals(gzipSync(raw, { level: 1, ...gzipMemberOptions(raw.length) }))).toBe(true);
  });

  it('own their bytes: a member is not changed by the members compressed after it', async () => {
    const first = record(page(60_000, 1), 1);
    const m1 = await recordBytesInMemory(first, { gzip: true, gzipLevel: 6 });
    const copy = Buffer.from(m1!);
    await Promise.all(Array.from({ length: 8 }, (_, i) => recordBytesInMemory(record(page(60_000, i + 10), i + 10), { gzip: true, gzipLevel: 6 })));
    expect(m1!.equals(copy)).toBe(true);
  });

  describe('in a WARC', () => {
    let dir: string;
    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-gzip-streams-'));
    });
    afterEach(() => {
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('read back by warcio, every record whole and where the writer says', async () => {
      const w = new WarcWriter({ dir, prefix: 'T', maxBytes: 1e9, warcinfo: () => ({ fields: { software: 'trove test' } }) });
      const bodies = Array.from({ length: 30 }, (_, i) => (i % 5 === 4 ? noise(20_000 + i * 3_000, i) : page(9_000 + i * 11_000, i)));
      const groups = bodies.map((body, i): RecordInput[] => {
        const id = newRecordId();
        return [
          { type: 'response', targetUri: `https://example.org/${i}`, date: new Date('2026-11-26T12:00:00Z'), recordId: id, contentType: 'application/http; msgtype=response', blockParts: [Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n'), body] },
          { type: 'metadata', targetUri: `https://example.org/${i}`, date: new Date('2026-11-26T12:00:00Z'), contentType: 'application/warc-fields', fields: [['WARC-Concurrent-To', id]], blockParts: [Buffer.from(`via: https://example.org/\r\n`)] },
        ];
      });
      // Half precompressed ahead (as the crawl does), all written concurrently queued.
      const written = await Promise.all(groups.map(async (g, i) => w.writeGroup(i % 2 ? await w.precompress(g) : g)));
      await w.close();
      const file = w.filesClosed[0]!;
      const seen: { uri: string; type: string; offset: number; body: Buffer }[] = [];
      const parser = new WARCParser(fs.createReadStream(file));
      for await (const r of parser) {
        const body = Buffer.from(await r.readFully(false));
        seen.push({ uri: r.warcTargetURI ?? '', type: r.warcType ?? '', offset: parser.offset, body });
      }
      expect(seen.filter((s) => s.type === 'response')).toHaveLength(30);
      for (const [i, recs] of written.entries()) {
        const resp = seen.find((s) => s.type === 'response' && s.uri === `https://example.org/${i}`)!;
        expect(resp.offset).toBe(recs[0]!.offset);
        // warcio parsed the HTTP head off: what is left is the payload as written.
        expect(resp.body.equals(bodies[i]!)).toBe(true);
      }
    });
  });
});
