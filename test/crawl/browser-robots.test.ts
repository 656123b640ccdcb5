/**
 * robots.txt for what a page loads in a `--browser` crawl, in real Chromium against two real
 * servers on 127.0.0.1 (port 0), each keeping its own request log:
 *
 * - on the seed's host (robots.txt known before the page is loaded), a script's fetch of a
 *   disallowed path is never sent: the server never sees it; the allowed fetch is captured;
 * - on a second host first seen through an embed, the browser sends nothing before that host's
 *   robots.txt is known: the embeds are queued as E hops, the host's robots.txt is fetched first,
 *   then the allowed embed by HTTP; the disallowed one is never requested;
 * - crawl.log counts the forbidden loads on the page's line (robots-precluded-embeds:N) and the
 *   ones held back for their robots.txt (robots-prerequisite-embeds:N);
 * - the WARCs are read back with warcio: the allowed resources of both hosts are there;
 * - a seed redirecting to a host whose robots.txt is not known: the tab may not follow it, the
 *   redirect it captured is the seed's response (not fetched again), its target (a seed) waits for that host's robots.txt and is then
 *   loaded in a tab.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import { findChromium } from '../e2e/harness.ts';
import { verifyCrawlDir } from '../helpers/verify-crawl-dir.ts';
import { startHttpServer, type LocalServer } from '../helpers/local-server.ts';

const chromium = findChromium();

const fast = { concurrency: 2, perHost: 1, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, maxRetries: 0 };
const PNG = Buffer.from('89504e470d0a1a0a0000', 'hex');
const ROBOTS = 'User-agent: *\nDisallow: /private/\n';

describe.skipIf(!chromium)('browser crawl: robots.txt before the browser sends a request', () => {
  let a: LocalServer;
  let b: LocalServer;
  const aHits: string[] = [];
  const bHits: string[] = [];
  let dir: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-browser-robots-'));
    b = await startHttpServer((req, res) => {
      bHits.push(req.url ?? '');
      if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(ROBOTS);
      if (req.url === '/moved/') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<title>B</title><p>moved here</p>');
      if (req.url === '/img/ok.png' || req.url === '/private/no.png') return void res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(PNG.length) }).end(PNG);
      res.writeHead(404).end();
    });
    a = await startHttpServer((req, res) => {
      aHits.push(req.url ?? '');
      const html = (s: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(s);
      if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(ROBOTS);
      if (req.url === '/') {
        return html(
          `<title>A</title><img src="${b.origin}/img/ok.png"><img src="${b.origin}/private/no.png">` +
            `<script>fetch('/public/ok.json'); fetch('/private/secret.json');</script>`,
        );
      }
      if (req.url === '/go-b') return void res.writeHead(301, { location: `${b.origin}/moved/`, 'content-length': '0' }).end();
      if (req.url === '/public/ok.json' || req.url === '/private/secret.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      res.writeHead(404).end();
    });
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('never sends what robots.txt forbids, on a known host or one first seen through an embed', async () => {
    const crawl = await startCrawl({ dir, settings: { ...fast, seeds: [`${a.origin}/`], browser: { enabled: true, tabs: 1, path: chromium! } } });
    const final = await crawl.finished();
    expect(final.finishReason).toBe('frontier-empty');

    // The servers' own logs: the disallowed URLs were never requested.
    expect(aHits).toContain('/public/ok.json');
    expect(aHits).not.toContain('/private/secret.json');
    expect(bHits).not.toContain('/private/no.png');
    // The second host: robots.txt first, then the allowed embed (by HTTP, behind it).
    expect(bHits).toContain('/img/ok.png');
    expect(bHits.indexOf('/robots.txt')).toBeGreaterThanOrEqual(0);
    expect(bHits.indexOf('/robots.txt')).toBeLessThan(bHits.indexOf('/img/ok.png'));

    // The archive, read back with warcio: what was allowed is there, what was not is not.
    const check = await verifyCrawlDir(dir);
    expect(check.warcOnly).toEqual([]);
    expect(check.indexOnly).toEqual([]);
    const urls = new Set(check.records.filter((r) => r.type === 'response' || r.type === 'revisit').map((r) => r.targetUri!));
    expect(urls.has(`${a.origin}/public/ok.json`)).toBe(true);
    expect(urls.has(`${b.origin}/img/ok.png`)).toBe(true);
    expect(urls.has(`${b.origin}/robots.txt`)).toBe(true);
    expect(urls.has(`${a.origin}/private/secret.json`)).toBe(false);
    expect(urls.has(`${b.origin}/private/no.png`)).toBe(false);
    const png = check.records.find((r) => r.type === 'response' && r.targetUri === `${b.origin}/img/ok.png`)!;
    expect(png.payload).toEqual(PNG);

    const log = fs.readFileSync(path.join(dir, 'logs', 'crawl.log'), 'utf8').trim().split('\n').map((l) => l.split(/\s+/));
    const page = log.find((f) => f[3] === `${a.origin}/`)!;
    expect(page[11]).toMatch(/browser:\d+/);
    expect(page[11]).toMatch(/robots-precluded-embeds:1(,|$)/);
    expect(page[11]).toMatch(/robots-prerequisite-embeds:2(,|$)/);
    // The held-back embeds went through the frontier: robots.txt as a prerequisite, the
    // disallowed one ended there (-9998) without a request.
    const line = (u: string) => log.find((f) => f[3] === u);
    expect(line(`${b.origin}/robots.txt`)?.[1]).toBe('200');
    expect(line(`${b.origin}/img/ok.png`)?.[1]).toBe('200');
    expect(line(`${b.origin}/private/no.png`)?.[1]).toBe('-9998');
  }, 120_000);

  it('a seed that redirects to a host whose robots.txt is not known: that host sees its robots.txt first', async () => {
    const dir2 = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-browser-robots-'));
    try {
      aHits.length = 0;
      bHits.length = 0;
      const crawl = await startCrawl({ dir: dir2, settings: { ...fast, seeds: [`${a.origin}/go-b`], browser: { enabled: true, tabs: 1, path: chromium! } } });
      expect((await crawl.finished()).finishReason).toBe('frontier-empty');
      expect(bHits[0]).toBe('/robots.txt');
      expect(bHits).toContain('/moved/');
      const check = await verifyCrawlDir(dir2);
      expect(check.warcOnly).toEqual([]);
      expect(check.indexOnly).toEqual([]);
      const log = fs.readFileSync(path.join(dir2, 'logs', 'crawl.log'), 'utf8').trim().split('\n').map((l) => l.split(/\s+/));
      // The redirect target is a seed (Heritrix's seedsRedirectNewSeeds), loaded in a tab.
      const moved = log.find((f) => f[3] === `${b.origin}/moved/`)!;
      expect(moved[1]).toBe('200');
      expect(moved[11]).toMatch(/browser:\d+/);
      // The redirect the tab captured is the seed's response, not fetched again by HTTP.
      const redirects = check.records.filter((r) => r.type === 'response' && r.targetUri === `${a.origin}/go-b`);
      expect(redirects.length).toBe(1);
      expect(aHits.filter((h) => h === '/go-b')).toHaveLength(1);
      expect(log.find((f) => f[3] === `${a.origin}/go-b`)?.[11]).toMatch(/browser-redirect-refused/);
      expect(log.find((f) => f[3] === `${a.origin}/go-b`)?.[1]).toBe('301');
    } finally {
      fs.rmSync(dir2, { recursive: true, force: true });
    }
  }, 120_000);
});
