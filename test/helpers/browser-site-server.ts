/**
 * Serves test/fixtures/browser-site on 127.0.0.1, port 0: the static files, plus the few answers
 * a static directory cannot give and browser capture must handle: a redirect (/go/logo.png), a
 * POST that echoes its body (/api/echo), a redirect to a page (/go/spa), the service worker
 * script at the root (/sw.js), text gzip-encoded when the client accepts it (so the
 * recorder meets Content-Encoding it must rewrite), and two large bodies, one with a length and
 * one chunked (/big.bin, /big-chunked.bin). Range requests are answered with the whole file.
 * Everything is deterministic; every request is logged in `hits`.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { startHttpServer } from './local-server.ts';

export const BROWSER_SITE_DIR = fileURLToPath(new URL('../fixtures/browser-site/', import.meta.url));

/** The fixture pages the capture and fidelity tests go through. */
export const BROWSER_SITE_PAGES = ['/spa.html', '/lazy.html', '/infinite.html', '/srcset.html', '/font-bg.html', '/video.html', '/load-more.html'] as const;

export const BIG_BODY_BYTES = 3 * 1024 * 1024;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.png': 'image/png',
  '.webm': 'video/webm',
  '.ttf': 'font/ttf',
};
const GZIPPED = new Set(['.html', '.js', '.css', '.json']);

/** The deterministic bytes of the large bodies: a counter pattern, not compressible to nothing. */
export function bigBody(): Buffer {
  const b = Buffer.alloc(BIG_BODY_BYTES);
  for (let i = 0; i < b.length; i += 4) b.writeUInt32BE((i * 2654435761) >>> 0, i);
  return b;
}

export interface BrowserSiteServer {
  origin: string;
  /** Every request: method, path and query, and the User-Agent it was sent with. */
  hits: { method: string; url: string; userAgent: string }[];
  close(): Promise<void>;
}

export async function startBrowserSite(): Promise<BrowserSiteServer> {
  const hits: BrowserSiteServer['hits'] = [];
  const big = bigBody();
  const server = await startHttpServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    hits.push({ method: req.method ?? 'GET', url: u.pathname + u.search, userAgent: String(req.headers['user-agent'] ?? '') });
    if (u.pathname === '/go/logo.png' || u.pathname === '/go/spa') {
      res.writeHead(302, { location: u.pathname === '/go/spa' ? '/spa.html' : '/img/logo.png', 'content-length': '0' }).end();
      return;
    }
    // A service worker's script must come from within its scope: /sw.js for scope /.
    if (u.pathname === '/sw.js') u.pathname = '/js/sw.js';
    if (u.pathname === '/api/echo' && req.method === 'POST') {
      const parts: Buffer[] = [];
      req.on('data', (d: Buffer) => parts.push(d));
      req.on('end', () => {
        const body = JSON.stringify({ received: Buffer.concat(parts).toString('utf8') });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }).end(body);
      });
      return;
    }
    if (u.pathname === '/big.bin') {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(big.length) }).end(big);
      return;
    }
    if (u.pathname === '/big-chunked.bin') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' }); // no length: Node sends it chunked
      for (let off = 0; off < big.length; off += 256 * 1024) res.write(big.subarray(off, off + 256 * 1024));
      res.end();
      return;
    }
    const rel = decodeURIComponent(u.pathname === '/' ? '/index.html' : u.pathname);
    const file = path.join(BROWSER_SITE_DIR, path.normalize(rel));
    if (!file.startsWith(BROWSER_SITE_DIR) || !fs.existsSync(file) || !fs.statSync(file).isFile() || file.endsWith('.ts') || file.endsWith('.md')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const ext = path.extname(file);
    let body = fs.readFileSync(file);
    const headers: Record<string, string> = { 'content-type': TYPES[ext] ?? 'application/octet-stream' };
    if (GZIPPED.has(ext) && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
      body = zlib.gzipSync(body, { level: 9 });
      headers['content-encoding'] = 'gzip';
      headers['vary'] = 'Accept-Encoding';
    }
    headers['content-length'] = String(body.length);
    res.writeHead(200, headers).end(req.method === 'HEAD' ? undefined : body);
  });
  return { origin: server.origin, hits, close: () => server.close() };
}
