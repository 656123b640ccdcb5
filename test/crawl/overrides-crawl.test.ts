/**
 * Per-host and per-domain overrides through real crawls of two hosts on one server
 * (127.0.0.1 and localhost): delays, connections per host, robots policy and User-Agent, with
 * the more specific override winning. Overrides are written the way the CLI's --override flag
 * takes them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseOverride } from '../../core/cli/crawl-options.ts';
import type { CrawlSettings } from '../../core/api/settings.ts';
import { minStartGap, startPacedSite, type PacedSite, type PacedSiteOptions } from '../fixtures/paced-site.ts';
import { runCrawl, type CrawlRun } from '../helpers/run-crawl.ts';

const cases: Record<string, { site: PacedSite; run: CrawlRun }> = {};

async function crawlCase(name: string, siteOpts: PacedSiteOptions, settings: Partial<CrawlSettings>) {
  const site = await startPacedSite(siteOpts);
  const run = await runCrawl({ seeds: [site.origin + '/', site.otherOrigin + '/'], ...settings });
  cases[name] = { site, run };
}

beforeAll(async () => {
  await Promise.all([
    crawlCase('host-delay', { pages: 4 }, { overrides: [parseOverride('host=127.0.0.1,min-delay-ms=300')] }),
    crawlCase('host-beats-domain', { pages: 4 }, {
      // The domain override comes last: "last one wins" would be the wrong rule.
      overrides: [parseOverride('host=localhost,min-delay-ms=300'), parseOverride('domain=localhost,min-delay-ms=0,max-delay-ms=0')],
    }),
    crawlCase('per-host', { pages: 10, delayMs: 30 }, { perHost: 3, overrides: [parseOverride('host=127.0.0.1,per-host=1')] }),
    crawlCase('robots-and-agent', { pages: 2, robots: 'User-agent: *\nDisallow: /p/\n' }, {
      overrides: [parseOverride('host=localhost,robots=ignore,user-agent=OtherAgent/2.0 (+https://example.org/bot)')],
    }),
  ]);
}, 30_000);

afterAll(async () => {
  for (const c of Object.values(cases)) {
    await c.site.close();
    c.run.cleanup();
  }
});

describe('per-host overrides', () => {
  it('a host override raises min-delay on that host only', () => {
    const { site } = cases['host-delay']!;
    expect(site.to('127.0.0.1', { robots: true }).length).toBeGreaterThanOrEqual(6);
    expect(minStartGap(site.to('127.0.0.1', { robots: true }))).toBeGreaterThanOrEqual(300);
    expect(minStartGap(site.to('localhost', { robots: true }))).toBeLessThan(300);
  });

  it('a host override beats a domain override for the same host', () => {
    const { site, run } = cases['host-beats-domain']!;
    expect(minStartGap(site.to('localhost', { robots: true }))).toBeGreaterThanOrEqual(300);
    expect(run.final.finishReason).toBe('frontier-empty');
  });

  it('per-host=1 on one host keeps one request open there while the other host gets three', () => {
    const { site } = cases['per-host']!;
    expect(site.to('127.0.0.1').length).toBeGreaterThanOrEqual(11);
    expect(site.maxInFlight.get(new URL(site.origin).host)).toBe(1);
    expect(site.maxInFlight.get(new URL(site.otherOrigin).host)).toBeGreaterThan(1);
  });

  it('robots policy and User-Agent per host', () => {
    const { site, run } = cases['robots-and-agent']!;
    // 127.0.0.1 obeys Disallow: /p/ ...
    expect(run.line(site.origin + '/p/0')?.status).toBe(-9998);
    expect(site.to('127.0.0.1').some((r) => r.path.startsWith('/p/'))).toBe(false);
    // ... localhost ignores it (and still fetched robots.txt), sending its own User-Agent.
    expect(run.line(site.otherOrigin + '/p/0')?.status).toBe(200);
    expect(site.to('localhost', { robots: true })[0]!.path).toBe('/robots.txt');
    expect(new Set(site.to('localhost', { robots: true }).map((r) => r.userAgent))).toEqual(new Set(['OtherAgent/2.0 (+https://example.org/bot)']));
    expect(site.to('127.0.0.1', { robots: true }).every((r) => r.userAgent.includes('Trove/'))).toBe(true);
  });
});
