/**
 * Politeness through real crawls, measured from the server's request log: the gap between
 * request starts to one host, requests open at once per host, robots Crawl-delay (and its cap)
 * and the per-host bandwidth cap. The crawls run side by side, each against its own site.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minStartGap, startPacedSite, type PacedSite } from '../fixtures/paced-site.ts';
import { runCrawl, type CrawlRun } from '../helpers/run-crawl.ts';
import { queueKeyFor } from '../../core/frontier/queue-assignment.ts';

interface Case {
  site: PacedSite;
  run: CrawlRun;
}

const cases: Record<string, Case> = {};

async function crawlCase(name: string, site: Promise<PacedSite>, settings: Parameters<typeof runCrawl>[0], seedsOf: (s: PacedSite) => string[] = (s) => [s.origin + '/']) {
  const s = await site;
  const run = await runCrawl({ seeds: seedsOf(s), ...settings });
  cases[name] = { site: s, run };
}

beforeAll(async () => {
  await Promise.all([
    crawlCase('min-delay', startPacedSite({ pages: 6, delayMs: 10 }), { minDelayMs: 150, maxDelayMs: 1000, perHost: 1 }),
    crawlCase('one-in-flight', startPacedSite({ pages: 10, delayMs: 30 }), { perHost: 1, concurrency: 4 }, (s) => [s.origin + '/', s.otherOrigin + '/']),
    crawlCase('three-in-flight', startPacedSite({ pages: 10, delayMs: 30 }), { perHost: 3, concurrency: 4 }),
    crawlCase('crawl-delay', startPacedSite({ pages: 1, robots: 'User-agent: *\nCrawl-delay: 1\n' }), {}),
    crawlCase('crawl-delay-capped', startPacedSite({ pages: 1, robots: 'User-agent: *\nCrawl-delay: 30\n' }), { crawlDelayCapS: 1 }),
    crawlCase('elfhash', startPacedSite({ pages: 20, delayMs: 30 }), { queuePolicy: 'elfhash:5', perHost: 1, concurrency: 5, minDelayMs: 40, maxDelayMs: 1000 }),
    crawlCase('bandwidth', startPacedSite({ pages: 3, pageBytes: 20 * 1024 }), { maxKbpsPerHost: 100 }),
  ]);
}, 180_000); // a hang guard only: on a loaded machine seven crawls side by side take a while

afterAll(async () => {
  for (const c of Object.values(cases)) {
    await c.site.close();
    c.run.cleanup();
  }
});

describe('politeness measured at the server', () => {
  it('never starts two requests to one host closer than min-delay (robots.txt included)', () => {
    const { site, run } = cases['min-delay']!;
    expect(run.final.finishReason).toBe('frontier-empty');
    const reqs = site.to('127.0.0.1', { robots: true });
    expect(reqs.length).toBeGreaterThanOrEqual(8); // robots, home, 6 pages, favicon
    expect(minStartGap(reqs)).toBeGreaterThanOrEqual(150);
  });

  it('with --per-host 1 keeps at most one request per host open, while two hosts run side by side', () => {
    const { site, run } = cases['one-in-flight']!;
    expect(run.final.finishReason).toBe('frontier-empty');
    expect(site.to('127.0.0.1').length).toBeGreaterThanOrEqual(11);
    expect(site.to('localhost').length).toBeGreaterThanOrEqual(11);
    expect(site.maxInFlight.get(new URL(site.origin).host)).toBe(1);
    expect(site.maxInFlight.get(new URL(site.otherOrigin).host)).toBe(1);
    // The two hosts did overlap: politeness is per host, not a global lock.
    const a = site.to('127.0.0.1');
    const b = site.to('localhost');
    const overlaps = a.some((x) => b.some((y) => y.start < x.end && x.start < y.end));
    expect(overlaps).toBe(true);
  });

  it('with --per-host 3 the same measurement sees several requests open at once', () => {
    const { site } = cases['three-in-flight']!;
    const n = site.maxInFlight.get(new URL(site.origin).host)!;
    expect(n).toBeGreaterThan(1);
    expect(n).toBeLessThanOrEqual(3);
  });

  it('elfhash:5 spreads one host over 5 queues: several requests open on one server, each queue still polite', () => {
    const { site, run } = cases.elfhash!;
    expect(run.final.finishReason).toBe('frontier-empty');
    expect(site.maxInFlight.get(new URL(site.origin).host)).toBeGreaterThan(1);
    const byQueue = new Map<string, typeof site.requests>();
    // robots.txt is left out: it waits in the queue of the URI that needed it, not its own bucket.
    for (const r of site.to('127.0.0.1')) {
      const key = queueKeyFor(site.origin + r.path, 'elfhash:5');
      byQueue.set(key, [...(byQueue.get(key) ?? []), r]);
    }
    expect(byQueue.size).toBeGreaterThan(1);
    for (const [key, reqs] of byQueue) {
      const sorted = [...reqs].sort((a, b) => a.start - b.start);
      // One request at a time per queue, and min-delay from each end to the next start.
      for (let i = 1; i < sorted.length; i++) expect(sorted[i]!.start - sorted[i - 1]!.end, key).toBeGreaterThanOrEqual(40);
    }
  });

  it('raises the delay to robots Crawl-delay (1 s)', () => {
    const { site, run } = cases['crawl-delay']!;
    const pages = site.to('127.0.0.1');
    expect(pages.map((r) => r.path).sort()).toEqual(['/', '/favicon.ico', '/p/0']);
    expect(minStartGap(pages)).toBeGreaterThanOrEqual(1000);
    expect(run.final.hosts.find((h) => h.queue.startsWith('127.0.0.1'))?.delayReason).toBe('crawl-delay');
  });

  it('caps Crawl-delay at crawlDelayCapS (30 s asked, 1 s honoured)', () => {
    const { site, run } = cases['crawl-delay-capped']!;
    const pages = site.to('127.0.0.1');
    expect(pages.length).toBe(3);
    expect(minStartGap(pages)).toBeGreaterThanOrEqual(1000);
    // The delay the crawler decided, not how long the crawl took: a busy machine may be slow,
    // but the 30 s asked for is never applied.
    const host = run.final.hosts.find((h) => h.queue.startsWith('127.0.0.1'))!;
    expect(host.delayMs).toBeLessThan(30_000);
    expect(host.delayMs).toBeGreaterThanOrEqual(1000);
  });

  it('shapes bandwidth: after a 20 KiB page at 100 KiB/s the next fetch starts ≥ 200 ms after it', () => {
    const { site, run } = cases['bandwidth']!;
    // The budget runs from the crawler's fetch start (crawl.log has it): exact, not blurred by
    // how soon the server got around to each request.
    const fetches = run.log.filter((l) => l.fetchStart !== null && l.url.startsWith(site.origin)).sort((a, b) => a.fetchStart! - b.fetchStart!);
    const big = fetches.slice(0, -1).map((l, i) => ({ l, next: fetches[i + 1]! })).filter(({ l }) => l.url.includes('/p/'));
    expect(big.length).toBeGreaterThanOrEqual(2);
    for (const { l, next } of big) {
      expect(l.size).toBeGreaterThan(20 * 1024);
      expect(next.fetchStart! - l.fetchStart!, l.url).toBeGreaterThanOrEqual(Math.floor((l.size / 1024 / 100) * 1000));
    }
    // At the server: the three big pages came one after another.
    const reqs = site.to('127.0.0.1', { robots: true }).sort((x, y) => x.start - y.start);
    const firstBig = reqs.findIndex((r) => r.path.startsWith('/p/'));
    const lastBig = reqs.findLastIndex((r) => r.path.startsWith('/p/'));
    const pages = reqs.slice(firstBig, lastBig + 1).filter((r) => r.path.startsWith('/p/')).length;
    expect(pages).toBe(3);
    // No rate measured at the server: when the server itself is slow to see a request, the
    // span shrinks and the rate looks higher than what the crawler sent. The crawler's own fetch
    // starts above are the exact check.
  });
});
