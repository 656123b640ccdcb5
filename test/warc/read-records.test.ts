/**
 * The WARC reader on files written here byte by byte (plain, one gzip member per record,
 * whole-file gzip) and on records written by warcio.js's own serializer, read back by both.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WARCParser, WARCRecord, WARCSerializer } from 'warcio';
import { openArchiveFile, readRecordAt } from '../../core/warc/read-records.ts';
import type { WarcRecord } from '../../core/warc/read-records.ts';
import { WarcReadError } from '../../core/warc/read-errors.ts';
import type { WarcReadWarning } from '../../core/warc/read-errors.ts';

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'trove-read-'));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/** One WARC record as bytes, CRLF CRLF included. */
function record(fields: [string, string][], block: string | Buffer, version = 'WARC/1.1'): Buffer {
  const body = typeof block === 'string' ? Buffer.from(block) : block;
  const head = [version, ...fields.map(([k, v]) => `${k}: ${v}`), `Content-Length: ${body.length}`, '', ''].join('\r\n');
  return Buffer.concat([Buffer.from(head), body, Buffer.from('\r\n\r\n')]);
}

function response(n: number): Buffer {
  const http = `HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nbody number ${n}`;
  return record(
    [
      ['WARC-Type', 'response'],
      ['WARC-Record-ID', `<urn:uuid:00000000-0000-0000-0000-${String(n).padStart(12, '0')}>`],
      ['WARC-Date', '2024-03-05T10:20:30Z'],
      ['WARC-Target-URI', `http://example.com/${n}`],
      ['Content-Type', 'application/http; msgtype=response'],
    ],
    http,
  );
}

async function write(name: string, data: Buffer): Promise<string> {
  const p = path.join(dir, name);
  await fs.writeFile(p, data);
  return p;
}

async function readAll(file: string, onWarning?: (w: WarcReadWarning) => void) {
  const seen: { record: WarcRecord; block: Buffer }[] = [];
  for await (const r of openArchiveFile(file, { onWarning })) {
    const parts: Buffer[] = [];
    for await (const b of r.block()) parts.push(Buffer.from(b));
    seen.push({ record: r, block: Buffer.concat(parts) });
  }
  // A gzip record's length is final once the iterator has moved past it: read it after the loop.
  return seen.map(({ record: r, block }) => ({ offset: r.offset, length: r.length, type: r.type, uri: r.targetUri, block, headers: r.headers }));
}

describe('openArchiveFile', () => {
  it('reads a plain file: offsets tile the file, lengths exclude the CRLF CRLF', async () => {
    const recs = [response(1), response(2), response(3)];
    const file = await write('plain.warc', Buffer.concat(recs));
    const got = await readAll(file);
    expect(got.map((r) => r.offset)).toEqual([0, recs[0]!.length, recs[0]!.length + recs[1]!.length]);
    expect(got.map((r) => r.length)).toEqual(recs.map((r) => r.length - 4));
    expect(got[1]!.block.toString()).toContain('body number 2');
  });

  it('reads one gzip member per record: offset and length are the member', async () => {
    const members = [response(1), response(2), response(3)].map((r) => zlib.gzipSync(r));
    const file = await write('members.warc.gz', Buffer.concat(members));
    const got = await readAll(file);
    expect(got.map((r) => [r.offset, r.length])).toEqual([
      [0, members[0]!.length],
      [members[0]!.length, members[1]!.length],
      [members[0]!.length + members[1]!.length, members[2]!.length],
    ]);
    expect(got.map((r) => r.uri)).toEqual(['http://example.com/1', 'http://example.com/2', 'http://example.com/3']);
  });

  it('sniffs gzip by its bytes, not its name', async () => {
    const file = await write('looks-plain.warc', zlib.gzipSync(response(7)));
    const got = await readAll(file);
    expect(got).toHaveLength(1);
    expect(got[0]!.block.toString()).toContain('body number 7');
  });

  it('reads a whole-file gzip in sequence and warns WARC_NOT_RANDOM_ACCESS once', async () => {
    const file = await write('whole.warc.gz', zlib.gzipSync(Buffer.concat([response(1), response(2), response(3)])));
    const warnings: WarcReadWarning[] = [];
    const got = await readAll(file, (w) => warnings.push(w));
    expect(got.map((r) => r.uri)).toEqual(['http://example.com/1', 'http://example.com/2', 'http://example.com/3']);
    expect(warnings.map((w) => w.code)).toEqual(['WARC_NOT_RANDOM_ACCESS']);
    expect(got.every((r) => r.offset === 0)).toBe(true);
  });

  it('keeps fields in order, repeated ones, unknown ones; unfolds folded lines; any case', async () => {
    const raw = Buffer.from(
      'warc/1.0\r\nWARC-TYPE: RESPONSE\r\nwarc-target-uri: \r\n <http://example.com/folded>\r\nX-Thing: a\r\n' +
        'WARC-Concurrent-To: <urn:x:1>\r\nWARC-Concurrent-To: <urn:x:2>\r\nx-thing: b\r\nContent-Length: 3\r\n\r\nabc\r\n\r\n',
    );
    const file = await write('fields.warc', raw);
    let seen: WarcRecord | null = null;
    for await (const r of openArchiveFile(file)) seen = r;
    expect(seen!.version).toBe('WARC/1.0');
    expect(seen!.type).toBe('response');
    expect(seen!.targetUri).toBe('http://example.com/folded');
    expect(seen!.get('x-THING')).toBe('a');
    expect(seen!.getAll('X-Thing')).toEqual(['a', 'b']);
    expect(seen!.getAll('WARC-Concurrent-To')).toEqual(['<urn:x:1>', '<urn:x:2>']);
    expect(seen!.headers.map(([k]) => k)).toEqual(['WARC-TYPE', 'warc-target-uri', 'X-Thing', 'WARC-Concurrent-To', 'WARC-Concurrent-To', 'x-thing', 'Content-Length']);
  });

  it('accepts LF-only lines and a missing separator, with warnings', async () => {
    const a = Buffer.from('WARC/1.0\nWARC-Type: resource\nContent-Length: 2\n\nhi');
    const b = record([['WARC-Type', 'resource']], 'yo');
    const file = await write('lf.warc', Buffer.concat([a, b]));
    const warnings: WarcReadWarning[] = [];
    const got = await readAll(file, (w) => warnings.push(w));
    expect(got.map((r) => r.block.toString())).toEqual(['hi', 'yo']);
    expect(warnings.map((w) => w.code).sort()).toEqual(['WARC_BAD_LINE_ENDING', 'WARC_BAD_SEPARATOR']);
  });

  it('skips junk between records with WARC_SKIPPED_DATA (Content-Length too small)', async () => {
    const good = response(1);
    const short = Buffer.from(good.toString('latin1').replace(/Content-Length: (\d+)/, (_, n) => `Content-Length: ${Number(n) - 3}`), 'latin1');
    const file = await write('short.warc', Buffer.concat([short, response(2)]));
    const warnings: WarcReadWarning[] = [];
    const got = await readAll(file, (w) => warnings.push(w));
    expect(got.map((r) => r.uri)).toEqual(['http://example.com/1', 'http://example.com/2']);
    expect(warnings.find((w) => w.code === 'WARC_SKIPPED_DATA')!.offset).toBe(short.length - 7);
  });

  it('throws WARC_TRAILING_DATA at the first byte of garbage after the last record', async () => {
    const file = await write('garbage.warc', Buffer.concat([response(1), Buffer.from('this is not a record\n')]));
    const types: string[] = [];
    const err = await (async () => {
      for await (const r of openArchiveFile(file)) types.push(r.type);
    })().catch((e: unknown) => e);
    expect(types).toEqual(['response']);
    expect(err).toBeInstanceOf(WarcReadError);
    expect(err).toMatchObject({ code: 'WARC_TRAILING_DATA', details: { offset: response(1).length } });
  });

  it('gives typed errors for files that are not WARC, missing, or corrupt gzip', async () => {
    const notWarc = await write('not.warc', Buffer.from('<html>hello</html>\n'));
    await expect(readAll(notWarc)).rejects.toMatchObject({ code: 'WARC_BAD_VERSION', details: { offset: 0 } });
    await expect(readAll(path.join(dir, 'nope.warc'))).rejects.toMatchObject({ code: 'WARC_OPEN_FAILED' });
    const gz = zlib.gzipSync(response(1));
    const second = zlib.gzipSync(response(2));
    second[second.length - 20]! ^= 0xff; // inside the deflate data or the CRC
    const corrupt = await write('corrupt.warc.gz', Buffer.concat([gz, second]));
    const err = await readAll(corrupt).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WarcReadError);
    expect((err as WarcReadError).code).toBe('WARC_BAD_GZIP');
    expect((err as WarcReadError).offset).toBe(gz.length);
    const bad = await write('endless.warc', Buffer.concat([Buffer.from('WARC/1.0\r\n'), Buffer.alloc(1100 * 1024, 'a')]));
    await expect(readAll(bad)).rejects.toMatchObject({ code: 'WARC_BAD_HEADER', details: { offset: 0 } });
    expect(await readAll(await write('empty.warc', Buffer.alloc(0)))).toEqual([]);
  });

  it('skips unread blocks and refuses to read a block after moving on', async () => {
    const file = await write('skip.warc.gz', Buffer.concat([response(1), response(2)].map((r) => zlib.gzipSync(r))));
    let first: WarcRecord | null = null;
    const uris: (string | null)[] = [];
    for await (const r of openArchiveFile(file)) {
      first ??= r;
      uris.push(r.targetUri);
    }
    expect(uris).toEqual(['http://example.com/1', 'http://example.com/2']);
    await expect(first!.readBlock(10)).rejects.toMatchObject({ code: 'WARC_BLOCK_GONE' });
  });

  it('readBlock returns at most maxBytes and says whether more remained', async () => {
    const file = await write('rb.warc', response(5));
    for await (const r of openArchiveFile(file)) {
      const a = await r.readBlock(8);
      expect(a).toEqual({ bytes: Buffer.from('HTTP/1.1'), truncated: true });
      const rest: Buffer[] = [];
      for await (const b of r.block()) rest.push(Buffer.from(b));
      expect(Buffer.concat([a.bytes, ...rest]).toString()).toMatch(/^HTTP\/1.1 200 OK.*body number 5$/s);
    }
  });
});

describe('readRecordAt', () => {
  it('reads each record at its offset, in plain and gzip files, any number of times', async () => {
    for (const gz of [false, true]) {
      const recs = [response(1), response(2), response(3)];
      const file = await write(gz ? 'at.warc.gz' : 'at.warc', Buffer.concat(gz ? recs.map((r) => zlib.gzipSync(r)) : recs));
      const seq = await readAll(file);
      for (const s of seq) {
        const r = await readRecordAt(file, s.offset, s.length);
        expect(r.targetUri).toBe(s.uri);
        expect(r.length).toBe(s.length);
        expect((await r.readBlock(1 << 20)).bytes).toEqual(s.block);
        const parts: Buffer[] = [];
        for await (const b of r.block()) parts.push(Buffer.from(b));
        expect(Buffer.concat(parts)).toEqual(s.block);
      }
      // Offset 3 is inside a record (or a gzip member): no record starts there.
      await expect(readRecordAt(file, 3)).rejects.toMatchObject({ code: 'WARC_BAD_VERSION', details: { offset: 3 } });
    }
  });
});

describe('against warcio.js', () => {
  it('reads what warcio.js writes (gzip per record), and warcio.js reads the same blocks', async () => {
    const parts: Uint8Array[] = [];
    for (let i = 0; i < 5; i++) {
      const rec = WARCRecord.create(
        { url: `http://example.org/page/${i}`, date: '2024-01-02T03:04:05Z', type: 'response', warcVersion: 'WARC/1.1', httpHeaders: { 'Content-Type': 'text/html' } },
        (async function* () {
          yield new TextEncoder().encode(`<p>page ${i}</p>`.repeat(i * 50 + 1));
        })(),
      );
      parts.push(await WARCSerializer.serialize(rec, { gzip: true }));
    }
    const file = await write('warcio.warc.gz', Buffer.concat(parts));
    const ours = await readAll(file);
    const theirs: { type: string; uri: string | null | undefined; block: Buffer }[] = [];
    const parser = new WARCParser((await fs.open(file)).createReadStream(), { parseHttp: false });
    for await (const r of parser) theirs.push({ type: r.warcType, uri: r.warcTargetURI, block: Buffer.from(await r.readFully(false)) });
    expect(ours.map((r) => [r.type, r.uri])).toEqual(theirs.map((r) => [r.type, r.uri]));
    ours.forEach((r, i) => expect(r.block.equals(theirs[i]!.block)).toBe(true));
    let at = 0;
    ours.forEach((r, i) => {
      expect([r.offset, r.length]).toEqual([at, parts[i]!.length]);
      at += parts[i]!.length;
    });
  });
});
