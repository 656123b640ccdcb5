/**
 * Every path of the hostile fixture server gives the right outcome, error code and truncation,
 * within bounded time (timeouts here are 500 ms; undici's timers fire within ~0.5 s of that).
 */
import fs from 'node:fs';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Outcome } from '../../core/crawl/outcome-codes.ts';
import type { FetchResult, Fetcher } from '../../core/fetch/fetcher.ts';
import { BINARY_SIZE, CHUNKS, COMPRESSIBLE_HTML, OK_HTML, RESET_SENT, binaryBytes, startHostileServer } from '../fixtures/hostile-server.ts';
import type { HostileServer } from '../fixtures/hostile-server.ts';
import { UA, bytes, checkDigests, dispose, header, tempSpoolDir, testFetcher } from './fetch-test-kit.ts';

const spoolDir = tempSpoolDir();
let fetcher: Fetcher;
let hostile: HostileServer;
const results: FetchResult[] = [];

beforeAll(async () => {
  fetcher = testFetcher(spoolDir);
  hostile = await startHostileServer();
});
afterAll(async () => {
  for (const r of results) await dispose(r);
  await fetcher.close();
  await hostile.close();
  fs.rmSync(spoolDir, { recursive: true, force: true });
});

async function get(path: string, f: Fetcher = fetcher): Promise<FetchResult> {
  const r = await f.fetch({ url: hostile.origin + path, headers: UA });
  results.push(r);
  return r;
}

describe('well-formed responses', () => {
  it('/ok', async () => {
    const r = await get('/ok');
    expect(r).toMatchObject({ outcome: 200, error: null, truncated: null, httpVersion: '1.1', statusText: 'OK' });
    expect((await bytes(r, 'entity')).toString()).toBe(OK_HTML);
    await checkDigests(r);
  });

  it('/gzip and /br keep the content-coding; decoding gives the page', async () => {
    const gz = await get('/gzip');
    expect(zlib.gunzipSync(await bytes(gz, 'entity')).toString()).toBe(COMPRESSIBLE_HTML);
    const br = await get('/br');
    expect(header(br, 'content-encoding')).toBe('br');
    expect(zlib.brotliDecompressSync(await bytes(br, 'entity')).toString()).toBe(COMPRESSIBLE_HTML);
    await checkDigests(br);
  });

  it('/chunked', async () => {
    const r = await get('/chunked');
    expect(r.outcome).toBe(200);
    expect((await bytes(r, 'entity')).toString()).toBe(CHUNKS.join(''));
    expect((await bytes(r, 'body')).toString()).toBe(CHUNKS.map((c) => `${Buffer.byteLength(c).toString(16)}\r\n${c}\r\n`).join('') + '0\r\n\r\n');
    await checkDigests(r);
  });

  it('/dup-headers keeps duplicates, order and case', async () => {
    const r = await get('/dup-headers');
    expect(r.headers.filter(([k]) => k.toLowerCase() === 'set-cookie')).toEqual([
      ['Set-Cookie', 'a=1; Path=/'],
      ['set-cookie', 'b=2'],
      ['Set-Cookie', 'c=3; HttpOnly'],
    ]);
    expect(r.headers.filter(([k]) => k.toLowerCase() === 'x-mixed-case')).toEqual([
      ['X-MiXeD-CaSe', 'first'],
      ['x-mixed-case', 'second'],
    ]);
  });

  it('/http10: version from the wire, body delimited by the close', async () => {
    const r = await get('/http10');
    expect(r).toMatchObject({ outcome: 200, httpVersion: '1.0', truncated: null, error: null });
    expect((await bytes(r, 'body')).toString()).toContain('body ends when the connection closes');
    await checkDigests(r);
  });

  it('/binary-as-html: bytes untouched', async () => {
    const r = await get('/binary-as-html');
    expect(header(r, 'content-type')).toBe('text/html');
    expect((await bytes(r, 'body')).equals(binaryBytes(BINARY_SIZE))).toBe(true);
  });

  it('/huge?mb=3 spools to disk', async () => {
    const r = await get('/huge?mb=3');
    expect(r).toMatchObject({ outcome: 200, truncated: null });
    expect(r.body?.size).toBe(3 * 1024 * 1024);
    expect(r.body?.path).not.toBeNull();
    expect(fs.statSync(r.body?.path as string).size).toBe(3 * 1024 * 1024);
    await checkDigests(r);
  });

  it('/bomb?mb=100 is stored compressed, never inflated', async () => {
    const r = await get('/bomb?mb=100');
    expect(r.outcome).toBe(200);
    expect(r.body?.size).toBeLessThan(1024 * 1024);
    const body = await bytes(r, 'body');
    expect(body.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
  });

  it('/deep-html, /many-links and /long-url arrive whole', async () => {
    const deep = await get('/deep-html?n=100000');
    expect(deep.outcome).toBe(200);
    const html = (await bytes(deep, 'entity')).toString();
    expect(html.startsWith('<!doctype html><html><body><div><div>')).toBe(true);
    expect(html.endsWith('</div></div></body></html>\n')).toBe(true);
    expect(html.length).toBe('<!doctype html><html><body>'.length + 100_000 * 11 + '</body></html>\n'.length);

    const links = await get('/many-links?n=300000');
    expect(links.outcome).toBe(200);
    const text = (await bytes(links, 'entity')).toString();
    expect(text.match(/<a href=/g)?.length).toBe(300_000);
    await checkDigests(links);

    const long = await get('/long-url');
    expect((await bytes(long, 'entity')).toString()).toMatch(new RegExp(`href="/long/a{${200 * 1024}}"`));
  });

  it('an unknown path is a plain 404', async () => {
    expect((await get('/nope')).outcome).toBe(404);
  });
});

describe('hostile responses', () => {
  it('/slow-headers: headers timeout, nothing kept', async () => {
    const r = await get('/slow-headers');
    expect(r).toMatchObject({ outcome: Outcome.TIMEOUT, responseHead: null, body: null, truncated: null });
    expect(r.error?.code).toBe('FETCH_TIMEOUT_HEADERS');
    expect(r.durationMs).toBeLessThan(2500);
    expect(r.requestHead.toString()).toMatch(/^GET \/slow-headers HTTP\/1\.1\r\n/);
  });

  it('/slow-drip: idle timeout keeps the bytes that came, marked time', async () => {
    const r = await get('/slow-drip');
    expect(r).toMatchObject({ outcome: Outcome.TIMEOUT, status: 200, truncated: 'time' });
    expect(r.error?.code).toBe('FETCH_TIMEOUT_IDLE');
    expect((await bytes(r, 'body')).toString()).toMatch(/^<\.*$/);
    expect(r.durationMs).toBeLessThan(2500);
    await checkDigests(r);
  });

  it('/slow-drip: whole-fetch timeout when the drip never goes idle long enough', async () => {
    const f = testFetcher(spoolDir, { idleTimeoutMs: 5000, fetchTimeoutMs: 1300 });
    try {
      const r = await get('/slow-drip', f);
      expect(r).toMatchObject({ outcome: Outcome.TIMEOUT, status: 200, truncated: 'time' });
      expect(r.error?.code).toBe('FETCH_TIMEOUT_TOTAL');
      expect((await bytes(r, 'body')).toString()).toMatch(/^<\.+$/); // at least one drip arrived
      expect(r.durationMs).toBeGreaterThanOrEqual(1250);
      expect(r.durationMs).toBeLessThan(2000);
    } finally {
      await f.close();
    }
  });

  it('/endless: cut at maxBodyBytes with the HTTP status kept', async () => {
    const f = testFetcher(spoolDir, { maxBodyBytes: 1_000_000 });
    try {
      const r = await get('/endless', f);
      expect(r).toMatchObject({ outcome: 200, status: 200, truncated: 'length', error: null });
      expect(r.body?.size).toBe(1_000_000);
      await checkDigests(r);
    } finally {
      await f.close();
    }
  });

  it('/bad-chunking: protocol error, head and received prefix kept', async () => {
    const r = await get('/bad-chunking');
    expect(r).toMatchObject({ outcome: Outcome.HTTP_PROTOCOL_ERROR, status: 200, truncated: 'disconnect' });
    expect(r.error?.code).toBe('FETCH_BAD_CHUNKING');
    expect(r.responseHead?.toString()).toContain('Transfer-Encoding: chunked');
    expect((await bytes(r, 'entity')).toString()).toBe('hello');
    expect((await bytes(r, 'body')).toString()).toMatch(/^5\r\nhello\r\nzz/);
    await checkDigests(r);
  });

  it('/no-status-line: protocol error, the garbage is handed back as a prefix', async () => {
    const r = await get('/no-status-line');
    expect(r).toMatchObject({ outcome: Outcome.HTTP_PROTOCOL_ERROR, responseHead: null, entity: null, status: null });
    expect(r.error?.code).toBe('FETCH_BAD_STATUS_LINE');
    const prefix = await bytes(r, 'body');
    expect(prefix.subarray(0, 4)).toEqual(Buffer.from([0, 1, 2, 0xff]));
  });

  it('/many-headers: too many fields, or too many bytes, is a protocol error without a body', async () => {
    const r = await get('/many-headers?n=20000');
    expect(r).toMatchObject({ outcome: Outcome.HTTP_PROTOCOL_ERROR, responseHead: null, body: null });
    expect(r.error?.code).toBe('FETCH_TOO_MANY_HEADERS');

    const f = testFetcher(spoolDir, { maxHeaderCount: 100_000, maxHeaderBytes: 16 * 1024 });
    try {
      const big = await get('/many-headers?n=20000', f);
      expect(big).toMatchObject({ outcome: Outcome.HTTP_PROTOCOL_ERROR, body: null });
      expect(big.error?.code).toBe('FETCH_HEADERS_TOO_LARGE');
      const fine = await get('/many-headers?n=50', f);
      expect(fine.outcome).toBe(200);
      expect(fine.headers.filter(([k]) => k.startsWith('X-Header-')).length).toBe(50);
    } finally {
      await f.close();
    }
  });

  it('/reset-mid-body: connection lost, the received prefix kept, marked disconnect', async () => {
    const r = await get('/reset-mid-body');
    expect(r).toMatchObject({ outcome: Outcome.CONNECT_LOST, status: 200, truncated: 'disconnect' });
    expect(r.error?.code).toBe('FETCH_CONNECTION_LOST');
    const body = await bytes(r, 'body');
    expect(body.length).toBeGreaterThan(0);
    expect(body.length).toBeLessThanOrEqual(RESET_SENT);
    expect(body.equals(Buffer.alloc(body.length, 'r'))).toBe(true);
    await checkDigests(r);
  });
});
