/**
 * The crawl thread's body path (issue 20) keeps every record byte-identical while it copies
 * less: bodies held in memory as several socket reads (Content-Length and chunked), a body
 * spooled to a file, each read back by warcio against the bytes the server sent, with the links
 * at the end of each page followed (the extraction input is whole). A real HTTP server on
 * loopback, port 0; the pages are generated here.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import { readWarcDir, type ReadRecord } from '../helpers/read-warcs.ts';
import { RunningDigest } from '../../core/formats/digest.ts';

/** An HTML page of about `size` bytes whose one link is at its very end. */
function page(size: number, link: string, seed: number): Buffer {
  const filler = crypto.createHash('sha256').update(String(seed)).digest('hex');
  const line = `<p>${filler}</p>\n`;
  const body = '<!doctype html><title>t</title>\n' + line.repeat(Math.ceil(size / line.length)) + `<a href="${link}">next</a>\n`;
  return Buffer.from(body, 'utf8');
}

const pages: Record<string, { body: Buffer; chunked: boolean }> = {
  '/': { body: Buffer.from('<a href="/mem.html">m</a><a href="/chunked.html">c</a><a href="/file.html">f</a>'), chunked: false },
  '/mem.html': { body: page(700 * 1024, '/after-mem.html', 1), chunked: false },
  '/chunked.html': { body: page(600 * 1024, '/after-chunked.html', 2), chunked: true },
  '/file.html': { body: page(1536 * 1024, '/after-file.html', 3), chunked: false },
  '/after-mem.html': { body: Buffer.from('m'), chunked: false },
  '/after-chunked.html': { body: Buffer.from('c'), chunked: false },
  '/after-file.html': { body: Buffer.from('f'), chunked: false },
};

/** What went on the wire after the head, for each path (chunk framing included). */
const sent = new Map<string, Buffer>();

describe('bodies on the crawl thread', () => {
  let server: http.Server;
  let origin: string;
  let dir: string;
  let records: ReadRecord[];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const p = pages[req.url ?? ''];
      if (!p) {
        res.writeHead(404).end();
        return;
      }
      if (p.chunked) {
        // Written in 64 KiB chunks, each its own chunk on the wire.
        res.writeHead(200, { 'content-type': 'text/html' });
        const wire: Buffer[] = [];
        for (let i = 0; i < p.body.length; i += 64 * 1024) {
          const c = p.body.subarray(i, i + 64 * 1024);
          wire.push(Buffer.from(c.length.toString(16) + '\r\n'), c, Buffer.from('\r\n'));
          res.write(c);
        }
        wire.push(Buffer.from('0\r\n\r\n'));
        sent.set(req.url!, Buffer.concat(wire));
        res.end();
      } else {
        res.writeHead(200, { 'content-type': 'text/html', 'content-length': p.body.length });
        sent.set(req.url!, p.body);
        res.end(p.body);
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-body-path-'));
    const crawl = await startCrawl({
      dir,
      settings: { name: 'bodies', seeds: [origin + '/'], minDelayMs: 0, maxDelayMs: 0, delayFactor: 0, maxRetries: 0, concurrency: 3, minFreeDiskBytes: 0, robots: 'ignore' },
    });
    await crawl.finished();
    records = await readWarcDir(path.join(dir, 'warcs'));
  }, 60_000);

  afterAll(async () => {
    await new Promise((r) => server.close(r));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const response = (p: string) => records.find((r) => r.type === 'response' && r.targetUri === origin + p);

  it('writes each body exactly as sent, with digests that match the bytes', () => {
    for (const p of ['/mem.html', '/chunked.html', '/file.html']) {
      const r = response(p);
      expect(r, p).toBeDefined();
      expect(r!.payload.equals(sent.get(p)!), p).toBe(true);
      expect(r!.warcHeaders['WARC-Payload-Digest'], p).toBe(new RunningDigest('sha1').update(pages[p]!.body).digest());
      expect(r!.warcHeaders['WARC-Truncated'], p).toBeUndefined();
    }
    expect(response('/chunked.html')!.httpHeaders.find(([k]) => k.toLowerCase() === 'transfer-encoding')?.[1]).toBe('chunked');
  });

  it('extracts the whole of each body: the link at the end of each page is followed', () => {
    for (const p of ['/after-mem.html', '/after-chunked.html', '/after-file.html']) expect(response(p), p).toBeDefined();
  });
});
