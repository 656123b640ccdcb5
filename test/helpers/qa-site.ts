/**
 * The QA detection fixture, generated at test time and served on 127.0.0.1, port 0: an index
 * page linking 64 pages, each with a stylesheet, its own image (a PNG made with pngjs), and some
 * with a web font or a script that builds part of the page. Which pages use which resource is
 * fixed, so a test that drops a resource's records from the archive knows which pages it damaged:
 *
 * - pages 0–7 use `/css/alt.css` (the others `/css/main.css`);
 * - pages 8–13 also use `/css/font.css`, whose `@font-face` loads `/fonts/fixture-mono.ttf`
 *   (test/fixtures/browser-site/fonts: DejaVu Sans Mono Oblique, see that folder's README);
 * - pages 24–31 load `/js/build.js`, which writes the page's main list;
 * - every page shows `/img/<n>.png`.
 *
 * Every request is counted in `hits` (path → count), so a patch test can see what was fetched.
 */
import fs from 'node:fs';
import { PNG } from 'pngjs';
import { startHttpServer } from './local-server.ts';
import { BROWSER_SITE_DIR } from './browser-site-server.ts';

export const QA_SITE_PAGES = 64;
export const ALT_CSS_PAGES = range(0, 8);
export const FONT_PAGES = range(8, 14);
export const SCRIPT_PAGES = range(24, 32);

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

export interface QaSite {
  origin: string;
  hits: Map<string, number>;
  pageUrl(n: number): string;
  close(): Promise<void>;
}

function image(n: number): Buffer {
  const png = new PNG({ width: 240, height: 160 });
  for (let y = 0; y < 160; y++) {
    for (let x = 0; x < 240; x++) {
      const i = (y * 240 + x) * 4;
      png.data[i] = (n * 37 + x) & 255;
      png.data[i + 1] = (n * 91 + y) & 255;
      png.data[i + 2] = (n * 53 + ((x ^ y) & 63)) & 255;
      png.data[i + 3] = 255;
    }
  }
  return PNG.sync.write(png);
}

function page(n: number): string {
  const css = ALT_CSS_PAGES.includes(n) ? '/css/alt.css' : '/css/main.css';
  const font = FONT_PAGES.includes(n) ? '<link rel="stylesheet" href="/css/font.css">' : '';
  const script = SCRIPT_PAGES.includes(n) ? '<script src="/js/build.js"></script>' : '';
  const items = SCRIPT_PAGES.includes(n) ? '' : Array.from({ length: 12 }, (_, i) => `<li>Item ${i + 1} of page ${n}</li>`).join('');
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>Page ${n}</title>
<link rel="stylesheet" href="${css}">${font}
</head><body>
<header><h1>Fixture page ${n}</h1><nav><a href="/">Home</a> <a href="/p/${(n + 1) % QA_SITE_PAGES}.html">Next</a></nav></header>
<main>
<p class="lead">This is page ${n} of the QA fixture. It has a stylesheet, an image${FONT_PAGES.includes(n) ? ', a web font' : ''}${SCRIPT_PAGES.includes(n) ? ' and a list its script builds' : ''}.</p>
<img src="/img/${n}.png" width="240" height="160" alt="picture ${n}">
<ul id="list" data-page="${n}">${items}</ul>
</main>${script}
</body></html>`;
}

const INDEX = `<!doctype html><html><head><meta charset="utf-8"><title>QA fixture</title><link rel="stylesheet" href="/css/main.css"></head>
<body><h1>QA fixture</h1><ul>${range(0, QA_SITE_PAGES)
  .map((n) => `<li><a href="/p/${n}.html">Page ${n}</a></li>`)
  .join('')}</ul></body></html>`;

const MAIN_CSS = `body { font-family: sans-serif; background: #f4f1e8; color: #222; margin: 0; }
header { background: #234; color: #fff; padding: 24px 32px; }
header a { color: #9cf; }
main { padding: 24px 32px; } .lead { font-size: 20px; } li { margin: 4px 0; }`;
const ALT_CSS = `body { font-family: serif; background: #102030; color: #eee; margin: 0; }
header { background: #c33; color: #fff; padding: 48px 64px; font-size: 28px; }
main { padding: 24px 64px; columns: 2; } .lead { font-size: 26px; }`;
const FONT_CSS = `@font-face { font-family: "Fixture Mono"; src: url(/fonts/fixture-mono.ttf) format("truetype"); }
body, h1, .lead, li { font-family: "Fixture Mono", monospace; font-size: 22px; }`;
const BUILD_JS = `(() => { const ul = document.getElementById('list'); const n = ul.dataset.page;
for (let i = 1; i <= 12; i++) { const li = document.createElement('li'); li.textContent = 'Built item ' + i + ' of page ' + n; ul.appendChild(li); } })();`;

/** `robots`: the site's robots.txt (default: everything allowed). */
export async function startQaSite(opts: { robots?: string } = {}): Promise<QaSite> {
  const hits = new Map<string, number>();
  const font = fs.readFileSync(BROWSER_SITE_DIR + 'fonts/fixture-mono.ttf');
  const images = new Map<number, Buffer>();
  const server = await startHttpServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(p, (hits.get(p) ?? 0) + 1);
    const send = (type: string, body: string | Buffer) => {
      res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    let m: RegExpExecArray | null;
    if (p === '/' || p === '/index.html') return send('text/html; charset=utf-8', INDEX);
    if ((m = /^\/p\/(\d+)\.html$/.exec(p)) && Number(m[1]) < QA_SITE_PAGES) return send('text/html; charset=utf-8', page(Number(m[1])));
    if ((m = /^\/img\/(\d+)\.png$/.exec(p)) && Number(m[1]) < QA_SITE_PAGES) {
      const n = Number(m[1]);
      if (!images.has(n)) images.set(n, image(n));
      return send('image/png', images.get(n)!);
    }
    if (p === '/css/main.css') return send('text/css; charset=utf-8', MAIN_CSS);
    if (p === '/css/alt.css') return send('text/css; charset=utf-8', ALT_CSS);
    if (p === '/css/font.css') return send('text/css; charset=utf-8', FONT_CSS);
    if (p === '/fonts/fixture-mono.ttf') return send('font/ttf', font);
    if (p === '/js/build.js') return send('text/javascript; charset=utf-8', BUILD_JS);
    if (p === '/robots.txt') return send('text/plain', opts.robots ?? 'User-agent: *\nAllow: /\n');
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  });
  return { origin: server.origin, hits, pageUrl: (n) => `${server.origin}/p/${n}.html`, close: () => server.close() };
}
