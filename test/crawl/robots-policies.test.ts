/**
 * The five robots policies through real crawls of one site, plus meta robots and X-Robots-Tag.
 * robots.txt names a candidate agent (OtherBot) with different rules from `*`:
 *
 *   /p/0  disallowed for *  (so for us), allowed for OtherBot
 *   /p/1  allowed for *,                 disallowed for OtherBot
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrawlSettings } from '../../core/api/settings.ts';
import { html, minStartGap, startPacedSite, type PacedRoute, type PacedSite } from '../fixtures/paced-site.ts';
import { runCrawl, type CrawlRun } from '../helpers/run-crawl.ts';
import type { ReadRecord } from '../helpers/read-warcs.ts';

const ROBOTS = 'User-agent: OtherBot\nDisallow: /p/1\n\nUser-agent: *\nDisallow: /p/0\n';
const CUSTOM = 'User-agent: *\nDisallow: /p/1\nCrawl-delay: 1\n';
const OTHER_UA = 'OtherBot/3.1 (+https://other.example/bot)';

const sites: Record<string, PacedSite> = {};
const runs: Record<string, CrawlRun> = {};
let customFile: string;

async function crawlPolicy(name: string, settings: Partial<CrawlSettings>) {
  const site = await startPacedSite({ pages: 2, robots: ROBOTS });
  sites[name] = site;
  runs[name] = await runCrawl({ seeds: [site.origin + '/'], ...settings });
}

const page = (body: string, head = '', headers: Record<string, string> = {}): PacedRoute => (_q, r) => {
  const b = Buffer.from(html('t', body, head));
  r.writeHead(200, { 'Content-Type': 'text/html', 'Content-Length': String(b.length), ...headers });
  r.end(b);
};

let metaRecords: ReadRecord[];

beforeAll(async () => {
  customFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'trove-robots-')), 'custom-robots.txt');
  fs.writeFileSync(customFile, CUSTOM);
  const metaSite = startPacedSite({
    pages: 0,
    robots: 'User-agent: *\nAllow: /\n',
    routes: {
      '/': page('<a href="/meta-nofollow.html">1</a> <a href="/header-nofollow.html">2</a> <a href="/noindex.html">3</a> <a href="/meta-none.html">4</a>'),
      '/meta-nofollow.html': page('<a href="/from-meta">x</a><img src="/embed-from-meta.png">', '<meta name="robots" content="nofollow">'),
      '/meta-none.html': page('<a href="/from-none">x</a>', '<meta name="ROBOTS" content="NONE">'),
      '/header-nofollow.html': page('<a href="/from-header">x</a>', '', { 'X-Robots-Tag': 'nofollow' }),
      '/noindex.html': page('<a href="/from-noindex">x</a>', '<meta name="robots" content="noindex">'),
    },
  });
  await Promise.all([
    crawlPolicy('obey', { robots: 'obey' }),
    crawlPolicy('ignore', { robots: 'ignore' }),
    crawlPolicy('custom', { robots: 'custom', robotsFile: customFile }),
    crawlPolicy('most-favored', { robots: 'most-favored', candidateAgents: [OTHER_UA], masquerade: true }),
    crawlPolicy('most-favored-plain', { robots: 'most-favored', candidateAgents: [OTHER_UA] }),
    crawlPolicy('first-named', { robots: 'first-named', candidateAgents: ['OtherBot'] }),
    (async () => {
      const site = await metaSite;
      sites.meta = site;
      runs.meta = await runCrawl({ seeds: [site.origin + '/'] });
      metaRecords = await runs.meta.records();
    })(),
  ]);
}, 30_000);

afterAll(async () => {
  for (const s of Object.values(sites)) await s.close();
  for (const r of Object.values(runs)) r.cleanup();
  fs.rmSync(path.dirname(customFile), { recursive: true, force: true });
});

const status = (name: string, p: string) => runs[name]!.line(sites[name]!.origin + p)?.status;
const agentsFor = (name: string, p: string) => sites[name]!.requests.filter((r) => r.path === p).map((r) => r.userAgent);

describe('robots policies through a crawl', () => {
  it('obey: our group (*) decides', () => {
    expect(status('obey', '/p/0')).toBe(-9998);
    expect(status('obey', '/p/1')).toBe(200);
    expect(runs.obey!.line(sites.obey!.origin + '/p/0')?.annotations).toEqual(['robots:obey']);
  });

  it('ignore: everything fetched, robots.txt still fetched first and archived', async () => {
    expect(status('ignore', '/p/0')).toBe(200);
    expect(status('ignore', '/p/1')).toBe(200);
    expect(sites.ignore!.requests[0]!.path).toBe('/robots.txt');
    const records = await runs.ignore!.records();
    expect(records.find((r) => r.type === 'response' && r.targetUri === sites.ignore!.origin + '/robots.txt')?.payload.toString()).toBe(ROBOTS);
  });

  it('custom: the operator file decides instead of the site’s (which is still archived)', async () => {
    expect(status('custom', '/p/0')).toBe(200);
    expect(status('custom', '/p/1')).toBe(-9998);
    expect(runs.custom!.line(sites.custom!.origin + '/p/1')?.annotations).toEqual(['robots:custom']);
    expect(sites.custom!.requests.some((r) => r.path === '/robots.txt')).toBe(true);
    // Its Crawl-delay too (the site's file has none).
    expect(minStartGap(sites.custom!.to('127.0.0.1'))).toBeGreaterThanOrEqual(1000);
  });

  it('most-favored with masquerade: allowed if any agent is, sent as the agent that was allowed', () => {
    expect(status('most-favored', '/p/0')).toBe(200);
    expect(status('most-favored', '/p/1')).toBe(200);
    expect(agentsFor('most-favored', '/p/0')).toEqual([OTHER_UA]);
    const ours = agentsFor('most-favored', '/p/1');
    expect(ours).toHaveLength(1);
    expect(ours[0]).toContain('compatible; Trove/');
    // robots.txt itself and unaffected pages go out under our own name.
    expect(agentsFor('most-favored', '/robots.txt')[0]).toContain('Trove/');
  });

  it('most-favored without masquerade still sends our own User-Agent', () => {
    expect(status('most-favored-plain', '/p/0')).toBe(200);
    expect(agentsFor('most-favored-plain', '/p/0')[0]).toContain('compatible; Trove/');
  });

  it('first-named: the first agent of the set with a named group (OtherBot) decides', () => {
    expect(status('first-named', '/p/0')).toBe(200);
    expect(status('first-named', '/p/1')).toBe(-9998);
    expect(agentsFor('first-named', '/p/0')[0]).toContain('Trove/');
  });
});

describe('meta robots and X-Robots-Tag', () => {
  const fetched = (p: string) => sites.meta!.requests.some((r) => r.path === p);

  it('nofollow (meta, NONE, or X-Robots-Tag header) stops link extraction, not embeds', () => {
    expect(fetched('/meta-nofollow.html')).toBe(true);
    expect(fetched('/from-meta')).toBe(false);
    expect(fetched('/from-none')).toBe(false);
    expect(fetched('/from-header')).toBe(false);
    expect(fetched('/embed-from-meta.png')).toBe(true);
    for (const p of ['/meta-nofollow.html', '/meta-none.html', '/header-nofollow.html']) {
      expect(runs.meta!.line(sites.meta!.origin + p)?.annotations, p).toContain('nofollow');
    }
  });

  it('noindex does not stop archiving or link following', () => {
    const url = sites.meta!.origin + '/noindex.html';
    expect(metaRecords.find((r) => r.type === 'response' && r.targetUri === url)?.status).toBe(200);
    expect(fetched('/from-noindex')).toBe(true);
  });
});
