/**
 * A server asking us to slow down: 429 with Retry-After backs the whole host off at least that
 * long and the URI is tried again; 503 without Retry-After backs off anyway (5 s, doubling).
 */
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPacedSite, type PacedRequest, type PacedSite } from '../fixtures/paced-site.ts';
import { runCrawl, type CrawlRun } from '../helpers/run-crawl.ts';

/** A route that answers `status` (with `headers`) the first `times` times, then a page. */
function failing(times: number, status: number, headers: Record<string, string> = {}) {
  let n = 0;
  return (_q: http.IncomingMessage, r: http.ServerResponse) => {
    if (n++ < times) {
      r.writeHead(status, { 'Content-Type': 'text/plain', 'Content-Length': '4', ...headers });
      r.end('slow');
      return;
    }
    r.writeHead(200, { 'Content-Type': 'text/html', 'Content-Length': '15' });
    r.end('<p>finally</p>\n');
  };
}

const cases: Record<string, { site: PacedSite; run: CrawlRun }> = {};

async function crawlCase(name: string, route: ReturnType<typeof failing>, maxRetries: number) {
  const site = await startPacedSite({ pages: 1, routes: { '/p/0': route } });
  const run = await runCrawl({ seeds: [site.origin + '/'], maxRetries, retryDelayS: 0.1 });
  cases[name] = { site, run };
}

/** The first request to `path`, and the gap from its start to the next request to the same host. */
function gapAfterFirst(site: PacedSite, path: string): { first: PacedRequest; gap: number } {
  const reqs = site.to('127.0.0.1', { robots: true }).sort((a, b) => a.start - b.start);
  const i = reqs.findIndex((r) => r.path === path);
  return { first: reqs[i]!, gap: reqs[i + 1]!.start - reqs[i]!.start };
}

beforeAll(async () => {
  await Promise.all([
    crawlCase('429', failing(1, 429, { 'Retry-After': '1' }), 2),
    crawlCase('429-always', failing(99, 429, { 'Retry-After': '1' }), 1),
    crawlCase('503', failing(1, 503), 2),
    crawlCase('503-garbled', failing(1, 503, { 'Retry-After': '1.5' }), 2),
  ]);
}, 30_000);

afterAll(async () => {
  for (const c of Object.values(cases)) {
    await c.site.close();
    c.run.cleanup();
  }
});

describe('back-off on 429 and 503', () => {
  it('429 with Retry-After: 1 holds the host ≥ 1 s, then the URI is retried and captured', () => {
    const { site, run } = cases['429']!;
    expect(site.to('127.0.0.1').filter((r) => r.path === '/p/0').length).toBe(2);
    expect(gapAfterFirst(site, '/p/0').gap).toBeGreaterThanOrEqual(1000);
    const line = run.line(site.origin + '/p/0')!;
    expect(line.status).toBe(200);
    expect(line.annotations).toContain('2t');
    // One crawl.log line per URI: the 429 attempt is not logged as an outcome of its own.
    expect(run.log.filter((l) => l.url === site.origin + '/p/0').length).toBe(1);
  });

  it('a URI still answering 429 after maxRetries ends with 429', () => {
    const { site, run } = cases['429-always']!;
    expect(site.to('127.0.0.1').filter((r) => r.path === '/p/0').length).toBe(2);
    expect(run.line(site.origin + '/p/0')?.status).toBe(429);
    expect(run.final.finishReason).toBe('frontier-empty');
  });

  it('503 without Retry-After backs the host off (5 s) and retries', () => {
    const { site, run } = cases['503']!;
    expect(gapAfterFirst(site, '/p/0').gap).toBeGreaterThanOrEqual(5000);
    expect(run.line(site.origin + '/p/0')?.status).toBe(200);
    const host = run.final.hosts.find((h) => h.queue === new URL(site.origin).host)!;
    expect(host.backoffs).toBe(1);
  });

  it('503 with an unreadable Retry-After ("1.5") backs off as if there were none', () => {
    const { site, run } = cases['503-garbled']!;
    expect(gapAfterFirst(site, '/p/0').gap).toBeGreaterThanOrEqual(5000);
    expect(run.line(site.origin + '/p/0')?.status).toBe(200);
  });
});
