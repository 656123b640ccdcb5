/**
 * --sitemaps: robots.txt `Sitemap:` lines seed the sitemaps (hop M via robots.txt), a sitemap
 * index yields its child sitemaps (plain and gzip), a sitemap its pages (hop M), and every entry
 * still passes scope and robots. Without --sitemaps none of that happens, except for a sitemap
 * given as a seed.
 */
import type http from 'node:http';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrawlSettings } from '../../core/api/settings.ts';
import { html, startPacedSite, type PacedRoute, type PacedSite } from '../fixtures/paced-site.ts';
import { runCrawl, type CrawlRun } from '../helpers/run-crawl.ts';
import type { ReadRecord } from '../helpers/read-warcs.ts';

const origin = (q: http.IncomingMessage) => `http://${q.headers.host}`;
const reply = (type: string, body: (q: http.IncomingMessage) => string | Buffer): PacedRoute => (q, r) => {
  const b = body(q);
  const buf = typeof b === 'string' ? Buffer.from(b) : b;
  r.writeHead(200, { 'Content-Type': type, 'Content-Length': String(buf.length) });
  r.end(buf);
};
const urlset = (locs: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.map((l) => `<url><loc>${l}</loc></url>`).join('')}</urlset>`;

const ROUTES: Record<string, PacedRoute> = {
  '/robots.txt': reply('text/plain', (q) => `User-agent: *\nDisallow: /private/\n\nSitemap: ${origin(q)}/sitemap_index.xml\nSitemap: /extra-sitemap.xml\n`),
  '/': reply('text/html', () => html('Home', '<a href="/linked-sitemap.xml">our sitemap</a>')),
  '/sitemap_index.xml': reply('application/xml', (q) =>
    `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${origin(q)}/sitemap-a.xml</loc></sitemap><sitemap><loc>${origin(q)}/sitemap-b.xml.gz</loc></sitemap></sitemapindex>`,
  ),
  '/sitemap-a.xml': reply('text/xml', (q) => {
    const other = origin(q).replace('127.0.0.1', 'localhost');
    return urlset([`${origin(q)}/from-a.html`, `${origin(q)}/private/secret.html`, `${other}/offsite.html`]);
  }),
  '/sitemap-b.xml.gz': reply('application/x-gzip', (q) => zlib.gzipSync(urlset([`${origin(q)}/from-b.html`]))),
  '/extra-sitemap.xml': reply('application/xml', (q) => urlset([`${origin(q)}/from-extra.html`])),
  '/linked-sitemap.xml': reply('application/xml', (q) => urlset([`${origin(q)}/from-linked.html`])),
};
for (const p of ['/from-a.html', '/from-b.html', '/from-extra.html', '/from-linked.html']) ROUTES[p] = reply('text/html', () => html(p, 'listed in a sitemap'));

const sites: Record<string, PacedSite> = {};
const runs: Record<string, CrawlRun> = {};
let onRecords: ReadRecord[];

async function crawlCase(name: string, settings: Partial<CrawlSettings>, seed = '/') {
  const site = await startPacedSite({ pages: 0, routes: ROUTES });
  sites[name] = site;
  runs[name] = await runCrawl({ seeds: [site.origin + seed], ...settings });
}

beforeAll(async () => {
  await Promise.all([crawlCase('on', { sitemaps: true }), crawlCase('off', { sitemaps: false }), crawlCase('seed', { sitemaps: false }, '/sitemap_index.xml')]);
  onRecords = await runs.on!.records();
}, 30_000);

afterAll(async () => {
  for (const s of Object.values(sites)) await s.close();
  for (const r of Object.values(runs)) r.cleanup();
});

const fetched = (name: string, p: string) => sites[name]!.requests.some((r) => r.path === p);

describe('--sitemaps', () => {
  it('seeds the sitemaps robots.txt names (hop M via robots.txt), absolute and relative', () => {
    const { origin: o } = sites.on!;
    expect(runs.on!.line(o + '/sitemap_index.xml')).toMatchObject({ status: 200, hopsPath: 'PM', via: o + '/robots.txt' });
    expect(runs.on!.line(o + '/extra-sitemap.xml')).toMatchObject({ status: 200, hopsPath: 'PM' });
    const robotsResponse = onRecords.findIndex((r) => r.type === 'response' && r.targetUri === o + '/robots.txt');
    const meta = onRecords.slice(robotsResponse).find((r) => r.type === 'metadata')!;
    expect(meta.payload.toString()).toContain(`outlink: ${o}/sitemap_index.xml M robots/Sitemap`);
  });

  it('follows a sitemap index to its sitemaps (plain and gzip) and those to their pages', () => {
    const { origin: o } = sites.on!;
    expect(runs.on!.line(o + '/sitemap-a.xml')).toMatchObject({ status: 200, hopsPath: 'PMM', via: o + '/sitemap_index.xml' });
    expect(runs.on!.line(o + '/sitemap-b.xml.gz')).toMatchObject({ status: 200, hopsPath: 'PMM' });
    expect(runs.on!.line(o + '/from-a.html')).toMatchObject({ status: 200, hopsPath: 'PMMM', via: o + '/sitemap-a.xml' });
    expect(runs.on!.line(o + '/from-b.html')).toMatchObject({ status: 200, hopsPath: 'PMMM', via: o + '/sitemap-b.xml.gz' });
    expect(fetched('on', '/from-extra.html')).toBe(true);
    // A sitemap reached by a link is followed too.
    expect(runs.on!.line(o + '/from-linked.html')?.hopsPath).toBe('LM');
  });

  it('keeps sitemap entries under scope and robots rules', () => {
    const { origin: o, otherOrigin } = sites.on!;
    expect(sites.on!.requests.some((r) => r.host.startsWith('localhost'))).toBe(false);
    expect(runs.on!.scopeLog.some((l) => l.includes(`${otherOrigin}/offsite.html PMMM`))).toBe(true);
    expect(Object.values(runs.on!.final.scopeRejections).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1);
    expect(runs.on!.line(o + '/private/secret.html')?.status).toBe(-9998);
    expect(fetched('on', '/private/secret.html')).toBe(false);
  });

  it('is off by default: robots.txt Sitemap: lines ignored, a linked sitemap archived but its entries not followed', () => {
    const { origin: o } = sites.off!;
    expect(fetched('off', '/sitemap_index.xml')).toBe(false);
    expect(fetched('off', '/extra-sitemap.xml')).toBe(false);
    expect(fetched('off', '/linked-sitemap.xml')).toBe(true);
    expect(fetched('off', '/from-linked.html')).toBe(false);
    expect(runs.off!.line(o + '/linked-sitemap.xml')?.annotations).toContain('sitemap-entries-not-followed:1');
  });

  it('follows a sitemap given as a seed even without --sitemaps', () => {
    const { origin: o } = sites.seed!;
    expect(runs.seed!.line(o + '/sitemap-a.xml')?.hopsPath).toBe('M');
    expect(runs.seed!.line(o + '/from-a.html')).toMatchObject({ status: 200, hopsPath: 'MM' });
    expect(fetched('seed', '/from-b.html')).toBe(true);
    expect(fetched('seed', '/extra-sitemap.xml')).toBe(false);
  });
});
