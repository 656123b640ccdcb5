/**
 * A browser crawl's counters count what the browser loaded (issue 33): every response and
 * revisit a tab recorded beside its page is a download in the snapshot, with its status, its
 * media type and its bytes (duplicates as duplicate bytes), so the counters agree with the
 * WARCs, read back with warcio. Real Chromium against a site on 127.0.0.1 whose three pages
 * load the same resources, uncached, so most of them are revisits.
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
const fast = { concurrency: 4, perHost: 2, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, maxRetries: 0 };

/** Three pages that each load the same stylesheet, script, image and JSON, none of them cached: revisits. */
function page(title: string, links: string): string {
  return `<!doctype html><title>${title}</title><link rel="stylesheet" href="/shared.css"><script src="/shared.js"></script>
    <img src="/logo.png">${links}<script>fetch('/api/data.json').then((r) => r.json()).then((d) => (document.title += d.n));</script>`;
}

describe.skipIf(!chromium)('browser crawl counters', () => {
  let site: LocalServer;
  let dir: string;
  beforeAll(async () => {
    site = await startHttpServer((q, r) => {
      const send = (type: string, body: string | Buffer) => r.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
      if (q.url === '/') return send('text/html', page('home', '<a href="/p1">1</a> <a href="/p2">2</a>'));
      if (q.url === '/p1' || q.url === '/p2') return send('text/html', page(q.url, '<a href="/">home</a>'));
      if (q.url === '/shared.css') return send('text/css', 'body { color: #333 }');
      if (q.url === '/shared.js') return send('application/javascript', 'window.shared = 1;');
      if (q.url === '/logo.png') return send('image/png', Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'));
      if (q.url === '/api/data.json') return send('application/json', '{"n":1}');
      r.writeHead(404, { 'content-type': 'text/plain' }).end('no');
    });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-browser-counts-'));
  });
  afterAll(async () => {
    await site.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('downloaded, status codes, MIME types and duplicate bytes agree with the responses and revisits in the WARCs', async () => {
    const crawl = await startCrawl({ dir, settings: { ...fast, seeds: [`${site.origin}/`], browser: { enabled: true, tabs: 1, path: chromium! } } });
    const final = await crawl.finished();
    expect(final.finishReason).toBe('frontier-empty');
    const check = await verifyCrawlDir(dir);
    expect(check.warcOnly).toEqual([]);
    const captures = check.records.filter((r) => r.type === 'response' || r.type === 'revisit');
    const revisits = captures.filter((r) => r.type === 'revisit');
    // Most of what the browser loaded is no URI of the frontier: the tabs recorded it beside their pages.
    const log = fs.readFileSync(path.join(dir, 'logs', 'crawl.log'), 'utf8').trim().split('\n');
    expect(captures.length).toBeGreaterThan(log.length * 2);
    expect(revisits.length).toBeGreaterThan(0);

    expect(final.downloaded).toBe(captures.length);
    // Of those, the ones no URI of the frontier stands for (the URI limit counts only the others).
    expect(final.browserLoads).toBe(captures.length - log.filter((l) => Number(l.split(/\s+/)[1]) > 0).length);
    const byStatus: Record<string, number> = {};
    for (const r of captures) byStatus[String(r.status)] = (byStatus[String(r.status)] ?? 0) + 1;
    const positive = Object.fromEntries(Object.entries(final.statusCodes).filter(([code]) => Number(code) > 0));
    expect(positive).toEqual(byStatus);
    // What only script loads is counted under its own media type.
    expect(final.mimeTypes['application/json']).toBeGreaterThan(0);
    expect(Object.values(final.mimeTypes).reduce((a, b) => a + b, 0)).toBeGreaterThan(log.length * 2);
    expect(final.duplicateBytes).toBeGreaterThan(0);
    expect(final.bytes).toBe(final.novelBytes + final.duplicateBytes);
  }, 240_000);
});
