import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { extractSitemap, looksLikeSitemapUrl, sniffSitemapRoot } from '../../core/extract/sitemap.ts';

const BASE = 'https://site.test/sitemap.xml';

const URLSET = `<?xml version="1.0" encoding="UTF-8"?>
<!-- generated -->
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url><loc>https://site.test/</loc><lastmod>2024-01-01</lastmod></url>
  <url>
    <loc>
      https://site.test/page?a=1&amp;b=2
    </loc>
    <image:image><image:loc>https://img.site.test/photo.jpg</image:loc></image:image>
  </url>
  <url><loc><![CDATA[https://site.test/cdata?x=<1>]]></loc></url>
  <url><loc>/relative/path</loc></url>
  <url><loc>mailto:someone@site.test</loc></url>
  <url><loc>https://site.test/#frag</loc></url>
  <url><loc>https://site.test/caf&#233;</loc></url>
</urlset>`;

const INDEX = `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>https://site.test/sitemap-posts.xml.gz</loc><lastmod>2024-01-01</lastmod></sitemap>
  <sitemap><loc>https://site.test/sitemap-pages.xml</loc></sitemap>
</sitemapindex>`;

describe('extractSitemap', () => {
  it('reads a urlset: entities, CDATA, relative and duplicate locs; skips extensions and non-http', () => {
    const r = extractSitemap(Buffer.from(URLSET), BASE, 1000);
    expect(r.kind).toBe('urlset');
    expect(r.sitemaps).toEqual([]);
    expect(r.truncated).toBe(false);
    expect(r.urls).toEqual([
      'https://site.test/',
      'https://site.test/page?a=1&b=2',
      'https://site.test/cdata?x=%3C1%3E',
      'https://site.test/relative/path',
      'https://site.test/caf%C3%A9',
    ]);
  });

  it('reads a sitemap index', () => {
    const r = extractSitemap(Buffer.from(INDEX), BASE, 1000);
    expect(r).toEqual({
      kind: 'sitemapindex',
      urls: [],
      sitemaps: ['https://site.test/sitemap-posts.xml.gz', 'https://site.test/sitemap-pages.xml'],
      truncated: false,
    });
  });

  it('inflates gzip-compressed sitemaps (detected by magic, not by name)', () => {
    const r = extractSitemap(zlib.gzipSync(Buffer.from(INDEX)), 'https://site.test/whatever', 1000);
    expect(r.kind).toBe('sitemapindex');
    expect(r.sitemaps).toHaveLength(2);
  });

  it('reads namespace-prefixed sitemaps', () => {
    const xml = `<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:url><sm:loc>https://site.test/p</sm:loc></sm:url></sm:urlset>`;
    expect(extractSitemap(Buffer.from(xml), BASE, 10).urls).toEqual(['https://site.test/p']);
  });

  it('caps at maxUrls and says so', () => {
    const xml = '<urlset>' + Array.from({ length: 60_000 }, (_, i) => `<url><loc>https://site.test/p/${i}</loc></url>`).join('') + '</urlset>';
    const r = extractSitemap(Buffer.from(xml), BASE, 50_000);
    expect(r.urls).toHaveLength(50_000);
    expect(r.truncated).toBe(true);
  });

  it('gives kind unknown for HTML, RSS, empty or binary input', () => {
    for (const body of ['<!doctype html><html><body>not found</body></html>', '<rss><channel></channel></rss>', '', '\u0000\u0001garbage']) {
      expect(extractSitemap(Buffer.from(body), BASE, 10)).toMatchObject({ kind: 'unknown', urls: [], sitemaps: [] });
    }
  });

  it('keeps what inflated before a corrupt gzip tail, with an error', () => {
    const gz = Buffer.from(zlib.gzipSync(Buffer.from(URLSET)));
    const cut = gz.subarray(0, gz.length - 30);
    const r = extractSitemap(cut, BASE, 100);
    expect(r.kind).toBe('urlset');
    expect(r.error).toBeTruthy();
    expect(r.urls.length).toBeGreaterThan(0);
  });

  it('survives unterminated and hostile markup in linear time', () => {
    // No timing bound: a blow-up would not finish within the test's timeout; speed belongs to benchmarks.
    const hostile = '<urlset>' + '<loc>'.repeat(200_000) + '<loc><![CDATA[' + 'x'.repeat(100_000);
    expect(extractSitemap(Buffer.from(hostile), BASE, 10)).toMatchObject({ kind: 'urlset', urls: [] });
  });

  it('recognises sitemap URLs and roots', () => {
    expect(looksLikeSitemapUrl('https://site.test/sitemap.xml')).toBe(true);
    expect(looksLikeSitemapUrl('https://site.test/sitemap_index.xml.gz')).toBe(true);
    expect(looksLikeSitemapUrl('https://site.test/sitemaps/news.xml')).toBe(true);
    expect(looksLikeSitemapUrl('https://site.test/feed.xml')).toBe(false);
    expect(sniffSitemapRoot(Buffer.from(URLSET))).toBe('urlset');
    expect(sniffSitemapRoot(zlib.gzipSync(Buffer.from(INDEX)))).toBe('sitemapindex');
    expect(sniffSitemapRoot(Buffer.from('<html>'))).toBe('unknown');
  });
});
