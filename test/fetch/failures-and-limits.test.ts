/**
 * Failures before or around the response (DNS, refused, TLS, connect timeout, bad input, caller
 * abort, close) come back as results with stable codes, never as rejections or hangs; and a
 * large body stays on disk, not in memory.
 */
import fs from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Outcome } from '../../core/api/outcome-codes.ts';
import { isTroveError } from '../../core/errors.ts';
import { createFetcher } from '../../core/fetch/fetcher.ts';
import type { Fetcher } from '../../core/fetch/fetcher.ts';
import { startHostileServer } from '../fixtures/hostile-server.ts';
import type { HostileServer } from '../fixtures/hostile-server.ts';
import { sha1Base32 } from '../../core/formats/digest.ts';
import { UA, bytes, checkDigests, dispose, tempSpoolDir, testFetcher } from './fetch-test-kit.ts';

const spoolDir = tempSpoolDir();
let fetcher: Fetcher;
let hostile: HostileServer;

beforeAll(async () => {
  fetcher = testFetcher(spoolDir);
  hostile = await startHostileServer();
});
afterAll(async () => {
  await fetcher.close();
  await hostile.close();
  fs.rmSync(spoolDir, { recursive: true, force: true });
});

/** A TCP server that accepts and then does `onConnection`; closes its sockets on close. */
async function tcpServer(onConnection: (s: net.Socket) => void): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
    onConnection(s);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('failures before a response', () => {
  it('DNS failure is -1', async () => {
    const r = await fetcher.fetch({ url: 'http://no-such-host.invalid/', headers: UA });
    expect(r).toMatchObject({ outcome: Outcome.DOMAIN_UNRESOLVABLE, responseHead: null, body: null, remoteAddress: null });
    expect(r.error?.code).toBe('FETCH_DNS_FAILED');
  });

  it('connection refused is -2', async () => {
    const server = await tcpServer(() => {});
    const port = server.port;
    await server.close();
    const r = await fetcher.fetch({ url: `http://127.0.0.1:${port}/`, headers: UA });
    expect(r.outcome).toBe(Outcome.CONNECT_FAILED);
    expect(r.error?.code).toBe('FETCH_CONNECT_FAILED');
    expect(r.requestHead.length).toBe(0);
  });

  it('a TLS handshake that never finishes is a connect timeout, -4', async () => {
    const server = await tcpServer(() => {}); // accepts TCP, never answers the ClientHello
    const f = testFetcher(spoolDir, { connectTimeoutMs: 300 });
    try {
      const r = await f.fetch({ url: `https://127.0.0.1:${server.port}/`, headers: UA });
      expect(r.outcome).toBe(Outcome.TIMEOUT);
      expect(r.error?.code).toBe('FETCH_TIMEOUT_CONNECT');
    } finally {
      await f.close();
      await server.close();
    }
  });

  it('a server that is not TLS on an https URL is a TLS failure, -2', async () => {
    const server = await tcpServer((s) => s.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n'));
    try {
      const r = await fetcher.fetch({ url: `https://127.0.0.1:${server.port}/`, headers: UA });
      expect(r.outcome).toBe(Outcome.CONNECT_FAILED);
      expect(['FETCH_TLS_FAILED', 'FETCH_CONNECT_FAILED']).toContain(r.error?.code);
    } finally {
      await server.close();
    }
  });

  it('bad URLs and schemes are -7, bad header values -5, without throwing', async () => {
    expect((await fetcher.fetch({ url: 'not a url', headers: UA })).error?.code).toBe('FETCH_BAD_URL');
    const ftp = await fetcher.fetch({ url: 'ftp://example.org/file', headers: UA });
    expect(ftp).toMatchObject({ outcome: Outcome.UNFETCHABLE_URI });
    const bad = await fetcher.fetch({ url: `${hostile.origin}/ok`, headers: [['X-Evil', 'a\r\nInjected: yes']] });
    expect(bad.outcome).toBe(Outcome.RUNTIME_EXCEPTION);
    expect(bad.error?.code).toBe('FETCH_INVALID_REQUEST');
  });

  it('rejects unusable options with FETCH_BAD_OPTIONS', () => {
    let caught: unknown;
    try {
      createFetcher({ connectTimeoutMs: 0, headersTimeoutMs: 1, idleTimeoutMs: 1, fetchTimeoutMs: 1, maxBodyBytes: 1, maxHeaderBytes: 1, spoolDir });
    } catch (err) {
      caught = err;
    }
    expect(isTroveError(caught, 'FETCH_BAD_OPTIONS')).toBe(true);
  });
});

/**
 * Resolves once the server has seen one more request and the client has read what the server
 * sent at once: a few event-loop turns, each polling the sockets first. Order, not time.
 */
function answeredAfter(seen: number): Promise<void> {
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  return (async () => {
    while (hostile.requests.length === seen) await turn();
    for (let i = 0; i < 3; i++) await turn();
  })();
}

describe('stopping', () => {
  it('the caller can abort a fetch in flight; received bytes are kept', async () => {
    const ac = new AbortController();
    const f = testFetcher(spoolDir, { idleTimeoutMs: 10_000 });
    try {
      const seen = hostile.requests.length;
      const pending = f.fetch({ url: `${hostile.origin}/slow-drip`, headers: UA, signal: ac.signal });
      await answeredAfter(seen);
      ac.abort();
      const r = await pending;
      expect(r.error?.code).toBe('FETCH_ABORTED');
      expect(r).toMatchObject({ status: 200, truncated: 'disconnect' });
      expect(r.body?.size).toBe(1);
      const pre = await f.fetch({ url: `${hostile.origin}/ok`, headers: UA, signal: AbortSignal.abort() });
      expect(pre.error?.code).toBe('FETCH_ABORTED');
      await dispose(r);
    } finally {
      await f.close();
    }
  });

  it('close() ends fetches in flight and refuses new ones', async () => {
    const f = testFetcher(spoolDir, { headersTimeoutMs: 10_000 });
    const seen = hostile.requests.length;
    const pending = f.fetch({ url: `${hostile.origin}/slow-headers`, headers: UA });
    await answeredAfter(seen);
    await f.close();
    const r = await pending;
    expect(r.error?.code).toBe('FETCH_ABORTED'); // not the 10 s header timeout
    expect((await f.fetch({ url: `${hostile.origin}/ok`, headers: UA })).error?.code).toBe('FETCH_ABORTED');
  });
});

describe('limits', () => {
  it('a body exactly at maxBodyBytes is not truncated', async () => {
    const f = testFetcher(spoolDir, { maxBodyBytes: 1024 * 1024 });
    try {
      const r = await f.fetch({ url: `${hostile.origin}/huge?mb=1`, headers: UA });
      expect(r).toMatchObject({ outcome: 200, truncated: null });
      expect(r.body?.size).toBe(1024 * 1024);
      await dispose(r);
    } finally {
      await f.close();
    }
  });

  // No wall-clock window: on a loaded machine 50 MB with a GC every 25 ms can take minutes.
  it('/endless with maxBodyBytes 50 MB: spooled to disk, live memory stays bounded', { timeout: 600_000 }, async () => {
    // Live memory, not garbage: a forced GC before each sample shows what is actually held.
    v8.setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const max = 50 * 1024 * 1024;
    const f = testFetcher(spoolDir, { maxBodyBytes: max, fetchTimeoutMs: 600_000, idleTimeoutMs: 60_000 });
    gc();
    const before = process.memoryUsage();
    let peakLive = 0;
    let samples = 0;
    const sampler = setInterval(() => {
      gc();
      const m = process.memoryUsage();
      peakLive = Math.max(peakLive, m.arrayBuffers + m.heapUsed - before.arrayBuffers - before.heapUsed);
      samples++;
    }, 25);
    try {
      const r = await f.fetch({ url: `${hostile.origin}/endless`, headers: UA });
      clearInterval(sampler);
      expect(r).toMatchObject({ outcome: 200, truncated: 'length', error: null });
      expect(r.body?.size).toBe(max);
      const file = r.body?.path as string;
      expect(fs.statSync(file).size).toBe(max);
      expect(samples).toBeGreaterThan(0);
      // 50 MB went through; a few MB at most were held at any sampled moment.
      expect(peakLive).toBeLessThan(16 * 1024 * 1024);
      // And the result holds the body on disk, not in memory: far less than its 50 MB stays live
      // (the bound leaves room for the socket buffers of the hostile server in this same process).
      gc();
      const after = process.memoryUsage();
      expect(after.arrayBuffers + after.heapUsed - before.arrayBuffers - before.heapUsed).toBeLessThan(16 * 1024 * 1024);
      await checkDigests(r);
      await dispose(r);
      expect(fs.existsSync(file)).toBe(false);
    } finally {
      clearInterval(sampler);
      await f.close();
    }
  });
});

/**
 * Chunked bodies that break or are cut off, from a raw server. Broken framing: the payload digest
 * is over the body as received (the transfer coding cannot be removed), also when the body went
 * to a spool file. Cut inside valid framing by the server closing: a lost connection (-3), the
 * payload digest over what the prefix de-chunks to.
 */
describe('chunked bodies broken or cut off', () => {
  const chunkedHead = 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n';
  const serve = (body: string | Buffer) => tcpServer((s) => s.once('data', () => s.end(Buffer.concat([Buffer.from(chunkedHead, 'latin1'), Buffer.from(body)]))));

  for (const [name, body] of [
    ['no chunk at all', 'ZZZ\r\nnot a chunk\r\n'],
    ['a good chunk, then bytes that are not a chunk', '5\r\nhello\r\nZZZ\r\nnot a chunk\r\n'],
  ] as const) {
    it(`${name}: -50, payload digest over the body as received`, async () => {
      const server = await serve(body);
      try {
        const r = await fetcher.fetch({ url: `http://127.0.0.1:${server.port}/`, headers: UA });
        expect(r).toMatchObject({ outcome: Outcome.HTTP_PROTOCOL_ERROR, status: 200, truncated: 'disconnect' });
        expect(r.error?.code).toBe('FETCH_BAD_CHUNKING');
        const stored = await bytes(r, 'body');
        expect(stored.toString('latin1')).toBe(body);
        expect(r.payloadDigest).toBe(sha1Base32(stored));
        await checkDigests(r);
        await dispose(r);
      } finally {
        await server.close();
      }
    });
  }

  it('broken framing after a body spooled to a file: the digest is read back from the file', async () => {
    const chunk = 'x'.repeat(4000);
    const good = `${chunk.length.toString(16)}\r\n${chunk}\r\n`.repeat(40);
    const server = await serve(`${good}ZZZ\r\nnot a chunk\r\n`);
    const f = testFetcher(spoolDir, { spoolMemoryBytes: 1024 });
    try {
      const r = await f.fetch({ url: `http://127.0.0.1:${server.port}/`, headers: UA });
      expect(r.error?.code).toBe('FETCH_BAD_CHUNKING');
      expect(r.body?.path).not.toBeNull();
      const stored = await bytes(r, 'body');
      expect(stored.subarray(0, good.length).toString('latin1')).toBe(good);
      expect(r.payloadDigest).toBe(sha1Base32(stored));
      await checkDigests(r);
      await dispose(r);
    } finally {
      await f.close();
      await server.close();
    }
  });

  it('cut mid-chunk by the server closing: -3, payload digest over what the prefix de-chunks to', async () => {
    const server = await serve('5\r\nhello\r\na\r\nworl');
    try {
      const r = await fetcher.fetch({ url: `http://127.0.0.1:${server.port}/`, headers: UA });
      expect(r).toMatchObject({ outcome: Outcome.CONNECT_LOST, status: 200, truncated: 'disconnect' });
      expect(r.error?.code).toBe('FETCH_CONNECTION_LOST');
      expect((await bytes(r, 'body')).toString('latin1')).toBe('5\r\nhello\r\na\r\nworl');
      expect((await bytes(r, 'entity')).toString('latin1')).toBe('helloworl');
      expect(r.payloadDigest).toBe(sha1Base32(Buffer.from('helloworl')));
      await checkDigests(r);
      await dispose(r);
    } finally {
      await server.close();
    }
  });
});
