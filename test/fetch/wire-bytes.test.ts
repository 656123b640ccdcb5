/**
 * The fetcher records the exact bytes on the wire: compared here against what local servers
 * actually wrote and received, over http and https, chunked and not, on reused connections.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fetcher } from '../../core/fetch/fetcher.ts';
import { startHttpServer, startRawServer } from '../helpers/local-server.ts';
import { startHostileServer } from '../fixtures/hostile-server.ts';
import type { HostileServer } from '../fixtures/hostile-server.ts';
import { makeSelfSignedCert } from './self-signed-cert.ts';
import { UA, bytes, checkDigests, dispose, header, tempSpoolDir, testFetcher } from './fetch-test-kit.ts';

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

const ODD_HEAD =
  'HTTP/1.1 200 Very  OK indeed\r\n' +
  'content-type: text/html\r\n' +
  'Set-Cookie: a=1\r\n' +
  'X-Spaced:    padded value   \r\n' +
  'SET-COOKIE: b=2\r\n' +
  'Content-Length: 12\r\n' +
  '\r\n';

describe('exact bytes', () => {
  it('records the status line, header lines and body exactly as the server wrote them', async () => {
    let received = '';
    const server = await startRawServer((socket, head) => {
      received = head;
      socket.write(ODD_HEAD + '<p>body</p>\n');
    });
    try {
      const r = await fetcher.fetch({ url: `${server.origin}/page?q=1`, headers: [...UA, ['From', 'archivist@example.org']] });
      expect(r.outcome).toBe(200);
      expect(r.error).toBeNull();
      expect(r.responseHead?.toString('latin1')).toBe(ODD_HEAD);
      expect((await bytes(r, 'body')).toString()).toBe('<p>body</p>\n');
      expect(r.entity).toBe(r.body);
      expect(r.httpVersion).toBe('1.1');
      expect(r.statusText).toBe('Very  OK indeed');
      expect(r.headers).toEqual([
        ['content-type', 'text/html'],
        ['Set-Cookie', 'a=1'],
        ['X-Spaced', 'padded value'],
        ['SET-COOKIE', 'b=2'],
        ['Content-Length', '12'],
      ]);
      // The request record: exactly the bytes the server read, with our headers in our order.
      expect(r.requestHead.toString('latin1')).toBe(received);
      expect(received).toMatch(/^GET \/page\?q=1 HTTP\/1\.1\r\n/);
      expect(received).toContain('User-Agent: trove-test/0.1');
      expect(received).toContain('From: archivist@example.org\r\n');
      expect(received).toContain('Accept-Encoding: gzip, br\r\n');
      expect(r.remoteAddress).toBe('127.0.0.1');
      expect(r.bytesReceived).toBe(ODD_HEAD.length + 12);
      await checkDigests(r);
      await dispose(r);
    } finally {
      await server.close();
    }
  });

  it('keeps the chunk framing in the body and removes it from the entity', async () => {
    const head = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n';
    const pieces = ['4;name=value\r\nWiki\r\n', '5\r\npedia\r', '\n', 'E\r\n in\r\n\r\nchunks.\r\n', '0\r\nX-Trailer: done\r\n\r\n'];
    const server = await startRawServer((socket) => {
      socket.write(head);
      pieces.forEach((p, i) => setTimeout(() => socket.write(p), 5 * (i + 1)));
    });
    try {
      const r = await fetcher.fetch({ url: `${server.origin}/chunked`, headers: UA });
      expect(r.outcome).toBe(200);
      expect(r.responseHead?.toString('latin1')).toBe(head);
      expect((await bytes(r, 'body')).toString('latin1')).toBe(pieces.join(''));
      expect((await bytes(r, 'entity')).toString()).toBe('Wikipedia in\r\n\r\nchunks.');
      expect(r.entity).not.toBe(r.body);
      await checkDigests(r);
      await dispose(r);
    } finally {
      await server.close();
    }
  });

  it('does not decompress: a gzip body stays gzip, digests are of the compressed bytes', async () => {
    const r = await fetcher.fetch({ url: `${hostile.origin}/gzip`, headers: UA });
    expect(r.outcome).toBe(200);
    expect(header(r, 'Content-Encoding')).toBe('gzip');
    const body = await bytes(r, 'body');
    expect(body.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(body.length).toBe(Number(header(r, 'Content-Length')));
    await checkDigests(r);
    await dispose(r);
  });
});

describe('https', () => {
  it('accepts a self-signed certificate and records the decrypted bytes exactly', async () => {
    const { key, cert } = makeSelfSignedCert();
    const response = 'HTTP/1.1 203 Non-Authoritative Information\r\nX-Tls: yes\r\nContent-Length: 7\r\n\r\nsecret!';
    let received = '';
    const server = tls.createServer({ key, cert }, (socket) => {
      socket.on('error', () => {});
      let buf = '';
      socket.on('data', (d: Buffer) => {
        buf += d.toString('latin1');
        if (buf.includes('\r\n\r\n')) {
          received = buf;
          socket.write(response);
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const f = testFetcher(spoolDir);
    try {
      const r = await f.fetch({ url: `https://localhost:${port}/secure`, headers: UA });
      expect(r.error).toBeNull();
      expect(r.outcome).toBe(203);
      expect(Buffer.concat([r.responseHead as Buffer, await bytes(r, 'body')]).toString('latin1')).toBe(response);
      expect(r.requestHead.toString('latin1')).toBe(received);
      expect(received).toContain(`host: localhost:${port}\r\n`);
      await checkDigests(r);
      await dispose(r);
    } finally {
      await f.close(); // first: server.close() waits for the kept-alive connection
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('connection reuse', () => {
  it('sends two requests on one keep-alive connection without mixing their bytes', async () => {
    // One connection per origin: undici's pool may open a second one for a request dispatched
    // in the same tick the first completes, so the limit makes reuse certain here.
    const f = testFetcher(spoolDir, { maxConnections: 1 });
    const before = hostile.requests.length;
    const a = await f.fetch({ url: `${hostile.origin}/ok`, headers: UA });
    const b = await f.fetch({ url: `${hostile.origin}/chunked`, headers: UA });
    await f.close();
    expect(a.outcome).toBe(200);
    expect(b.outcome).toBe(200);
    expect(header(a, 'X-Connection')).toBe(header(b, 'X-Connection'));
    expect(Number(header(b, 'X-Request'))).toBe(Number(header(a, 'X-Request')) + 1);
    expect(a.responseHead?.toString()).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n$/);
    expect(b.responseHead?.toString()).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Transfer-Encoding: chunked[\s\S]*\r\n\r\n$/);
    expect((await bytes(b, 'body')).toString()).toMatch(/^[0-9a-f]+\r\n<!doctype html>[\s\S]*\r\n0\r\n\r\n$/);
    const sent = hostile.requests.slice(before).map((q) => q.head.toString('latin1'));
    expect([a.requestHead.toString('latin1'), b.requestHead.toString('latin1')]).toEqual(sent);
    await checkDigests(a);
    await checkDigests(b);
    await dispose(a);
    await dispose(b);
  });

  it('keeps 40 concurrent fetches over 3 connections apart', async () => {
    const sockets = new Set<net.Socket>();
    const body = (p: string) => `${p}|`.repeat(50 + (p.length * 997) % 3000);
    const server = await startHttpServer((req, res) => {
      sockets.add(req.socket);
      const text = body(req.url ?? '');
      res.setHeader('Content-Type', 'text/plain');
      // Chunked, in uneven pieces written over a few ticks.
      let i = 0;
      const step = () => {
        if (i >= text.length) return void res.end();
        const n = 1 + ((i * 7919) % 4000);
        res.write(text.slice(i, i + n));
        i += n;
        setImmediate(step);
      };
      step();
    });
    const f = testFetcher(spoolDir, { maxConnections: 3 });
    try {
      const paths = Array.from({ length: 40 }, (_, i) => `/item/${i}/${'x'.repeat(i)}`);
      const results = await Promise.all(paths.map((p) => f.fetch({ url: server.origin + p, headers: UA })));
      for (const [i, r] of results.entries()) {
        expect(r.outcome).toBe(200);
        expect((await bytes(r, 'entity')).toString()).toBe(body(paths[i]));
        expect(r.requestHead.toString()).toContain(`GET ${paths[i]} HTTP/1.1\r\n`);
        await checkDigests(r);
        await dispose(r);
      }
      expect(sockets.size).toBeLessThanOrEqual(3);
    } finally {
      await f.close();
      await server.close();
    }
  });

  it('retries once on a fresh connection when a reused one turns out closed', async () => {
    // Answers the first request on each connection, then drops the connection as the second
    // arrives, without a byte: the keep-alive race every crawler meets.
    let connections = 0;
    const server = net.createServer((socket) => {
      connections++;
      socket.on('error', () => {});
      let n = 0;
      let buf = '';
      socket.on('data', (d: Buffer) => {
        buf += d.toString('latin1');
        while (buf.includes('\r\n\r\n')) {
          buf = buf.slice(buf.indexOf('\r\n\r\n') + 4);
          if (++n === 1) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
          else socket.destroy();
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const f = testFetcher(spoolDir, { maxConnections: 1 });
    try {
      const a = await f.fetch({ url: `${origin}/a`, headers: UA });
      const b = await f.fetch({ url: `${origin}/b`, headers: UA });
      expect(a.outcome).toBe(200);
      expect(b.outcome).toBe(200);
      expect(b.requestHead.toString()).toMatch(/^GET \/b HTTP\/1\.1\r\n/);
      expect(connections).toBe(2); // the dropped reuse, then the retry's fresh connection
      await dispose(a);
      await dispose(b);
    } finally {
      await f.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('resolves names through a custom lookup when given one', async () => {
    const asked: string[] = [];
    const f = testFetcher(spoolDir, {
      lookup: ((hostname: string, options: { all?: boolean }, cb: (...a: unknown[]) => void) => {
        asked.push(hostname);
        if (options.all) cb(null, [{ address: '127.0.0.1', family: 4 }]);
        else cb(null, '127.0.0.1', 4);
      }) as unknown as import('node:net').LookupFunction,
    });
    try {
      const r = await f.fetch({ url: `http://archive.test:${hostile.port}/ok`, headers: UA });
      expect(r.outcome).toBe(200);
      expect(asked).toContain('archive.test');
      expect(r.requestHead.toString()).toContain(`host: archive.test:${hostile.port}\r\n`);
      await dispose(r);
    } finally {
      await f.close();
    }
  });

  it('answers HEAD with the head and an empty body', async () => {
    const r = await fetcher.fetch({ url: `${hostile.origin}/huge?mb=1`, method: 'HEAD', headers: UA });
    expect(r.outcome).toBe(200);
    expect(header(r, 'Content-Length')).toBe(String(1024 * 1024));
    expect(r.body?.size).toBe(0);
    expect(r.requestHead.toString()).toMatch(/^HEAD \/huge\?mb=1 HTTP\/1\.1\r\n/);
    await checkDigests(r);
  });

  it('never follows redirects', async () => {
    const r = await fetcher.fetch({ url: `${hostile.origin}/redirect-chain/3`, headers: UA });
    expect(r.outcome).toBe(302);
    expect(header(r, 'Location')).toBe('/redirect-chain/2');
    const loop = await fetcher.fetch({ url: `${hostile.origin}/redirect-loop`, headers: UA });
    expect(loop.outcome).toBe(302);
    expect(header(loop, 'location')).toBe('/redirect-loop');
  });

  it('round-trips a node:http response byte for byte', async () => {
    let raw = Buffer.alloc(0);
    const server = http.createServer((_req, res) => res.end('fine'));
    server.on('connection', (s: net.Socket) => {
      const w = s.write.bind(s) as (...a: unknown[]) => boolean;
      s.write = ((...a: unknown[]) => {
        const c = a[0];
        raw = Buffer.concat([raw, typeof c === 'string' ? Buffer.from(c, 'latin1') : Buffer.from(c as Uint8Array)]);
        return w(...a);
      }) as typeof s.write;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const r = await fetcher.fetch({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, headers: UA });
      expect(Buffer.concat([r.responseHead as Buffer, await bytes(r, 'body')]).equals(raw)).toBe(true);
      await dispose(r);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
