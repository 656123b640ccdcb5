import fs from 'node:fs';
import http from 'node:http';
import zlib from 'node:zlib';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { WARCParser } from 'warcio';
import { decodeBody, decodeBodyStream, parseContentEncoding } from '../../core/extract/decode-body.ts';
import { dechunk } from '../../core/formats/chunked-coding.ts';
import { corpusPath } from '../helpers/corpus.ts';
import { itUsing } from '../helpers/gpl-tests.ts';
import { startHttpServer } from '../helpers/local-server.ts';

const TEXT = Buffer.from('<html><body>' + 'Hello, archive! '.repeat(5000) + '</body></html>');
const MB = 1024 * 1024;

/** A Readable that yields `data` in small pieces, as a socket or spool file would. */
function pieces(data: Buffer, size = 1000): Readable {
  const parts: Buffer[] = [];
  for (let i = 0; i < data.length; i += size) parts.push(data.subarray(i, i + size));
  return Readable.from(parts);
}

function commonPrefix(a: Buffer, b: Buffer): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

const encoders: Record<string, (b: Buffer) => Buffer> = {
  gzip: (b) => zlib.gzipSync(b),
  'x-gzip': (b) => zlib.gzipSync(b),
  deflate: (b) => zlib.deflateSync(b),
  br: (b) => zlib.brotliCompressSync(b),
  zstd: (b) => zlib.zstdCompressSync(b),
  identity: (b) => b,
};

describe('decodeBody and decodeBodyStream', () => {
  for (const [coding, encode] of Object.entries(encoders)) {
    it(`decodes ${coding}`, async () => {
      const raw = encode(TEXT);
      expect(decodeBody(raw, coding, 10 * MB)).toEqual({ body: TEXT, truncated: false });
      expect(await decodeBodyStream(pieces(raw), coding, 10 * MB)).toEqual({ body: TEXT, truncated: false });
    });
  }

  it('decodes raw deflate (no zlib header), as browsers accept', async () => {
    const raw = zlib.deflateRawSync(TEXT);
    expect(decodeBody(raw, 'deflate', MB).body).toEqual(TEXT);
    expect((await decodeBodyStream(pieces(raw), 'Deflate', MB)).body).toEqual(TEXT);
  });

  it('undoes stacked encodings in reverse order', async () => {
    const raw = zlib.brotliCompressSync(zlib.gzipSync(TEXT)); // "gzip, br": gzip applied first
    expect(parseContentEncoding('gzip, br').layers).toEqual(['br', 'gzip']);
    expect(decodeBody(raw, 'gzip, br', MB)).toEqual({ body: TEXT, truncated: false });
    expect(await decodeBodyStream(pieces(raw), 'gzip,  BR', MB)).toEqual({ body: TEXT, truncated: false });
    const raw2 = zlib.gzipSync(zlib.deflateSync(TEXT));
    expect(decodeBody(raw2, 'deflate, identity, gzip', MB).body).toEqual(TEXT);
  });

  it('treats no encoding as identity and caps it', async () => {
    expect(decodeBody(TEXT, undefined, 100)).toEqual({ body: TEXT.subarray(0, 100), truncated: true });
    expect(decodeBody(TEXT, '', TEXT.length)).toEqual({ body: TEXT, truncated: false });
    expect(await decodeBodyStream(pieces(TEXT), undefined, 100)).toEqual({ body: TEXT.subarray(0, 100), truncated: true });
  });

  it('caps decoded output at maxBytes and says it was truncated', async () => {
    for (const coding of ['gzip', 'deflate', 'br', 'zstd']) {
      const raw = encoders[coding]!(TEXT);
      const sync = decodeBody(raw, coding, 1000);
      expect(sync.truncated).toBe(true);
      expect(sync.body.length).toBeLessThanOrEqual(1000);
      expect(TEXT.subarray(0, sync.body.length).equals(sync.body)).toBe(true);
      const streamed = await decodeBodyStream(pieces(raw), coding, 1000);
      expect(streamed).toEqual({ body: TEXT.subarray(0, 1000), truncated: true });
    }
  });

  it('gives what decoded before corruption, plus an error', async () => {
    const big = Buffer.from(Array.from({ length: 20000 }, (_, i) => `line ${i} ${(i * 7919) % 1000}\n`).join(''));
    const raw = Buffer.from(zlib.gzipSync(big));
    const corrupt = Buffer.from(raw);
    for (let i = Math.floor(raw.length / 2); i < raw.length - 8; i++) corrupt[i] = 0xff;
    // Deflate has no check until the trailer, so bytes decoded from the damaged part may be wrong;
    // everything before the damage must be right.
    const sync = decodeBody(corrupt, 'gzip', 10 * MB);
    expect(sync.error).toBeTruthy();
    expect(commonPrefix(sync.body, big)).toBeGreaterThan(10_000);
    const streamed = await decodeBodyStream(pieces(corrupt), 'gzip', 10 * MB);
    expect(streamed.error).toBeTruthy();
    expect(commonPrefix(streamed.body, big)).toBeGreaterThan(10_000);
  });

  it('gives what decoded from a cut stream, plus an error', async () => {
    const raw = zlib.gzipSync(TEXT);
    const cut = raw.subarray(0, raw.length - 10);
    const sync = decodeBody(cut, 'gzip', MB);
    expect(sync.error).toBeTruthy();
    expect(TEXT.subarray(0, sync.body.length).equals(sync.body)).toBe(true);
    expect(sync.body.length).toBeGreaterThan(TEXT.length / 2);
    const streamed = await decodeBodyStream(pieces(cut), 'gzip', MB);
    expect(streamed.error).toBeTruthy();
    expect(TEXT.subarray(0, streamed.body.length).equals(streamed.body)).toBe(true);
  });

  it('passes a body mislabelled as gzip through, with an error', async () => {
    expect(decodeBody(TEXT, 'gzip', MB)).toMatchObject({ body: TEXT, truncated: false, error: expect.stringMatching(/not gzip/) });
    expect(await decodeBodyStream(pieces(TEXT), 'gzip', MB)).toMatchObject({ body: TEXT, error: expect.stringMatching(/not gzip/) });
  });

  it('returns garbage brotli as an error, never a throw', async () => {
    expect(decodeBody(TEXT, 'br', MB)).toMatchObject({ truncated: false, error: expect.any(String) });
    expect(await decodeBodyStream(pieces(TEXT), 'br', MB)).toMatchObject({ error: expect.any(String) });
  });

  it('reports an unsupported coding and returns the raw bytes', async () => {
    expect(decodeBody(TEXT, 'compress', MB)).toMatchObject({ body: TEXT, error: 'unsupported content-encoding: compress' });
    expect(await decodeBodyStream(pieces(TEXT), 'gzip, sdch', MB)).toMatchObject({ body: TEXT, error: 'unsupported content-encoding: sdch' });
  });

  it('handles empty bodies and maxBytes 0', async () => {
    expect(decodeBody(Buffer.alloc(0), 'gzip', MB)).toMatchObject({ body: Buffer.alloc(0), truncated: false });
    expect(await decodeBodyStream(Readable.from([]), 'br', MB)).toEqual({ body: Buffer.alloc(0), truncated: false });
    expect(decodeBody(zlib.gzipSync(TEXT), 'gzip', 0)).toEqual({ body: Buffer.alloc(0), truncated: true });
  });

  it('decodes a gzip response streamed by a real HTTP server, stopping early at the cap', async () => {
    const gz = zlib.gzipSync(TEXT);
    const server = await startHttpServer((_req, res) => {
      res.writeHead(200, { 'Content-Encoding': 'gzip', 'Content-Type': 'text/html' });
      let i = 0;
      const tick = () => {
        if (i >= gz.length) return res.end();
        res.write(gz.subarray(i, i + 512));
        i += 512;
        setImmediate(tick);
      };
      tick();
    });
    try {
      const get = () =>
        new Promise<http.IncomingMessage>((resolve, reject) => http.get(server.origin + '/', resolve).on('error', reject));
      const full = await decodeBodyStream(await get(), 'gzip', MB);
      expect(full).toEqual({ body: TEXT, truncated: false });
      const res = await get();
      const capped = await decodeBodyStream(res, 'gzip', 2000);
      expect(capped).toEqual({ body: TEXT.subarray(0, 2000), truncated: true });
      expect(res.destroyed).toBe(true);
    } finally {
      await server.close();
    }
  });

  itUsing('warc/ukwa')('decodes the corpus payloads written by wget with Content-Encoding gzip and br', async () => {
    for (const [file, coding] of [
      ['transfer_compression_gzip.warc', 'gzip'],
      ['transfer_compression_brotli.warc', 'br'],
    ] as const) {
      const parser = new WARCParser(fs.createReadStream(corpusPath('warc', 'ukwa', file)));
      let seen = 0;
      for await (const record of parser) {
        if (record.warcType !== 'response') continue;
        expect(record.httpHeaders?.headers.get('content-encoding')).toBe(coding);
        const raw = Buffer.from(await record.readFully(false));
        const decoded = decodeBody(raw, coding, MB);
        expect(decoded.error).toBeUndefined();
        expect(decoded.body.toString('utf8')).toContain('Extremely simple webpage');
        const streamed = await decodeBodyStream(Readable.from([raw]), coding, MB);
        expect(streamed.body.equals(decoded.body)).toBe(true);
        seen++;
      }
      expect(seen).toBe(1);
    }
  });
});

describe('dechunk', () => {
  it('decodes chunked transfer coding', () => {
    const raw = Buffer.from('5\r\nHello\r\n7;ext=1\r\n, world\r\n0\r\nTrailer: x\r\n\r\n');
    expect(dechunk(raw)).toEqual({ body: Buffer.from('Hello, world'), complete: true });
  });

  it('is tolerant: LF-only, uppercase hex, missing final CRLF', () => {
    expect(dechunk(Buffer.from('A\nabcdefghij\n0\n'))).toEqual({ body: Buffer.from('abcdefghij'), complete: true });
    expect(dechunk(Buffer.from('3\r\nabc\r\n0'))).toEqual({ body: Buffer.from('abc'), complete: true });
  });

  it('gives what it has for cut or broken chunking', () => {
    expect(dechunk(Buffer.from('5\r\nHel'))).toEqual({ body: Buffer.from('Hel'), complete: false });
    expect(dechunk(Buffer.from('3\r\nabc\r\nzz\r\nmore'))).toEqual({ body: Buffer.from('abc'), complete: false });
    expect(dechunk(Buffer.from(''))).toEqual({ body: Buffer.from(''), complete: false });
  });

  it('returns data that is not chunked unchanged', () => {
    const plain = Buffer.from('<!doctype html><p>already de-chunked</p>');
    expect(dechunk(plain)).toEqual({ body: plain, complete: false });
  });

  it('de-chunks the warcprox record in the corpus the same way warcio does', async () => {
    const file = corpusPath('warc', 'warcio', 'example-iana.org-chunked.warc');
    const raw: Buffer[] = [];
    for await (const record of new WARCParser(fs.createReadStream(file))) {
      if (record.warcType === 'response') raw.push(Buffer.from(await record.readFully(false)));
    }
    const decoded: Buffer[] = [];
    for await (const record of new WARCParser(fs.createReadStream(file))) {
      if (record.warcType === 'response') decoded.push(Buffer.from(await record.readFully(true)));
    }
    expect(raw).toHaveLength(1);
    const mine = dechunk(raw[0]!);
    expect(mine.complete).toBe(true);
    expect(mine.body.toString('latin1').startsWith('<!doctype html>')).toBe(true);
    expect(mine.body.equals(decoded[0]!)).toBe(true);
  });
});
