/**
 * A small site on 127.0.0.1 for app and e2e tests: pages with CSS, images and links, a
 * robots.txt that disallows /private/, a redirect, and a request log so a test can prove replay
 * never touches it.
 */
import zlib from 'node:zlib';
import type http from 'node:http';
import { startHttpServer, type LocalServer } from '../helpers/local-server.ts';

export interface FixtureSite extends LocalServer {
  /** Every request path, in order. */
  requests: string[];
  /** Milliseconds each response waits before it is sent. */
  latencyMs: number;
}

/** A solid-colour RGB PNG, width × height. */
export function png(width: number, height: number, rgb: [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body) >>> 0);
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set(rgb, 1 + x * 3);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const page = (title: string, body: string) => `<!doctype html>
<html><head><meta charset="utf-8"><title>${title}</title>
<link rel="stylesheet" href="/style.css"></head>
<body><h1>${title}</h1>
<nav><a href="/">Home</a> <a href="/about.html">About</a> <a href="/articles/first.html">First</a> <a href="/articles/second.html">Second</a></nav>
${body}
</body></html>`;

export const FIXTURE_PAGES: Record<string, string> = {
  '/': page(
    'Fixture Home',
    `<p id="intro">Welcome to the fixture site.</p>
<img id="logo" src="/img/logo.png" alt="logo" width="64" height="32">
<ul>
<li><a href="/articles/third.html">Third article</a></li>
<li><a href="/old-page">An old link</a></li>
<li><a href="/private/secret.html">Members only</a></li>
<li><a href="http://elsewhere.invalid/">Another site</a></li>
</ul>`,
  ),
  '/about.html': page('About the fixture', '<p>This site exists so that a crawler has something polite to archive: a quick brown fox.</p>'),
  '/articles/first.html': page('First article', '<p>The first article mentions a zebra named Quagga.</p><img src="/img/photo.png" alt="photo">'),
  '/articles/second.html': page('Second article', '<p>The second article is about lighthouses and their keepers.</p>'),
  '/articles/third.html': page('Third article', '<p>The third article discusses marmalade.</p>'),
  '/private/secret.html': page('Secret', '<p>robots.txt keeps crawlers away from this.</p>'),
};

const STYLE = `body { background-color: rgb(250, 240, 230); font-family: sans-serif; }
h1 { color: rgb(200, 30, 60); }
#intro { border-left: 4px solid rgb(0, 128, 0); padding-left: 8px; }`;

const IMAGES: Record<string, Buffer> = {
  '/img/logo.png': png(64, 32, [30, 90, 200]),
  '/img/photo.png': png(40, 30, [200, 160, 20]),
};

function respond(req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://x');
  const p = url.pathname;
  if (p === '/robots.txt') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('User-agent: *\nDisallow: /private/\n');
  } else if (p === '/style.css') {
    res.writeHead(200, { 'content-type': 'text/css' });
    res.end(STYLE);
  } else if (IMAGES[p]) {
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': IMAGES[p]!.length });
    res.end(IMAGES[p]);
  } else if (p === '/old-page') {
    res.writeHead(301, { location: '/about.html', 'content-type': 'text/html' });
    res.end('<a href="/about.html">moved</a>');
  } else if (FIXTURE_PAGES[p] !== undefined) {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(FIXTURE_PAGES[p]);
  } else {
    res.writeHead(404, { 'content-type': 'text/html' });
    res.end('<title>Not found</title><p>nothing here</p>');
  }
}

export async function startFixtureSite(opts: { latencyMs?: number } = {}): Promise<FixtureSite> {
  const requests: string[] = [];
  let site: FixtureSite;
  const server = await startHttpServer((req, res) => {
    requests.push(req.url ?? '');
    if (site.latencyMs > 0) setTimeout(() => respond(req, res), site.latencyMs);
    else respond(req, res);
  });
  site = Object.assign(server, { requests, latencyMs: opts.latencyMs ?? 0 });
  return site;
}
