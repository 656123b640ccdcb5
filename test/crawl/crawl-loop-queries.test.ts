/**
 * The crawl loop asks the frontier when the next queue is ready only when it has a fetch slot to
 * fill: with every slot taken nothing can be claimed before one is given back, and giving one
 * back wakes the loop. Before, it asked on every pass (two statements, about two passes per
 * URI). Counted on a real crawl of a loopback site with one connection, where the slot is taken
 * almost all the time; the crawl's outcome is the same either way.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import type { CrawlSnapshot } from '../../core/api/crawl-snapshot.ts';
import type { Frontier } from '../../core/frontier/frontier.ts';

const PAGES = 40;

describe('crawl loop', () => {
  let server: http.Server;
  let dir = '';
  let final: CrawlSnapshot;
  let asked = 0;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const url = req.url ?? '/';
      if (url === '/') {
        const links = Array.from({ length: PAGES }, (_, n) => `<a href="/p/${n}.html">${n}</a>`).join('\n');
        res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<!doctype html><title>Home</title>${links}`);
      } else if (url.startsWith('/p/')) {
        res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<!doctype html><title>${url}</title><p>Page ${url}</p>`);
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-loop-queries-'));
    const crawl = await startCrawl({
      dir,
      settings: { name: 'loop-queries', seeds: [origin + '/'], perHost: 1, concurrency: 1, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, maxRetries: 0, minFreeDiskBytes: 0 },
    });
    const frontier = crawl.ctx.frontier as { -readonly [K in keyof Frontier]: Frontier[K] };
    const nextReadyAt = frontier.nextReadyAt.bind(frontier);
    frontier.nextReadyAt = (opts) => {
      asked++;
      return nextReadyAt(opts);
    };
    final = await crawl.finished();
  }, 60_000);

  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('does not ask for the next ready time while every fetch slot is taken', () => {
    expect(final.finishReason).toBe('frontier-empty');
    const uris = final.downloaded + final.failed;
    expect(uris).toBeGreaterThanOrEqual(PAGES + 2); // robots.txt, home, pages (+ favicon)
    // Asked only when the one slot was free and nothing was claimable (the home's links not yet
    // queued, the end): a handful, where asking on every pass made it at least one per URI.
    expect(asked).toBeLessThan(uris / 4);
  });
});
