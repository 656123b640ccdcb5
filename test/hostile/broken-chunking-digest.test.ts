/**
 * The payload digest of a `Transfer-Encoding: chunked` response whose framing breaks or is cut
 * off (issue 33), end to end: a raw `net` server sends the bytes, a real crawl archives them, and
 * the WARC is read back with npm warcio, an independent reader. The rule (docs/FORMATS.md):
 * - bytes that are not chunked coding (at the first byte, or after good chunks): the transfer
 *   coding cannot be removed, so the digest is over the payload as stored; warcio's own digest
 *   (WARCSerializer over the record's raw payload, the convention Python `warcio check` verifies)
 *   must equal it;
 * - a body cut by a disconnect inside valid framing: the digest is over what the stored prefix
 *   de-chunks to, which must equal the de-chunked content warcio reads from the record;
 * and `trove check` finds no digest problem in the file, counting each record under the
 * convention computed here.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WARCParser, WARCSerializer } from 'warcio';
import { Outcome } from '../../core/api/outcome-codes.ts';
import { base32 } from '../../core/formats/digest.ts';
import { checkWarcFile, formatProblem, type CheckResult } from '../../core/warc/check-warc.ts';
import { runCrawl, type CrawlRun } from '../helpers/run-crawl.ts';

/** Each path's chunked body, sent after the head; the server then closes the connection. */
const BODIES: Record<string, string> = {
  // Not a chunk at all: the 18 bytes of the issue.
  '/not-a-chunk': 'ZZZ\r\nnot a chunk\r\n',
  // One good chunk, then bytes that are not a chunk-size line.
  '/good-then-garbage': '5\r\nhello\r\nZZZ\r\nnot a chunk\r\n',
  // Valid framing cut by the disconnect inside the second chunk's data.
  '/cut-mid-chunk': '5\r\nhello\r\na\r\nworl',
  // Valid framing cut by the disconnect inside a chunk-size line.
  '/cut-in-size-line': '5\r\nhello\r\n1',
  // Whole and valid: the control.
  '/whole': '5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n',
};
const PATHS = Object.keys(BODIES);

function head(status: string, headers: [string, string][]): string {
  return `HTTP/1.1 ${status}\r\n${headers.map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
}

async function startServer(): Promise<{ origin: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buf = '';
    socket.on('data', (d: Buffer) => {
      buf += d.toString('latin1');
      if (!buf.includes('\r\n\r\n')) return;
      const p = buf.split(' ')[1] ?? '/';
      if (p === '/') {
        const html = `<!doctype html><title>chunked</title>${PATHS.map((l) => `<a href="${l}">${l}</a>`).join('\n')}`;
        socket.end(head('200 OK', [['Content-Type', 'text/html'], ['Content-Length', String(Buffer.byteLength(html))], ['Connection', 'close']]) + html, 'latin1');
      } else if (p in BODIES) {
        socket.end(head('200 OK', [['Content-Type', 'text/plain'], ['Transfer-Encoding', 'chunked'], ['Connection', 'close']]) + BODIES[p], 'latin1');
      } else {
        socket.end(head('404 Not Found', [['Content-Length', '0'], ['Connection', 'close']]), 'latin1');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

interface Read {
  file: string;
  headers: Record<string, string>;
  /** The payload as stored: the bytes after the HTTP head, framing kept. */
  raw: Buffer;
  /** What warcio de-chunks the stored payload to. */
  content: Buffer;
  /** The WARC-Payload-Digest warcio computes for the record (over the raw payload, as it writes). */
  warcioDigest: string;
}

/** Every response record, read and digested by warcio alone. */
async function readResponses(file: string): Promise<Map<string, Read>> {
  // First pass: the digest warcio writes for each record. The serializer hashes what the
  // record's raw reader yields (the stored payload); recompute: ignore the digest it carries.
  const digests = new Map<string, string>();
  for await (const record of new WARCParser(fs.createReadStream(file))) {
    if (record.warcType !== 'response') continue;
    const target = record.warcTargetURI!;
    await new WARCSerializer(record, { digest: { algo: 'sha-1', prefix: 'sha1:', base32: true } }).digestRecord({ recompute: true });
    digests.set(target, record.warcPayloadDigest!);
  }
  // Second pass: the headers as written, the raw payload, and what warcio de-chunks it to.
  const out = new Map<string, Read>();
  for await (const record of new WARCParser(fs.createReadStream(file), { keepHeadersCase: true })) {
    if (record.warcType !== 'response') continue;
    const headers: Record<string, string> = {};
    for (const [k, v] of record.warcHeaders.headers as unknown as Iterable<[string, string]>) headers[k] = v;
    const raw = Buffer.from(await record.readFully(false));
    const content = Buffer.from(await record.readFully(true));
    const target = record.warcTargetURI!;
    out.set(new URL(target).pathname, { file, headers, raw, content, warcioDigest: digests.get(target)! });
  }
  return out;
}

const sha1 = (b: Buffer | string): string => `sha1:${base32(createHash('sha1').update(b).digest())}`;

let server: Awaited<ReturnType<typeof startServer>>;
let run: CrawlRun;
let reads: Map<string, Read>;
const checks = new Map<string, CheckResult>();

beforeAll(async () => {
  server = await startServer();
  run = await runCrawl({ seeds: [`${server.origin}/`], headersTimeoutS: 2, idleTimeoutS: 2, fetchTimeoutS: 5 });
  const warcs = path.join(run.dir, 'warcs');
  reads = new Map();
  for (const name of fs.readdirSync(warcs).filter((n) => /\.warc(\.gz)?$/.test(n))) {
    const file = path.join(warcs, name);
    for (const [p, r] of await readResponses(file)) reads.set(p, r);
    checks.set(file, await checkWarcFile(file));
  }
}, 60_000);

afterAll(async () => {
  run?.cleanup();
  await server?.close();
});

function read(p: string): Read {
  const r = reads.get(p);
  expect(r, `response record for ${p}`).toBeDefined();
  return r!;
}

describe('payload digests of chunked responses with broken or cut framing', () => {
  it('crawl.log: broken framing is -50, a cut is -3, both archived marked disconnect', () => {
    expect(run.final.finishReason).toBe('frontier-empty');
    for (const p of ['/not-a-chunk', '/good-then-garbage']) {
      expect(run.line(`${server.origin}${p}`), p).toMatchObject({ status: Outcome.HTTP_PROTOCOL_ERROR, annotations: ['truncated:disconnect', 'FETCH_BAD_CHUNKING'] });
    }
    for (const p of ['/cut-mid-chunk', '/cut-in-size-line']) {
      expect(run.line(`${server.origin}${p}`), p).toMatchObject({ status: Outcome.CONNECT_LOST, annotations: ['truncated:disconnect', 'FETCH_CONNECTION_LOST'] });
    }
    expect(run.line(`${server.origin}/whole`)).toMatchObject({ status: 200, annotations: [] });
    for (const p of PATHS) expect(read(p).headers['WARC-Truncated'], p).toBe(p === '/whole' ? undefined : 'disconnect');
  });

  it('bytes that are not a chunk: the digest is over the 18 payload bytes as stored, as warcio computes it', () => {
    const r = read('/not-a-chunk');
    expect(r.raw.toString('latin1')).toBe(BODIES['/not-a-chunk']);
    expect(r.raw.length).toBe(18);
    expect(r.headers['WARC-Payload-Digest']).toBe(r.warcioDigest);
    expect(r.headers['WARC-Payload-Digest']).toBe(sha1(r.raw));
    expect(r.headers['WARC-Payload-Digest']).not.toBe(sha1(''));
  });

  it('good chunks then garbage: the same rule, not the digest of what de-chunked before the garbage', () => {
    const r = read('/good-then-garbage');
    expect(r.raw.toString('latin1')).toBe(BODIES['/good-then-garbage']);
    expect(r.headers['WARC-Payload-Digest']).toBe(r.warcioDigest);
    expect(r.headers['WARC-Payload-Digest']).toBe(sha1(r.raw));
    expect(r.headers['WARC-Payload-Digest']).not.toBe(sha1('hello'));
  });

  it('cut inside valid framing: the digest is over what the stored prefix de-chunks to, as warcio de-chunks it', () => {
    for (const [p, entity] of [['/cut-mid-chunk', 'helloworl'], ['/cut-in-size-line', 'hello']] as const) {
      const r = read(p);
      expect(r.raw.toString('latin1'), p).toBe(BODIES[p]);
      expect(r.content.toString('latin1'), p).toBe(entity);
      expect(r.headers['WARC-Payload-Digest'], p).toBe(sha1(r.content));
    }
    const whole = read('/whole');
    expect(whole.content.toString()).toBe('hello world');
    expect(whole.headers['WARC-Payload-Digest']).toBe(sha1(whole.content));
  });

  it('trove check: no digest problem, and each record counted under the convention found above', () => {
    const totals = { entity: 0, transfer: 0 };
    for (const [file, c] of checks) {
      expect(c.problems.map(formatProblem), file).toEqual([]);
      expect(c.valid).toBe(true);
      totals.entity += c.chunkedDigests.entity;
      totals.transfer += c.chunkedDigests.transfer;
    }
    // Broken framing: over the bytes as transferred; the cuts and the whole one: the entity.
    expect(totals).toEqual({ entity: 3, transfer: 2 });
  });
});
