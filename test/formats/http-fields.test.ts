/**
 * Which line a header lookup returns, pinned: the first for a singleton field (as warcio's
 * get_header and pywb read archives), every line joined for a list field (RFC 9110 §5.3).
 */
import { describe, expect, it } from 'vitest';
import { fieldValue, fieldValues, listFieldTokens, listFieldValue, redirectLocation } from '../../core/formats/http-fields.ts';
import { parseHttpHead } from '../../core/formats/http-head.ts';

const twice: [string, string][] = [
  ['Content-Type', 'text/html'],
  ['Content-Encoding', 'gzip'],
  ['content-type', 'text/plain'],
  ['CONTENT-ENCODING', 'br'],
];

describe('header fields', () => {
  it('returns the first line of a repeated singleton field, whatever the case of its name', () => {
    expect(fieldValue(twice, 'content-type')).toBe('text/html');
    expect(fieldValue(twice, 'CONTENT-TYPE')).toBe('text/html');
    expect(fieldValue(twice, 'location')).toBeNull();
    expect(fieldValue(undefined, 'range')).toBeNull();
  });

  it('joins the lines of a list field in order', () => {
    expect(fieldValues(twice, 'content-encoding')).toEqual(['gzip', 'br']);
    expect(listFieldValue(twice, 'Content-Encoding')).toBe('gzip, br');
    expect(listFieldValue(twice, 'vary')).toBeNull();
    expect(listFieldTokens([['Transfer-Encoding', 'GZIP, '], ['transfer-encoding', 'Chunked']], 'transfer-encoding')).toEqual(['gzip', 'chunked']);
  });

  it('reads an archived head the same way', () => {
    const head = parseHttpHead(Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Type: image/png\r\n\r\n', 'latin1'))!;
    expect(fieldValue(head.headers, 'content-type')).toBe('text/html');
  });
});

describe('redirectLocation (the crawl follows it, replay shows it)', () => {
  it('resolves a relative Location of a 3xx against the request URL, first line wins', () => {
    const h: [string, string][] = [['Location', '../b?x=1'], ['location', '/other']];
    expect(redirectLocation(301, h, 'http://example.org/a/c/d')).toEqual({ raw: '../b?x=1', absolute: 'http://example.org/a/b?x=1' });
  });
  it('has no target outside 3xx, and keeps the raw value URL parsing refuses', () => {
    expect(redirectLocation(200, [['Location', '/x']], 'http://example.org/')).toEqual({ raw: null, absolute: null });
    expect(redirectLocation(302, [['Location', 'http://[bad']], 'http://example.org/')).toEqual({ raw: 'http://[bad', absolute: null });
  });
});
