/**
 * What each robots.txt fetch outcome does to a real crawl (RFC 9309; docs/FORMATS.md, "robots.txt"):
 * 200 → rules obeyed; 3xx → followed up to 5 hops, each archived; 404 → all allowed;
 * 500, timeout, connection refused → all disallowed, robots.txt retried, and after maxRetries
 * the origin's URIs end as -6 with nothing but robots.txt ever requested.
 */
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrawlSettings } from '../../core/api/settings.ts';
import { startRawServer, type LocalServer } from '../helpers/local-server.ts';
import { startPacedSite, type PacedRoute, type PacedSite } from '../fixtures/paced-site.ts';
import { runCrawl, type CrawlRun } from '../helpers/run-crawl.ts';
import type { ReadRecord } from '../helpers/read-warcs.ts';

const RULES = 'User-agent: *\nDisallow: /p/1\n';
const redirect = (to: string): PacedRoute => (_q, r) => {
  r.writeHead(302, { Location: to, 'Content-Length': '0' });
  r.end();
};
const text = (status: number, body: string): PacedRoute => (_q: http.IncomingMessage, r: http.ServerResponse) => {
  r.writeHead(status, { 'Content-Type': 'text/plain', 'Content-Length': String(Buffer.byteLength(body)) });
  r.end(body);
};

const sites: Record<string, PacedSite> = {};
const runs: Record<string, CrawlRun> = {};
const warcs: Record<string, ReadRecord[]> = {};
let hanging: LocalServer & { heads: string[] };
let refusedOrigin: string;

/** Retries fast: robots.txt outages are retried on --retry-delay-s too. */
const RETRY: Partial<CrawlSettings> = { maxRetries: 1, retryDelayS: 0.3 };

async function crawlSite(name: string, routes: Record<string, PacedRoute>, settings: Partial<CrawlSettings> = {}) {
  const site = await startPacedSite({ pages: 2, routes });
  sites[name] = site;
  runs[name] = await runCrawl({ seeds: [site.origin + '/'], ...settings });
  warcs[name] = await runs[name].records();
}

beforeAll(async () => {
  const heads: string[] = [];
  const raw = await startRawServer((_socket, head) => heads.push(head)); // never answers
  hanging = Object.assign(raw, { heads });
  const probe = await startRawServer(() => {});
  refusedOrigin = probe.origin;
  await probe.close(); // nothing listens there any more: connection refused

  const loop: Record<string, PacedRoute> = { '/robots.txt': redirect('/loop/1') };
  for (let i = 1; i <= 8; i++) loop[`/loop/${i}`] = redirect(`/loop/${i + 1}`);

  await Promise.all([
    crawlSite('200', { '/robots.txt': text(200, RULES) }),
    crawlSite('3xx', { '/robots.txt': redirect('/r/1'), '/r/1': redirect('/r/2'), '/r/2': redirect('/real-robots.txt'), '/real-robots.txt': text(200, RULES) }),
    crawlSite('3xx-too-many', { ...loop, '/loop/9': text(200, 'User-agent: *\nDisallow: /\n') }),
    crawlSite('404', { '/robots.txt': text(404, 'no robots here') }),
    crawlSite('500', { '/robots.txt': text(500, 'oops') }, RETRY),
    crawlSite('500-ignore', { '/robots.txt': text(500, 'oops') }, { ...RETRY, robots: 'ignore' }),
    (async () => {
      runs.timeout = await runCrawl({ seeds: [hanging.origin + '/'], headersTimeoutS: 0.3, ...RETRY });
    })(),
    (async () => {
      runs.refused = await runCrawl({ seeds: [refusedOrigin + '/'], ...RETRY });
    })(),
  ]);
}, 30_000);

afterAll(async () => {
  for (const s of Object.values(sites)) await s.close();
  await hanging.close();
  for (const r of Object.values(runs)) r.cleanup();
});

const responseTo = (name: string, url: string) => warcs[name]!.find((r) => r.type === 'response' && r.targetUri === url);

describe('robots.txt fetch outcomes through a crawl', () => {
  it('200: rules obeyed, the precluded URI logged as -9998 and never requested, robots.txt archived', () => {
    const site = sites['200']!;
    const run = runs['200']!;
    expect(run.line(site.origin + '/p/1')).toMatchObject({ status: -9998, annotations: ['robots:obey'] });
    expect(site.requests.some((r) => r.path === '/p/1')).toBe(false);
    expect(run.line(site.origin + '/p/0')?.status).toBe(200);
    expect(site.requests[0]!.path).toBe('/robots.txt');
    expect(responseTo('200', site.origin + '/robots.txt')?.payload.toString()).toBe(RULES);
    expect(run.line(site.origin + '/robots.txt')?.hopsPath).toBe('P');
  });

  it('3xx: redirects followed (each hop archived) and the final rules obeyed', () => {
    const site = sites['3xx']!;
    const run = runs['3xx']!;
    expect(site.requests.slice(0, 4).map((r) => r.path)).toEqual(['/robots.txt', '/r/1', '/r/2', '/real-robots.txt']);
    // Each hop once: the redirect targets are not crawled again as ordinary URIs, robots.txt is
    // not asked for again while the chain runs, and the chain holds the host's only slot.
    for (const p of ['/robots.txt', '/r/1', '/r/2', '/real-robots.txt']) expect(site.requests.filter((r) => r.path === p).length, p).toBe(1);
    expect(site.maxInFlight.get(new URL(site.origin).host)).toBe(1);
    for (const p of ['/robots.txt', '/r/1', '/r/2', '/real-robots.txt']) expect(responseTo('3xx', site.origin + p), p).toBeDefined();
    expect(responseTo('3xx', site.origin + '/r/1')?.status).toBe(302);
    expect(run.line(site.origin + '/robots.txt')?.annotations).toContain(`robots-redirect:${site.origin}/r/1`);
    expect(run.line(site.origin + '/p/1')?.status).toBe(-9998);
    expect(run.line(site.origin + '/p/0')?.status).toBe(200);
  });

  it('3xx: gives up after 5 redirects and treats robots.txt as unavailable (all allowed)', () => {
    const site = sites['3xx-too-many']!;
    const run = runs['3xx-too-many']!;
    const hops = site.requests.filter((r) => r.path === '/robots.txt' || r.path.startsWith('/loop/')).map((r) => r.path);
    expect(hops).toEqual(['/robots.txt', '/loop/1', '/loop/2', '/loop/3', '/loop/4', '/loop/5']);
    expect(run.line(site.origin + '/p/1')?.status).toBe(200);
  });

  it('404: everything allowed, the 404 archived', () => {
    const site = sites['404']!;
    const run = runs['404']!;
    expect(run.line(site.origin + '/p/1')?.status).toBe(200);
    expect(responseTo('404', site.origin + '/robots.txt')?.status).toBe(404);
  });

  it('500: all disallowed, robots.txt retried after the retry delay, then the URIs end as -6', () => {
    const site = sites['500']!;
    const run = runs['500']!;
    const robots = site.requests.filter((r) => r.path === '/robots.txt');
    expect(robots.length).toBe(2); // first try + maxRetries 1
    expect(robots[1]!.start - robots[0]!.start).toBeGreaterThanOrEqual(300);
    expect(site.requests.every((r) => r.path === '/robots.txt')).toBe(true);
    expect(run.line(site.origin + '/')).toMatchObject({ status: -6, annotations: ['robots-unavailable'] });
    expect(run.line(site.origin + '/robots.txt')?.status).toBe(500);
    expect(run.final.finishReason).toBe('frontier-empty');
  });

  it('500 under --robots ignore: robots.txt still fetched and archived, the site crawled anyway', () => {
    const site = sites['500-ignore']!;
    const run = runs['500-ignore']!;
    expect(site.requests[0]!.path).toBe('/robots.txt');
    expect(responseTo('500-ignore', site.origin + '/robots.txt')?.status).toBe(500);
    expect(run.line(site.origin + '/')?.status).toBe(200);
    expect(run.line(site.origin + '/p/1')?.status).toBe(200);
  });

  it('timeout: robots.txt retried, the seed never requested and ended as -6', () => {
    const run = runs.timeout!;
    expect(hanging.heads.length).toBe(2);
    expect(hanging.heads.every((h) => h.startsWith('GET /robots.txt '))).toBe(true);
    expect(run.line(hanging.origin + '/robots.txt')?.status).toBe(-4);
    expect(run.line(hanging.origin + '/')?.status).toBe(-6);
  });

  it('connection refused: robots.txt logged -2, the seed -6', () => {
    const run = runs.refused!;
    expect(run.line(refusedOrigin + '/robots.txt')?.status).toBe(-2);
    expect(run.log.filter((l) => l.url === refusedOrigin + '/robots.txt').length).toBe(2);
    expect(run.line(refusedOrigin + '/')?.status).toBe(-6);
    expect(run.final.finishReason).toBe('frontier-empty');
  });
});
