/**
 * One connection, pipelined: a queue's next fetch starts once the previous fetch is over, while
 * that URI is still being extracted, written and indexed (frontier.releaseSlot). Seen from the
 * server: requests arrive while the previous URI has no crawl.log line yet, yet never two at
 * once. Identical payloads fetched back to back still come out as one response and revisits
 * (PendingOriginals), although the first is not indexed when the next is fetched.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import type { CrawlSnapshot } from '../../core/api/crawl-snapshot.ts';
import { readWarcDir, type ReadRecord } from '../helpers/read-warcs.ts';

const PAGES = 30;
const TWINS = 6;

describe('one connection, pipelined fetches', () => {
  let server: http.Server;
  let origin = '';
  let dir = '';
  let final: CrawlSnapshot;
  let records: ReadRecord[];
  let open = 0;
  let maxOpen = 0;
  let previous: string | null = null;
  /** Requests that arrived while the URI fetched before them had no crawl.log line yet. */
  let overlapped = 0;
  let requests = 0;

  beforeAll(async () => {
    const page = (n: number) =>
      `<!doctype html><title>Page ${n}</title><body>${`<p>Text of page ${n}, with <a href="#x">anchors</a> and <b>markup</b>.</p>\n`.repeat(3000)}</body>`;
    const twin = '<!doctype html><title>Twin</title><p>The same bytes at every URL.</p>';
    server = http.createServer((req, res) => {
      const url = req.url ?? '/';
      open++;
      maxOpen = Math.max(maxOpen, open);
      res.on('close', () => open--);
      if (url !== '/robots.txt' && url !== '/') {
        requests++;
        const log = path.join(dir, 'logs', 'crawl.log');
        const logged = fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '';
        if (previous && !logged.includes(` ${previous} `)) overlapped++;
        previous = origin + url;
      }
      if (url === '/') {
        const links = [...Array.from({ length: PAGES }, (_, n) => `<a href="/p/${n}.html">${n}</a>`), ...Array.from({ length: TWINS }, (_, n) => `<a href="/twin/${n}.html">t${n}</a>`)];
        res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<!doctype html><title>Home</title>${links.join('\n')}`);
      } else if (url.startsWith('/p/')) {
        res.writeHead(200, { 'Content-Type': 'text/html' }).end(page(Number(url.slice(3, -5))));
      } else if (url.startsWith('/twin/')) {
        res.writeHead(200, { 'Content-Type': 'text/html' }).end(twin);
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-pipelining-'));
    const crawl = await startCrawl({
      dir,
      settings: { name: 'pipelining', seeds: [origin + '/'], perHost: 1, concurrency: 1, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, maxRetries: 0, minFreeDiskBytes: 0 },
    });
    final = await crawl.finished();
    records = await readWarcDir(path.join(dir, 'warcs'));
  }, 60_000);

  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('crawls everything with never more than one request open', () => {
    expect(final.finishReason).toBe('frontier-empty');
    expect(final.downloaded).toBeGreaterThanOrEqual(2 + PAGES + TWINS); // robots, home, pages, twins (+ favicon)
    expect(maxOpen).toBe(1);
  });

  it('starts the next fetch while the previous URI is still being processed', () => {
    expect(requests).toBeGreaterThanOrEqual(PAGES + TWINS);
    expect(overlapped).toBeGreaterThan(0);
  });

  it('writes identical payloads fetched back to back as one response and revisits of it', () => {
    const twins = records.filter((r) => r.targetUri?.startsWith(`${origin}/twin/`) && (r.type === 'response' || r.type === 'revisit'));
    expect(twins).toHaveLength(TWINS);
    const responses = twins.filter((r) => r.type === 'response');
    expect(responses).toHaveLength(1);
    for (const r of twins.filter((t) => t.type === 'revisit')) {
      expect(r.warcHeaders['WARC-Refers-To']).toBe(responses[0]!.recordId);
    }
  });
});
