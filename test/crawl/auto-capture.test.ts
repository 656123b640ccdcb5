/**
 * `--capture auto` (issue 35): every page over HTTP first, and in a browser when its template's
 * rendered sample or its own body says it needs one.
 *
 * - the template key and the body's signs (page-template.ts) on small documents: one Sphinx-like
 *   layout with different content is one template, an empty app root / noscript words / scripts
 *   with no text are signs;
 * - which bodies HTTP serves whole (no sample rendered for them);
 * - an auto crawl of the browser fixture site in real Chromium archives everything a browser
 *   crawl does (what only script loads included), each rendered page's crawl.log line says
 *   `rendered:<reason>`, a page without script carries no `rendered:`, and the snapshot counts
 *   the rendered pages;
 * - kill -9 of the real CLI during an auto crawl, then `trove resume`: nothing lost, no page
 *   rendered twice, no template sampled again after its verdict, the verdicts in the crawl's db;
 * - pages that waited for their template's verdict render only holding a host slot: never more
 *   pages of one host open in the browser at once than `--per-host`.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import { needsBrowser, pageTemplate, renderSignals, servedWhole } from '../../core/crawl/page-template.ts';
import { openDatabase } from '../../core/storage/open-database.ts';
import { getMeta } from '../../core/storage/meta.ts';
import { findChromium } from '../e2e/harness.ts';
import { repoRoot } from '../helpers/corpus.ts';
import { verifyCrawlDir } from '../helpers/verify-crawl-dir.ts';
import { startBrowserSite, type BrowserSiteServer } from '../helpers/browser-site-server.ts';
import type { ReadRecord } from '../helpers/read-warcs.ts';

const chromium = findChromium();
const fast = { concurrency: 4, perHost: 2, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, maxRetries: 0 };
const bin = path.join(repoRoot, 'bin', 'trove.js');
/** What a browser crawl of the fixture archives, script-loaded resources included. */
const MUST_HAVE = ['/', '/spa.html', '/lazy.html', '/infinite.html', '/srcset.html', '/font-bg.html', '/video.html', '/load-more.html', '/api/articles.json', '/articles/dynamic.html'];

function archived(records: ReadRecord[]): Set<string> {
  return new Set(records.filter((r) => r.type === 'response' || r.type === 'revisit').map((r) => r.targetUri!));
}

/** crawl.log lines as [url, annotations]. */
function logLines(dir: string): { url: string; annotations: string }[] {
  const text = fs.readFileSync(path.join(dir, 'logs', 'crawl.log'), 'utf8').trim();
  return text.split('\n').map((l) => {
    const f = l.split(/\s+/);
    return { url: f[3]!, annotations: f.at(-1)! };
  });
}

const sphinx = (content: string) => `<!doctype html><html><head><script src="../_static/doctools.js"></script></head><body>
<div class="related" role="navigation"><ul><li><a href="index.html">index</a></li></ul></div>
<div class="document"><div class="documentwrapper"><div class="bodywrapper"><div class="body" role="main">${content}</div></div></div>
<div class="sphinxsidebar"><div class="sphinxsidebarwrapper"><h3>Contents</h3></div></div></div>
<div class="footer">© Python</div></body></html>`;

describe('page templates and signs', () => {
  it('one layout with different content is one template; another layout or another host is not', () => {
    const a = sphinx('<section id="os"><h1>os</h1><div class="highlight"><pre>x</pre></div><p>Many words here.</p></section>');
    const b = sphinx('<section id="abc"><h1>abc</h1><p>Other words.</p><div><div><div>deep</div></div></div></section>');
    expect(pageTemplate('h', a)).toBe(pageTemplate('h', b));
    expect(pageTemplate('other', a)).not.toBe(pageTemplate('h', a));
    expect(pageTemplate('h', '<html><body><div id="root"></div><script src="/app.js"></script></body></html>')).not.toBe(pageTemplate('h', a));
  });

  it('signs: an empty app root, noscript words, scripts with next to no text; none on a text page', () => {
    expect(renderSignals('<body><div id="root"></div><script src="/main.js"></script></body>')).toEqual(['app-root', 'script-only']);
    expect(renderSignals('<body><noscript>Please enable JavaScript to use this site.</noscript><p>' + 'text '.repeat(100) + '</p></body>')).toEqual(['noscript']);
    expect(renderSignals(sphinx('<p>' + 'Plenty of text in this document. '.repeat(20) + '</p>'))).toEqual([]);
    expect(renderSignals('<body><script>var s = "' + 'x'.repeat(500) + '";</script><p>Hi</p></body>')).toEqual(['script-only']);
  });

  it('served whole by HTTP: no script, or 500 characters of text with external scripts only; not with a lazy-load mark or an inline script that loads', () => {
    const words = '<p>' + 'Plenty of text in this document. '.repeat(20) + '</p>';
    expect(servedWhole('<body><h1>Index</h1><a href="/a.html">a</a></body>')).toBe(true);
    expect(servedWhole(sphinx(words))).toBe(true);
    expect(servedWhole(sphinx('<p>Short.</p>'))).toBe(false);
    expect(servedWhole(sphinx(words + '<img class="lazy" data-src="/x.png">'))).toBe(false);
    expect(servedWhole(sphinx(words + '<script>fetch("/api/more.json")</script>'))).toBe(false);
    expect(servedWhole(sphinx(words + '<script type="application/ld+json">{"fetch(": 1}</script><script>var x = 1;</script>'))).toBe(true);
  });

  it('a template renders when its sample showed more in-scope URLs or a fifth more text', () => {
    expect(needsBrowser({ moreUrls: ['http://h/x'], httpTextLength: 100, browserTextLength: 100 })).toBe(true);
    expect(needsBrowser({ moreUrls: [], httpTextLength: 1000, browserTextLength: 1100 })).toBe(false);
    expect(needsBrowser({ moreUrls: [], httpTextLength: 1000, browserTextLength: 1500 })).toBe(true);
    expect(needsBrowser({ moreUrls: [], httpTextLength: 0, browserTextLength: 150 })).toBe(false);
  });
});

describe.skipIf(!chromium)('auto capture crawl (Chromium)', () => {
  const dirs: string[] = [];
  const newDir = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-auto-crawl-'));
    dirs.push(d);
    return d;
  };
  let site: BrowserSiteServer;
  beforeAll(async () => {
    site = await startBrowserSite();
  });
  afterAll(async () => {
    await site.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('archives what a browser crawl does, says why each rendered page was rendered, renders no static page of an http template', async () => {
    const dir = newDir();
    const crawl = await startCrawl({ dir, settings: { ...fast, seeds: [`${site.origin}/`], capture: 'auto', browser: { enabled: false, tabs: 2, path: chromium! } } });
    const final = await crawl.finished();
    expect(final.state).toBe('finished');
    const check = await verifyCrawlDir(dir);
    const urls = archived(check.records);
    for (const p of MUST_HAVE) expect(urls.has(site.origin + p), p).toBe(true);

    const lines = logLines(dir);
    const rendered = lines.filter((l) => /(^|,)rendered:/.test(l.annotations));
    for (const l of rendered) expect(l.annotations).toMatch(/(^|,)rendered:(sample|template|app-root|noscript|script-only)(,|$)/);
    // Every rendered line is a browser capture; nothing else claims to be rendered.
    for (const l of lines) expect(/(^|,)rendered:/.test(l.annotations)).toBe(/(^|,)browser:\d+/.test(l.annotations));
    const byUrl = new Map(lines.map((l) => [l.url, l.annotations]));
    // The seed and srcset.html run no script: served whole by HTTP, neither is rendered nor sampled.
    expect(byUrl.get(`${site.origin}/`)).not.toMatch(/rendered:/);
    expect(byUrl.get(`${site.origin}/srcset.html`)).not.toMatch(/rendered:/);
    for (const p of ['/spa.html', '/lazy.html', '/infinite.html', '/video.html', '/load-more.html', '/font-bg.html']) expect(byUrl.get(site.origin + p), p).toMatch(/rendered:/);
    expect(final.rendered).toBe(rendered.length);
  }, 300_000);

  it('kill -9 mid-crawl, then trove resume: nothing lost, no page rendered twice, verdicts kept', async () => {
    const dir = path.join(newDir(), 'crawl');
    const flags = ['--capture', 'auto', '--browser-path', chromium!, '--browser-tabs', '2', '--concurrency', '3', '--per-host', '2', '--delay-factor', '0', '--min-delay-ms', '100', '--max-delay-ms', '100', '--min-free-disk', '0', '--no-progress'];
    const logFile = path.join(dir, 'logs', 'crawl.log');
    const killed = await new Promise<boolean>((resolve) => {
      const child = spawn(process.execPath, [bin, 'crawl', `${site.origin}/`, '--out', dir, ...flags], { stdio: ['ignore', 'ignore', 'pipe'] });
      let done = false;
      const timer = setInterval(() => {
        // Killed once some pages were rendered and more are on their way.
        const n = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').split('\n').filter((l) => / \S*rendered:/.test(l)).length : 0;
        if (n >= 2 && !done) {
          done = true;
          clearInterval(timer);
          child.kill('SIGKILL');
        }
      }, 20);
      child.on('exit', (_code, signal) => {
        clearInterval(timer);
        resolve(signal === 'SIGKILL');
      });
    });
    expect(killed).toBe(true);
    const before = logLines(dir);
    const resumed = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [bin, 'resume', dir, '--no-progress'], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      child.on('exit', (code) => resolve({ code, stderr }));
    });
    expect(resumed.code, resumed.stderr).toBe(0);

    const check = await verifyCrawlDir(dir);
    expect(check.openFiles).toEqual([]);
    expect(check.warcOnly).toEqual([]);
    expect(check.indexOnly).toEqual([]);
    const urls = archived(check.records);
    for (const p of MUST_HAVE) expect(urls.has(site.origin + p), p).toBe(true);

    const lines = logLines(dir);
    const renderedUrls = lines.filter((l) => /(^|,)rendered:/.test(l.annotations)).map((l) => l.url);
    expect(renderedUrls.length).toBeGreaterThan(0);
    expect(new Set(renderedUrls).size, 'a page rendered twice').toBe(renderedUrls.length);
    // Each URI has one outcome: the lines of the killed run stay, the resume adds only new ones.
    expect(new Set(lines.map((l) => l.url)).size).toBe(lines.length);
    for (const l of before) expect(lines.filter((x) => x.url === l.url)).toEqual([l]);

    // The verdicts are in the crawl's database, one sample each: no template was sampled again.
    const db = openDatabase(path.join(dir, 'crawl.sqlite'));
    try {
      const verdicts = getMeta<Record<string, { decision: string; sample: string }>>(db, 'renderTemplates') ?? {};
      expect(Object.keys(verdicts).length).toBeGreaterThan(0);
      // A verdict and its sample's crawl.log line may land in different commits, so a kill can
      // keep the verdict and lose the line (the page is then captured under the verdict); never
      // the other way round, and never a second sample of a decided template.
      const samples = lines.filter((l) => /rendered:sample/.test(l.annotations)).map((l) => l.url);
      expect(samples.length).toBeLessThanOrEqual(Object.keys(verdicts).length);
      for (const v of Object.values(verdicts)) expect(['browser', 'http']).toContain(v.decision);
    } finally {
      db.close();
    }
  }, 300_000);
});

/**
 * A host of one template that needs a browser: each page's script fetches its JSON (answered a
 * little later, so pages open at once would overlap) and adds a link only the browser finds.
 * The server counts the pages open in a browser (document requested with Sec-Fetch-Dest, JSON
 * not yet answered) at any moment.
 */
function startTemplateSite(pages: number): Promise<{ origin: string; maxOpen: () => number; close: () => Promise<void> }> {
  let open = 0;
  let maxOpen = 0;
  const page = (n: number) => `<!doctype html><html><head><title>Item ${n}</title></head><body><main id="item"><h1>Item ${n}</h1></main>
<script>fetch('/data-${n}.json').then((r) => r.json()).then((d) => { const a = document.createElement('a'); a.href = d.link; a.textContent = 'more'; document.getElementById('item').append(a); });</script></body></html>`;
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    const m = /^\/(item|data|more)-(\d+)\.(html|json)$/.exec(url);
    if (url === '/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><title>Index</title><p>${Array.from({ length: pages }, (_, i) => `<a href="/item-${i}.html">item ${i}</a>`).join(' ')}</p>`);
    } else if (m && m[1] === 'item') {
      if (req.headers['sec-fetch-dest'] === 'document') maxOpen = Math.max(maxOpen, ++open);
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(page(Number(m[2])));
    } else if (m && m[1] === 'data') {
      setTimeout(() => {
        open = Math.max(0, open - 1);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ link: `/more-${m[2]}.html` }));
      }, 40);
    } else if (m && m[1] === 'more') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>More</title><p>more</p>');
    } else {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        maxOpen: () => maxOpen,
        close: () => new Promise<void>((r) => server.close(() => r())),
      }),
    ),
  );
}

describe.skipIf(!chromium)('auto capture: per-host slots', () => {
  it('pages parked while their template was sampled render one host slot at a time, each once', async () => {
    const site = await startTemplateSite(8);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-auto-slots-'));
    try {
      // Two slots for the host: the sample renders in one while the other fetches and parks the
      // rest; the verdict (browser) then sends them back to the queue, not all into four tabs.
      const crawl = await startCrawl({ dir, settings: { ...fast, perHost: 2, seeds: [`${site.origin}/`], capture: 'auto', browser: { enabled: false, tabs: 4, path: chromium! } } });
      const final = await crawl.finished();
      expect(final.state).toBe('finished');
      const lines = logLines(dir);
      const rendered = lines.filter((l) => /(^|,)rendered:/.test(l.annotations)).map((l) => l.url);
      const items = Array.from({ length: 8 }, (_, i) => `${site.origin}/item-${i}.html`);
      expect(rendered.sort()).toEqual(items.sort());
      expect(new Set(lines.map((l) => l.url)).size, 'one crawl.log line per URI').toBe(lines.length);
      expect(archived((await verifyCrawlDir(dir)).records).has(`${site.origin}/more-7.html`)).toBe(true);
      expect(site.maxOpen()).toBeLessThanOrEqual(2);
    } finally {
      await site.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
