/**
 * Every path of the hostile fixture server gives the right outcome, error code and truncation.
 * No wall-clock windows: the well-formed paths get generous timeouts (a busy machine may be slow
 * to answer), and the timeout paths make time pass on purpose: undici's header and idle timers
 * under vitest's fake timers (as undici's own tests do with fake timers), the fetcher's
 * whole-fetch deadline through its injectable `timers`. The 100 MB bomb is compressed before the
 * server listens.
 */
import fs from 'node:fs';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Outcome } from '../../core/api/outcome-codes.ts';
import type { FetchResult, FetchTimers, Fetcher } from '../../core/fetch/fetcher.ts';
import { BINARY_SIZE, CHUNKS, COMPRESSIBLE_HTML, OK_HTML, RESET_SENT, binaryBytes, startHostileServer } from '../fixtures/hostile-server.ts';
import type { HostileServer } from '../fixtures/hostile-server.ts';
import { sha1Base32 } from '../../core/formats/digest.ts';
import { UA, bytes, checkDigests, dispose, header, tempSpoolDir, testFetcher } from './fetch-test-kit.ts';

const spoolDir = tempSpoolDir();
let fetcher: Fetcher;
let hostile: HostileServer;
const results: FetchResult[] = [];

beforeAll(async () => {
  fetcher = testFetcher(spoolDir);
  hostile = await startHostileServer({ bombsMb: [100] });
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

/**
 * Starts a fetch of `path` and returns once the server has answered what it answers at once and
 * the client has read it: the server saw the request, then a few turns of the event loop (each
 * one polls the sockets before its setImmediate callbacks run). Event-loop order, not time.
 */
async function started(path: string, f: Fetcher): Promise<{ pending: Promise<FetchResult> }> {
  const seen = hostile.requests.length;
  const pending = get(path, f);
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  while (hostile.requests.length === seen) await turn();
  for (let i = 0; i < 3; i++) await turn();
  return { pending }; // wrapped: an async function would wait for a returned promise
}

/** Timers for the fetcher's whole-fetch deadline that go off only when `expire()` is called. */
function manualTimers(): FetchTimers & { armed: number[]; expire(): void } {
  const live = new Map<number, () => void>();
  let next = 0;
  const armed: number[] = [];
  return {
    armed,
    setTimeout(fn, ms) {
      armed.push(ms);
      live.set(++next, fn);
      return next;
    },
    clearTimeout(handle) {
      live.delete(handle as number);
    },
    expire() {
      const due = [...live.values()];
      live.clear();
      for (const fn of due) fn();
    },
  };
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
    const f = testFetcher(spoolDir, { headersTimeoutMs: 500 });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const { pending } = await started('/slow-headers', f);
      await vi.advanceTimersByTimeAsync(500);
      const r = await pending;
      expect(r).toMatchObject({ outcome: Outcome.TIMEOUT, responseHead: null, body: null, truncated: null });
      expect(r.error?.code).toBe('FETCH_TIMEOUT_HEADERS');
      expect(r.requestHead.toString()).toMatch(/^GET \/slow-headers HTTP\/1\.1\r\n/);
    } finally {
      vi.useRealTimers();
      await f.close();
    }
  });

  it('/slow-drip: idle timeout keeps the bytes that came, marked time', async () => {
    const f = testFetcher(spoolDir, { idleTimeoutMs: 500 });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const { pending } = await started('/slow-drip', f);
      await vi.advanceTimersByTimeAsync(500);
      const r = await pending;
      expect(r).toMatchObject({ outcome: Outcome.TIMEOUT, status: 200, truncated: 'time' });
      expect(r.error?.code).toBe('FETCH_TIMEOUT_IDLE');
      expect((await bytes(r, 'body')).toString()).toMatch(/^<\.*$/);
      await checkDigests(r);
    } finally {
      vi.useRealTimers();
      await f.close();
    }
  });

  it('/slow-drip: whole-fetch timeout when the drip never goes idle long enough', async () => {
    const timers = manualTimers();
    const f = testFetcher(spoolDir, { idleTimeoutMs: 60_000, fetchTimeoutMs: 1300, timers });
    try {
      const { pending } = await started('/slow-drip', f);
      expect(timers.armed).toEqual([1300]);
      timers.expire(); // the 1.3 s deadline passes now, with the drip still going
      const r = await pending;
      expect(r).toMatchObject({ outcome: Outcome.TIMEOUT, status: 200, truncated: 'time' });
      expect(r.error?.code).toBe('FETCH_TIMEOUT_TOTAL');
      expect((await bytes(r, 'body')).toString()).toMatch(/^<\.*$/); // what came before the deadline
      await checkDigests(r);
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

  it('/bad-chunking: protocol error, head and received prefix kept, payload digest over the body as received', async () => {
    const r = await get('/bad-chunking');
    expect(r).toMatchObject({ outcome: Outcome.HTTP_PROTOCOL_ERROR, status: 200, truncated: 'disconnect' });
    expect(r.error?.code).toBe('FETCH_BAD_CHUNKING');
    expect(r.responseHead?.toString()).toContain('Transfer-Encoding: chunked');
    expect((await bytes(r, 'entity')).toString()).toBe('hello');
    const body = await bytes(r, 'body');
    expect(body.toString()).toMatch(/^5\r\nhello\r\nzz/);
    // The transfer coding cannot be removed from bytes that are not chunked coding.
    expect(r.payloadDigest).toBe(sha1Base32(body));
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
