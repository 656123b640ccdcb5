/**
 * Hostile HTTP on a reused keep-alive connection. hostile-crawl.test.ts meets each broken
 * response as the first request on its connection; real servers break on a later one, after the
 * client has decided the connection is good. Here a raw `net` server keeps connections alive and
 * answers every "good" path well, so the crawler (one slot, one connection per host) sends each
 * hostile path as the 2nd or 3rd request on a connection that has already served good responses:
 * bad chunking, a header bomb, garbage instead of a status line, a reset mid-body, a tarpit that
 * drips header lines, and a good response followed by bytes it did not announce (a smuggled
 * second response).
 *
 * Asserted per URI: the outcome in crawl.log (as on a first request: see hostile-crawl.test.ts),
 * the WARC records read back with warcio (good ones byte-exact, broken heads not archived), that
 * each hostile path really came on a reused connection, and that nothing of a broken connection
 * leaks into the next fetch: the next URI is fetched on a fresh connection, and its record holds
 * its own bytes.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Outcome } from '../../core/api/outcome-codes.ts';
import { labelledDigest } from '../../core/formats/digest.ts';
import { runCrawl, type CrawlRun } from '../helpers/run-crawl.ts';
import { verifyCrawlDir } from '../helpers/verify-crawl-dir.ts';
import type { ReadRecord } from '../helpers/read-warcs.ts';

/** The index's links, in order: the crawler fetches them in this order on one connection. */
const LINKS = [
  '/good/1',
  '/bad/chunking',
  '/good/2',
  '/bad/header-bomb',
  '/good/3',
  '/bad/garbage',
  '/good/4',
  '/bad/reset',
  '/good/5',
  '/good/6',
  '/bad/tarpit',
  '/good/7',
  '/bad/trailing-bytes',
  '/good/8',
  '/good/9',
];
const HOSTILE = LINKS.filter((l) => l.startsWith('/bad/'));
const RESET_SENT = 3000;

function goodBody(path: string): Buffer {
  return Buffer.from(`<!doctype html><title>${path}</title><p>The page at ${path}, whole.</p>${'<p>padding</p>'.repeat(50)}\n`);
}

function response(status: string, headers: [string, string][], body?: Buffer): Buffer {
  const head = `HTTP/1.1 ${status}\r\n${headers.map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
  return body ? Buffer.concat([Buffer.from(head, 'latin1'), body]) : Buffer.from(head, 'latin1');
}

function keepAlive(type: string, body: Buffer): Buffer {
  return response('200 OK', [['Content-Type', type], ['Content-Length', String(body.length)], ['Connection', 'keep-alive']], body);
}

interface Arrival {
  connection: number;
  /** 1 for the first request on its connection. */
  n: number;
  path: string;
}

interface KeepAliveServer {
  origin: string;
  arrivals: Arrival[];
  close(): Promise<void>;
}

/** Serves requests on a connection one after another (keep-alive), each by its path. */
async function startKeepAliveServer(): Promise<KeepAliveServer> {
  const arrivals: Arrival[] = [];
  const sockets = new Set<net.Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let connections = 0;
  const server = net.createServer((socket) => {
    const connection = ++connections;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buf = Buffer.alloc(0);
    let n = 0;
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      let end: number;
      while ((end = buf.indexOf('\r\n\r\n')) >= 0) {
        const head = buf.subarray(0, end).toString('latin1');
        buf = buf.subarray(end + 4);
        const path = head.split('\r\n')[0]!.split(' ')[1] ?? '/';
        arrivals.push({ connection, n: ++n, path });
        serve(socket, path);
      }
    });
  });

  const serve = (socket: net.Socket, path: string): void => {
    if (path === '/robots.txt') socket.write(keepAlive('text/plain', Buffer.from('User-agent: *\nAllow: /\n')));
    else if (path === '/') socket.write(keepAlive('text/html', Buffer.from(`<!doctype html><title>index</title>${LINKS.map((l) => `<a href="${l}">${l}</a>`).join('\n')}`)));
    else if (path.startsWith('/good/')) socket.write(keepAlive('text/html', goodBody(path)));
    else if (path === '/bad/chunking') {
      socket.write(response('200 OK', [['Content-Type', 'text/html'], ['Transfer-Encoding', 'chunked']]));
      socket.end('5\r\nhello\r\nzz\r\nthis is not a chunk size\r\n0\r\n\r\n');
    } else if (path === '/bad/header-bomb') {
      const headers: [string, string][] = [['Content-Type', 'text/html']];
      for (let i = 0; i < 20_000; i++) headers.push([`X-Header-${i}`, `value ${i}`]);
      socket.end(response('200 OK', [...headers, ['Content-Length', '2']], Buffer.from('ok')));
    } else if (path === '/bad/garbage') {
      socket.end(Buffer.concat([Buffer.from([0, 1, 2, 0xff]), Buffer.from(' garbage, not HTTP at all\r\n\r\n<html></html>')]));
    } else if (path === '/bad/reset') {
      socket.write(response('200 OK', [['Content-Type', 'application/octet-stream'], ['Content-Length', '100000']], Buffer.alloc(RESET_SENT, 'r')), () => {
        const t = setTimeout(() => socket.resetAndDestroy(), 50);
        timers.add(t);
      });
    } else if (path === '/bad/tarpit') {
      // A status line, then a header line every 200 ms, for ever: the head never ends.
      socket.write('HTTP/1.1 200 OK\r\n');
      let i = 0;
      const t = setInterval(() => (socket.writable ? socket.write(`X-Tarpit-${i++}: wait\r\n`) : clearInterval(t)), 200);
      timers.add(t);
    } else if (path === '/bad/trailing-bytes') {
      // A whole response, then a second one nobody asked for: it must not become the next URI's.
      socket.write(Buffer.concat([keepAlive('text/html', goodBody(path)), keepAlive('text/html', Buffer.from('<p>smuggled, not requested</p>'))]));
    } else socket.write(response('404 Not Found', [['Content-Length', '0']]));
  };

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearInterval(t);
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

let server: KeepAliveServer;
let run: CrawlRun;
let records: ReadRecord[];

beforeAll(async () => {
  server = await startKeepAliveServer();
  run = await runCrawl({
    seeds: [`${server.origin}/`],
    // One slot and one connection: the links go out in order, reusing the connection.
    concurrency: 1,
    perHost: 1,
    headersTimeoutS: 1,
    idleTimeoutS: 2,
    fetchTimeoutS: 4,
  });
  records = await run.records();
}, 60_000);

afterAll(async () => {
  run?.cleanup();
  await server?.close();
});

const url = (p: string) => `${server.origin}${p}`;
const responses = (p: string) => records.filter((r) => r.type === 'response' && r.targetUri === url(p));
const arrival = (p: string) => {
  const a = server.arrivals.filter((x) => x.path === p);
  expect(a, p).toHaveLength(1); // fetched once: no retry on another connection
  return a[0]!;
};

describe('hostile responses on a reused keep-alive connection', () => {
  it('the crawl finishes and the directory verifies (index and WARCs agree, read with warcio)', async () => {
    expect(run.final.finishReason).toBe('frontier-empty');
    const check = await verifyCrawlDir(run.dir);
    expect(check.openFiles).toEqual([]);
    expect(check.indexOnly).toEqual([]);
    expect(check.warcOnly).toEqual([]);
  });

  it('every hostile path came as a later request on a connection that had served good ones', () => {
    for (const p of HOSTILE) {
      const a = arrival(p);
      expect(a.n, `${p} arrived as request ${a.n} on connection ${a.connection}`).toBeGreaterThanOrEqual(2);
      const before = server.arrivals.filter((x) => x.connection === a.connection && x.n < a.n);
      expect(before.every((x) => !x.path.startsWith('/bad/')), p).toBe(true);
    }
  });

  it('bad chunking: -50, the prefix archived marked disconnect, payload digest over it as stored', () => {
    expect(run.line(url('/bad/chunking'))).toMatchObject({ status: Outcome.HTTP_PROTOCOL_ERROR, annotations: ['truncated:disconnect', 'FETCH_BAD_CHUNKING'] });
    const [rec] = responses('/bad/chunking');
    expect(rec?.status).toBe(200);
    expect(rec?.warcHeaders['WARC-Truncated']).toBe('disconnect');
    expect(rec?.payload.toString('latin1')).toMatch(/^5\r\nhello\r\nzz/);
    expect(rec?.warcHeaders['WARC-Payload-Digest']).toBe(labelledDigest(rec!.payload));
  });

  it('header bomb and garbage: -50, nothing archived', () => {
    expect(run.line(url('/bad/header-bomb'))).toMatchObject({ status: Outcome.HTTP_PROTOCOL_ERROR, annotations: ['FETCH_TOO_MANY_HEADERS'] });
    expect(run.line(url('/bad/garbage'))).toMatchObject({ status: Outcome.HTTP_PROTOCOL_ERROR, annotations: ['FETCH_BAD_STATUS_LINE'] });
    expect(records.filter((r) => r.targetUri === url('/bad/header-bomb') || r.targetUri === url('/bad/garbage'))).toEqual([]);
  });

  it('reset mid-body: -3, the received prefix archived marked disconnect', () => {
    expect(run.line(url('/bad/reset'))).toMatchObject({ status: Outcome.CONNECT_LOST, annotations: ['truncated:disconnect', 'FETCH_CONNECTION_LOST'] });
    const [rec] = responses('/bad/reset');
    expect(rec?.warcHeaders['WARC-Truncated']).toBe('disconnect');
    expect(rec!.payload.length).toBeGreaterThan(0);
    expect(rec!.payload.length).toBeLessThanOrEqual(RESET_SENT);
    expect(rec!.payload.equals(Buffer.alloc(rec!.payload.length, 'r'))).toBe(true);
  });

  it('tarpit headers: -4 at the headers timeout, nothing archived', () => {
    const l = run.line(url('/bad/tarpit'));
    expect(l).toMatchObject({ status: Outcome.TIMEOUT, annotations: ['FETCH_TIMEOUT_HEADERS'] });
    expect(records.filter((r) => r.targetUri === url('/bad/tarpit'))).toEqual([]);
  });

  it('a response followed by unannounced bytes is archived whole, and the extra bytes are nobody’s', () => {
    expect(run.line(url('/bad/trailing-bytes'))).toMatchObject({ status: 200 });
    const [rec] = responses('/bad/trailing-bytes');
    expect(rec?.payload.equals(goodBody('/bad/trailing-bytes'))).toBe(true);
    for (const r of records) expect(r.payload.toString('latin1'), r.targetUri ?? '').not.toContain('smuggled');
  });

  it('every good page is 200 and byte-exact, and after a broken connection the next fetch is on a fresh one', () => {
    for (const p of LINKS.filter((l) => l.startsWith('/good/'))) {
      expect(run.line(url(p)), p).toMatchObject({ status: 200, annotations: [] });
      const recs = responses(p);
      expect(recs, p).toHaveLength(1);
      expect(recs[0]!.status, p).toBe(200);
      expect(recs[0]!.payload.equals(goodBody(p)), p).toBe(true);
      expect(recs[0]!.warcHeaders['WARC-Truncated'], p).toBeUndefined();
    }
    // No pool state leaks: a connection that broke (or carried bytes it should not) is not used again.
    for (const p of HOSTILE) {
      const a = arrival(p);
      const next = LINKS[LINKS.indexOf(p) + 1]!;
      const b = arrival(next);
      expect(b.connection, `${next} after ${p}`).not.toBe(a.connection);
      expect(b.n, `${next} after ${p}`).toBe(1);
    }
  });
});
