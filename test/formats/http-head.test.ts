/** One HTTP head parser: stored heads read tolerantly, live ones strictly, by the same line rules. */
import { describe, expect, it } from 'vitest';
import { isChunked, parseHttpHead, parseResponseHead } from '../../core/formats/http-head.ts';

const b = (s: string) => Buffer.from(s, 'latin1');

describe('HTTP heads', () => {
  it('reads a well-formed head the same live and stored', () => {
    const raw = b('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Fold: one\r\n  two\r\nset-cookie: a\r\nSet-Cookie: b\r\n\r\n');
    const live = parseResponseHead(raw);
    const stored = parseHttpHead(raw)!;
    expect(stored).toMatchObject({ kind: 'response', httpVersion: live.httpVersion, status: live.status, statusText: live.statusText, headLength: raw.length });
    expect(stored.headers).toEqual(live.headers);
  });

  it('skips in a stored head what a live one refuses', () => {
    const raw = b('HTTP/1.1 200 OK\r\nnot a field\r\nBad Name: x\r\nContent-Type: text/plain\r\n\r\n');
    expect(() => parseResponseHead(raw)).toThrow(expect.objectContaining({ code: 'FETCH_BAD_HEADERS' }));
    expect(parseHttpHead(raw)!.headers).toEqual([['Bad Name', 'x'], ['Content-Type', 'text/plain']]);
    expect(() => parseResponseHead(b('HTTP/1.1 200 OK\r\n  folded first\r\n\r\n'))).toThrow(expect.objectContaining({ code: 'FETCH_BAD_HEADERS' }));
    expect(() => parseResponseHead(b('HTTP/2 200\r\n\r\n'))).toThrow(expect.objectContaining({ code: 'FETCH_BAD_STATUS_LINE' }));
    expect(parseHttpHead(b('HTTP/2 200\r\n\r\n'))).toMatchObject({ httpVersion: '2', status: 200 });
  });

  it('calls a body chunked when chunked is the last transfer coding, across lines', () => {
    const head = (te: string) => parseHttpHead(b(`HTTP/1.1 200 OK\r\n${te}\r\n`))!;
    expect(isChunked(head('Transfer-Encoding: gzip, chunked\r\n'))).toBe(true);
    expect(isChunked(head('Transfer-Encoding: gzip\r\ntransfer-encoding: Chunked\r\n'))).toBe(true);
    expect(isChunked(head('Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n'))).toBe(false);
    expect(isChunked(head('Content-Length: 3\r\n'))).toBe(false);
  });
});
