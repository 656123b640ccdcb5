/**
 * `trove crawl --browser` in real Chromium against real servers on 127.0.0.1 (port 0):
 *
 * - on the browser fixture site, everything the browser asked the server for is in the archive
 *   (read back with warcio), including what only script loads (fetch()ed JSON, the links it
 *   renders, lazy images), which an HTTP crawl of the same site misses; each page has its
 *   screenshot as a `resource` record `urn:view:<url>` concurrent to its response;
 * - robots.txt holds for what a page loads (a script's fetch of a disallowed path is not
 *   archived), an out-of-scope embed is archived (the page needs it, as Browsertrix keeps it)
 *   while an out-of-scope link is not followed;
 * - kill -9 of the real CLI during a browser crawl, then `trove resume`, loses nothing.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import { findChromium } from '../e2e/harness.ts';
import { repoRoot } from '../helpers/corpus.ts';
import { verifyCrawlDir } from '../helpers/verify-crawl-dir.ts';
import { startHttpServer, type LocalServer } from '../helpers/local-server.ts';
import { startBrowserSite, type BrowserSiteServer } from '../helpers/browser-site-server.ts';
import type { ReadRecord } from '../helpers/read-warcs.ts';

const chromium = findChromium();

const fast = { concurrency: 4, perHost: 2, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, maxRetries: 0 };
const bin = path.join(repoRoot, 'bin', 'trove.js');

function archived(records: ReadRecord[]): Set<string> {
  return new Set(records.filter((r) => r.type === 'response' || r.type === 'revisit').map((r) => r.targetUri!));
}

describe.skipIf(!chromium)('browser crawl', () => {
  const dirs: string[] = [];
  const newDir = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-browser-crawl-'));
    dirs.push(d);
    return d;
  };
  afterAll(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  // The three parts side by side: each has its own servers and crawl directories, and mostly
  // waits on its pages (the behaviors' quiet periods, a delay between fetches).
  describe.concurrent('on the browser fixture site', () => {
    let site: BrowserSiteServer;
    beforeAll(async () => {
      site = await startBrowserSite();
    });
    afterAll(async () => {
      await site.close();
    });

    it('archives everything the browser requested, which an HTTP crawl misses, with a screenshot per page', async ({ expect }) => {
      const seed = `${site.origin}/`;
      const http = await startCrawl({ dir: newDir(), settings: { ...fast, seeds: [seed] } });
      const httpFinal = await http.finished();
      expect(httpFinal.finishReason).toBe('frontier-empty');
      const httpDir = httpFinal.dir;

      const before = site.hits.length;
      const dir = newDir();
      const crawl = await startCrawl({ dir, settings: { ...fast, seeds: [seed], browser: { enabled: true, tabs: 2, path: chromium! } } });
      const final = await crawl.finished();
      expect(final.finishReason).toBe('frontier-empty');
      expect(final.state).toBe('finished');
      const requested = new Set(site.hits.slice(before).filter((h) => h.method === 'GET').map((h) => site.origin + h.url));

      const check = await verifyCrawlDir(dir);
      expect(check.openFiles).toEqual([]);
      expect(check.warcOnly).toEqual([]);
      expect(check.indexOnly).toEqual([]);
      const inArchive = archived(check.records);
      const missing = [...requested].filter((u) => !inArchive.has(u));
      expect(missing).toEqual([]);

      const httpArchive = archived((await verifyCrawlDir(httpDir)).records);
      // Only script knows these: the SPA's JSON and the article links it renders.
      for (const u of ['/api/articles.json', '/articles/dynamic.html']) {
        expect(inArchive.has(site.origin + u)).toBe(true);
        expect(httpArchive.has(site.origin + u)).toBe(false);
      }
      const httpMissed = [...requested].filter((u) => !httpArchive.has(u));
      expect(httpMissed.length).toBeGreaterThan(5);

      // The SPA page: its screenshot, concurrent to its response; its POST kept as a POST.
      const spa = `${site.origin}/spa.html`;
      const response = check.records.find((r) => r.type === 'response' && r.targetUri === spa)!;
      expect(response).toBeDefined();
      const shot = check.records.find((r) => r.type === 'resource' && r.targetUri === `urn:view:${spa}`)!;
      expect(shot).toBeDefined();
      expect(shot.warcHeaders['Content-Type']).toBe('image/png');
      expect(shot.concurrentTo).toContain(response.recordId);
      expect(shot.payload.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
      const post = check.records.find((r) => r.type === 'request' && r.targetUri === `${site.origin}/api/echo`);
      expect(post?.payload.toString('utf8') ?? '').toContain('"viewed":"spa"');

      // One crawl.log line per page, annotated with how many exchanges the browser recorded.
      const log = fs.readFileSync(path.join(dir, 'logs', 'crawl.log'), 'utf8').trim().split('\n').map((l) => l.split(/\s+/));
      const spaLine = log.find((f) => f[3] === spa)!;
      expect(spaLine[1]).toBe('200');
      expect(spaLine[11]).toMatch(/browser:\d+/);
      // What the tabs captured was not fetched again by HTTP: apart from robots.txt, every URI of
      // this crawl is a page loaded in a tab.
      const byHttp = log.filter((f) => !/browser:\d+/.test(f[11] ?? ''));
      expect(byHttp.map((f) => f[3])).toEqual([`${site.origin}/robots.txt`]);
      expect(final.pages).toBeGreaterThanOrEqual(8);
    }, 240_000);
  });

  describe.concurrent('robots and scope', () => {
    let a: LocalServer;
    let b: LocalServer;
    beforeAll(async () => {
      b = await startHttpServer((req, res) => {
        if (req.url === '/out.png') res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from('89504e470d0a1a0a0000', 'hex'));
        else if (req.url === '/page.html') res.writeHead(200, { 'content-type': 'text/html' }).end('<title>elsewhere</title>');
        else res.writeHead(404).end();
      });
      a = await startHttpServer((req, res) => {
        const html = (s: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(s);
        if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private/\n');
        if (req.url === '/') {
          return html(
            `<title>A</title><img src="${b.origin}/out.png"><a href="/page2.html">2</a><a href="${b.origin}/page.html">b</a>` +
              `<script>fetch('/public/ok.json'); fetch('/private/secret.json');</script>`,
          );
        }
        if (req.url === '/page2.html') return html('<title>2</title><p>two</p>');
        if (req.url === '/public/ok.json' || req.url === '/private/secret.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
        res.writeHead(404).end();
      });
    });
    afterAll(async () => {
      await a.close();
      await b.close();
    });

    it('leaves out what robots.txt forbids, keeps out-of-scope embeds, follows no out-of-scope link', async ({ expect }) => {
      const dir = newDir();
      const crawl = await startCrawl({ dir, settings: { ...fast, seeds: [`${a.origin}/`], browser: { enabled: true, tabs: 1, path: chromium! } } });
      const final = await crawl.finished();
      expect(final.finishReason).toBe('frontier-empty');
      const check = await verifyCrawlDir(dir);
      expect(check.warcOnly).toEqual([]);
      const urls = archived(check.records);
      expect(urls.has(`${a.origin}/public/ok.json`)).toBe(true);
      expect(urls.has(`${a.origin}/private/secret.json`)).toBe(false);
      expect(urls.has(`${b.origin}/out.png`)).toBe(true);
      expect(urls.has(`${a.origin}/page2.html`)).toBe(true);
      expect(urls.has(`${b.origin}/page.html`)).toBe(false);
      const log = fs.readFileSync(path.join(dir, 'logs', 'crawl.log'), 'utf8');
      expect(log).toMatch(/robots-precluded-embeds:1/);
    }, 120_000);
  });

  describe.concurrent('kill -9 and resume', () => {
    let site: BrowserSiteServer;
    beforeAll(async () => {
      site = await startBrowserSite();
    });
    afterAll(async () => {
      await site.close();
    });

    it('loses nothing: the real CLI killed mid-crawl, then trove resume', async ({ expect }) => {
      const dir = path.join(newDir(), 'crawl');
      const flags = ['--browser', '--browser-path', chromium!, '--browser-tabs', '2', '--concurrency', '3', '--per-host', '2', '--delay-factor', '0', '--min-delay-ms', '100', '--max-delay-ms', '100', '--min-free-disk', '0', '--no-progress'];
      const logFile = path.join(dir, 'logs', 'crawl.log');
      const killed = await new Promise<boolean>((resolve) => {
        const child = spawn(process.execPath, [bin, 'crawl', `${site.origin}/`, '--out', dir, ...flags], { stdio: ['ignore', 'ignore', 'pipe'] });
        let done = false;
        const timer = setInterval(() => {
          // Killed once a few pages are in and more are being captured.
          const lines = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').split('\n').filter((l) => / browser:\d+/.test(l)).length : 0;
          if (lines >= 3 && !done) {
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
      // Not spawnSync: the fixture server runs in this process and must go on answering.
      const resumed = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [bin, 'resume', dir, '--no-progress'], { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (d) => (stderr += d));
        child.on('exit', (code) => resolve({ code, stderr }));
      });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stderr).toMatch(/put back in the queue/);

      const check = await verifyCrawlDir(dir);
      expect(check.openFiles).toEqual([]);
      expect(check.warcOnly).toEqual([]);
      expect(check.indexOnly).toEqual([]);
      const urls = archived(check.records);
      for (const p of ['/', '/spa.html', '/lazy.html', '/infinite.html', '/srcset.html', '/font-bg.html', '/video.html', '/load-more.html', '/api/articles.json', '/articles/dynamic.html']) {
        expect(urls.has(site.origin + p), p).toBe(true);
      }
      // Every page ended with one outcome in the frontier: nothing left queued or leased.
      const log = fs.readFileSync(logFile, 'utf8');
      expect(log).toMatch(/\/load-more\.html/);
    }, 300_000);
  });
});
