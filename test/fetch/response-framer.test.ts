import { describe, expect, it } from 'vitest';
import { ChunkedDecoder } from '../../core/formats/chunked-coding.ts';
import { ResponseFramer } from '../../core/fetch/response-framer.ts';
import type { FramerLimits, FramerState } from '../../core/fetch/response-framer.ts';
import { bodyFraming } from '../../core/fetch/body-framing.ts';
import { parseResponseHead } from '../../core/formats/http-head.ts';

interface Framed {
  state: FramerState;
  code: string | null;
  head: Buffer | null;
  body: Buffer;
  entity: Buffer;
  status: number | null;
}

const limits: FramerLimits = { method: 'GET', maxHeaderBytes: 8192, maxHeaderCount: 100, maxBodyBytes: 1_000_000 };

/** Run bytes through a framer in the given pieces, then EOF if asked. */
function frame(pieces: Buffer[], opts: Partial<FramerLimits> & { eof?: boolean } = {}): Framed {
  let head: Buffer | null = null;
  const body: Buffer[] = [];
  const entity: Buffer[] = [];
  const f = new ResponseFramer(
    { ...limits, ...opts },
    {
      onHead: (raw) => (head = Buffer.from(raw)),
      onBody: (b) => body.push(Buffer.from(b)),
      onEntity: (b) => entity.push(Buffer.from(b)),
    },
  );
  for (const p of pieces) f.push(p);
  if (opts.eof) f.end();
  return { state: f.state, code: f.error?.code ?? null, head, body: Buffer.concat(body), entity: Buffer.concat(entity), status: f.head?.status ?? null };
}

/** Every way of cutting `msg` in two, plus byte by byte. */
function splits(msg: Buffer): Buffer[][] {
  const out: Buffer[][] = [[msg], [...msg].map((b) => Buffer.from([b]))];
  for (let i = 1; i < msg.length; i++) out.push([msg.subarray(0, i), msg.subarray(i)]);
  return out;
}

describe('ResponseFramer', () => {
  const headCL = 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n';
  it('cuts a Content-Length body at its length, however the bytes arrive', () => {
    const msg = Buffer.from(headCL + 'helloEXTRA');
    for (const pieces of splits(msg)) {
      const r = frame(pieces);
      expect(r.state).toBe('complete');
      expect(r.head?.toString()).toBe(headCL);
      expect(r.body.toString()).toBe('hello');
      expect(r.entity.toString()).toBe('hello');
    }
  });

  const chunkedHead = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n';
  const chunkedBody = '5;ext=1\r\nhello\r\n7 \r\n, world\r\n0\r\nX-Trailer: yes\r\n\r\n';
  it('keeps chunk framing in the body, removes it from the entity, and ends after the trailers', () => {
    const msg = Buffer.from(chunkedHead + chunkedBody + 'HTTP/1.1 next response');
    for (const pieces of splits(msg)) {
      const r = frame(pieces);
      expect(r.state).toBe('complete');
      expect(r.body.toString()).toBe(chunkedBody);
      expect(r.entity.toString()).toBe('hello, world');
    }
  });

  it('accepts bare LF line ends as llhttp does', () => {
    const r = frame([Buffer.from('HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n3\nabc\n0\n\n')]);
    expect(r.state).toBe('complete');
    expect(r.entity.toString()).toBe('abc');
  });

  it('reads a close-delimited body to EOF', () => {
    const r = frame([Buffer.from('HTTP/1.0 200 OK\r\n\r\nuntil '), Buffer.from('the end')], { eof: true });
    expect(r.state).toBe('complete');
    expect(r.body.toString()).toBe('until the end');
  });

  it('has no body for HEAD, 204 and 304 whatever the headers say', () => {
    expect(frame([Buffer.from(headCL + 'hello')], { method: 'HEAD' }).body.length).toBe(0);
    expect(frame([Buffer.from('HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n')]).state).toBe('complete');
    expect(frame([Buffer.from('HTTP/1.1 204 No Content\r\n\r\n')]).state).toBe('complete');
  });

  it('skips 1xx informational heads and frames the final response', () => {
    const r = frame([Buffer.from('HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n' + headCL + 'hello')]);
    expect(r.status).toBe(200);
    expect(r.head?.toString()).toBe(headCL);
    expect(r.body.toString()).toBe('hello');
  });

  it('stops at maxBodyBytes, decoding exactly the kept raw bytes', () => {
    const r = frame([Buffer.from(chunkedHead + chunkedBody)], { maxBodyBytes: 12 });
    expect(r.state).toBe('truncated');
    expect(r.body.toString()).toBe(chunkedBody.slice(0, 12)); // '5;ext=1\r\nhel'
    expect(r.entity.toString()).toBe('hel');
    const exact = frame([Buffer.from(headCL + 'hello')], { maxBodyBytes: 5 });
    expect(exact.state).toBe('complete');
  });

  it('lowers the body cut from the head when bodyLimitForHead says so (a media type), before any body byte', () => {
    const video = 'HTTP/1.1 200 OK\r\nContent-Type: video/mp4\r\nContent-Length: 10\r\n\r\n';
    const rule = { bodyLimitForHead: (h: { headers: [string, string][] }) => (h.headers.some(([k, v]) => k.toLowerCase() === 'content-type' && v.startsWith('video/')) ? 4 : null) };
    for (const pieces of splits(Buffer.from(video + '0123456789'))) {
      const r = frame(pieces, rule);
      expect(r.state).toBe('truncated');
      expect(r.body.toString()).toBe('0123');
    }
    expect(frame([Buffer.from(headCL + 'hello')], rule).state).toBe('complete');
  });

  it('reports a peer that closes mid-body as incomplete', () => {
    expect(frame([Buffer.from(headCL + 'hel')], { eof: true }).state).toBe('incomplete');
    expect(frame([Buffer.from(chunkedHead + '5\r\nhel')], { eof: true }).state).toBe('incomplete');
  });

  it('fails with stable codes on malformed input, keeping the received prefix', () => {
    const garbage = frame([Buffer.from('\x00\x01garbage\r\n\r\n')]);
    expect(garbage).toMatchObject({ state: 'failed', code: 'FETCH_BAD_STATUS_LINE' });
    const badChunk = frame([Buffer.from(chunkedHead + '5\r\nhello\r\nzz\r\n')]);
    expect(badChunk).toMatchObject({ state: 'failed', code: 'FETCH_BAD_CHUNKING' });
    expect(badChunk.entity.toString()).toBe('hello');
    expect(badChunk.body.toString()).toBe('5\r\nhello\r\nzz\r\n');
    expect(frame([Buffer.from(chunkedHead + '5\r\nhelloXX')]).code).toBe('FETCH_BAD_CHUNKING');
    expect(frame([Buffer.from(chunkedHead + 'fffffffffffffff\r\n')]).code).toBe('FETCH_BAD_CHUNKING');
    expect(frame([Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n')]).code).toBe('FETCH_BAD_HEADERS');
    expect(frame([Buffer.from('HTTP/1.1 200 OK\r\nno colon here\r\n\r\n')]).code).toBe('FETCH_BAD_HEADERS');
    expect(frame([Buffer.from('HTTP/1.1 2xx OK\r\n\r\n')]).code).toBe('FETCH_BAD_STATUS_LINE');
  });

  it('enforces the head size and field count limits before the head ends', () => {
    const many = 'HTTP/1.1 200 OK\r\n' + Array.from({ length: 200 }, (_, i) => `X-${i}: v\r\n`).join('');
    expect(frame([Buffer.from(many)]).code).toBe('FETCH_TOO_MANY_HEADERS');
    expect(frame([Buffer.from('HTTP/1.1 200 OK\r\nX: ' + 'a'.repeat(9000))]).code).toBe('FETCH_HEADERS_TOO_LARGE');
  });
});

describe('parseResponseHead', () => {
  it('keeps version, reason phrase, order, case, duplicates and odd spacing', () => {
    const h = parseResponseHead(Buffer.from('HTTP/1.0 404 Not  Here\r\nSet-Cookie: a=1\r\nset-cookie:b=2\r\nX-Fold: one\r\n  two\r\n\r\n', 'latin1'));
    expect(h).toEqual({
      httpVersion: '1.0',
      status: 404,
      statusText: 'Not  Here',
      headers: [
        ['Set-Cookie', 'a=1'],
        ['set-cookie', 'b=2'],
        ['X-Fold', 'one two'],
      ],
    });
    expect(parseResponseHead(Buffer.from('HTTP/1.1 200\r\n\r\n')).statusText).toBe('');
  });

  it('chooses framing as RFC 9112 says', () => {
    const head = (lines: string) => parseResponseHead(Buffer.from(`HTTP/1.1 200 OK\r\n${lines}\r\n`));
    expect(bodyFraming(head('Transfer-Encoding: gzip, chunked\r\nContent-Length: 3\r\n'), 'GET')).toEqual({ kind: 'chunked' });
    expect(bodyFraming(head('Transfer-Encoding: gzip\r\n'), 'GET')).toEqual({ kind: 'close' });
    expect(bodyFraming(head('Content-Length: 3, 3\r\n'), 'GET')).toEqual({ kind: 'length', length: 3 });
    expect(bodyFraming(head(''), 'GET')).toEqual({ kind: 'close' });
  });
});

describe('ChunkedDecoder', () => {
  it('returns how many bytes belong to the message', () => {
    const out: Buffer[] = [];
    const d = new ChunkedDecoder((c) => out.push(Buffer.from(c)));
    const raw = Buffer.from('3\r\nabc\r\n0\r\n\r\nleftover');
    expect(d.write(raw)).toBe(raw.length - 'leftover'.length);
    expect(d.done).toBe(true);
    expect(Buffer.concat(out).toString()).toBe('abc');
  });
});
