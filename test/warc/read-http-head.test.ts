/**
 * HTTP heads and WARC header lines as archives hold them: tolerant of what real producers wrote,
 * null (never a throw) for what is not HTTP.
 */
import { describe, expect, it } from 'vitest';
import { fieldValue } from '../../core/formats/http-fields.ts';
import { isChunked, parseHttpHead } from '../../core/formats/http-head.ts';
import { parseFieldLines, parseVersionLine } from '../../core/warc/read-headers.ts';
import { arcDateToIso, parseArcHeaderLine } from '../../core/warc/arc-reader.ts';

const b = (s: string) => Buffer.from(s, 'latin1');

describe('parseHttpHead', () => {
  it('parses a response head and says where the body starts', () => {
    const bytes = b('HTTP/1.1 301 Moved Permanently\r\nLocation: /x\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\n\r\nbody');
    const h = parseHttpHead(bytes)!;
    expect(h).toMatchObject({ kind: 'response', httpVersion: '1.1', status: 301, statusText: 'Moved Permanently', terminated: true });
    expect(h.headers).toEqual([['Location', '/x'], ['Set-Cookie', 'a=1'], ['Set-Cookie', 'b=2']]);
    expect(bytes.subarray(h.headLength).toString()).toBe('body');
  });

  it('accepts a missing reason phrase, CR CR LF line ends, LF-only heads and folded headers', () => {
    expect(parseHttpHead(b('HTTP/1.1 200 \r\n\r\n'))).toMatchObject({ status: 200, statusText: '' });
    expect(parseHttpHead(b('HTTP/1.0 302\r\n\r\n'))).toMatchObject({ status: 302, statusText: '' });
    const crcr = parseHttpHead(b('HTTP/1.0 302 \r\r\nLocation: /bads\r\r\n\r\r\nx'))!;
    expect(crcr).toMatchObject({ status: 302, headers: [['Location', '/bads']], headLength: 37 });
    expect(parseHttpHead(b('HTTP/1.1 200 OK\nA: 1\n\n'))!.headers).toEqual([['A', '1']]);
    expect(parseHttpHead(b('HTTP/1.1 200 OK\r\nX-Long: one\r\n  two\r\n\r\n'))!.headers).toEqual([['X-Long', 'one two']]);
  });

  it('parses a request head', () => {
    const h = parseHttpHead(b('POST /post?x=1 HTTP/1.1\r\nContent-Type: application/json\r\n\r\n{}'))!;
    expect(h).toMatchObject({ kind: 'request', method: 'POST', requestTarget: '/post?x=1', httpVersion: '1.1' });
    expect(fieldValue(h.headers, 'content-type')).toBe('application/json');
  });

  it('needs the empty line unless told the bytes are the whole block', () => {
    const cut = b('HTTP/1.0 302 \r\nLocation: /a\r\nServer: Big');
    expect(parseHttpHead(cut)).toBeNull();
    expect(parseHttpHead(cut, { blockEnd: true })).toMatchObject({ status: 302, terminated: false, headLength: cut.length, headers: [['Location', '/a'], ['Server', 'Big']] });
  });

  it('returns null for what is not HTTP', () => {
    for (const s of ['', 'hello', '20080430204825\nwww.archive.org.\t589\tIN\tA\t1.2.3.4\n', '\u0000\u0001binary\r\n\r\n', 'HTTP/1.1 OK\r\n\r\n']) {
      expect(parseHttpHead(b(s), { blockEnd: true })).toBeNull();
    }
  });

  it('knows chunked transfer coding when it sees it', () => {
    expect(isChunked(parseHttpHead(b('HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n'))!)).toBe(true);
    expect(isChunked(parseHttpHead(b('HTTP/1.1 200 OK\r\nTransfer-Encoding: identity\r\n\r\n'))!)).toBe(false);
  });
});

describe('WARC header lines', () => {
  it('reads version lines in any case, including the drafts', () => {
    expect(parseVersionLine('WARC/1.1\r\n')).toBe('WARC/1.1');
    expect(parseVersionLine('warc/1.0\n')).toBe('WARC/1.0');
    expect(parseVersionLine('WARC/0.17\r\n')).toBe('WARC/0.17');
    expect(parseVersionLine('WARC/x\r\n')).toBeNull();
    expect(parseVersionLine('HTTP/1.1 200 OK\r\n')).toBeNull();
  });

  it('unfolds continuation lines, keeps order and repeats, reports bad lines and line ends', () => {
    const p = parseFieldLines('WARC-Type:\r\n response\r\nA: 1\r\nno colon here\r\nA: 2\r\n\r\n');
    expect(p.headers).toEqual([['WARC-Type', 'response'], ['A', '1'], ['A', '2']]);
    expect(p.badLines).toEqual(['no colon here']);
    expect(p.lineEnding).toBe('crlf');
    expect(parseFieldLines('A: 1\n\n').lineEnding).toBe('lf');
    expect(parseFieldLines('A: 1\r\r\n\r\r\n').lineEnding).toBe('crcrlf');
    expect(parseFieldLines('A: 1\r\nB: 2\n\r\n').lineEnding).toBe('mixed');
  });
});

describe('ARC header lines', () => {
  it('parses v1 lines, long dates, bad lengths and URLs with spaces', () => {
    expect(parseArcHeaderLine('http://example.com/ 93.184.216.119 20140216050221 text/html 1591')).toEqual({
      url: 'http://example.com/', ip: '93.184.216.119', date: '20140216050221', mime: 'text/html', length: 1591, rawLength: '1591',
    });
    expect(parseArcHeaderLine('http://example.com/ 1.2.3.4 201404010000000000 text/html -1')).toMatchObject({ length: null, rawLength: '-1' });
    expect(parseArcHeaderLine('http://example.com/a b 1.2.3.4 20140401000000 text/html 5')).toMatchObject({ url: 'http://example.com/a%20b', length: 5 });
    expect(parseArcHeaderLine('1 0 LiveWeb Capture')).toBeNull();
    expect(parseArcHeaderLine('URL IP-address Archive-date Content-type Archive-length')).toBeNull();
    expect(arcDateToIso('201404010000000000')).toBe('2014-04-01T00:00:00Z');
    expect(arcDateToIso('200804302048')).toBe('2008-04-30T20:48:00Z');
  });
});
