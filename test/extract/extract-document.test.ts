import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { extractDocument } from '../../core/extract/extract-document.ts';
import type { DocumentInput } from '../../core/extract/extract-document.ts';

const URL_ = 'http://site.test/dir/page.html';

function doc(over: Partial<Omit<DocumentInput, 'body'>> & { body?: Buffer | string }): ReturnType<typeof extractDocument> {
  const body = typeof over.body === 'string' ? Buffer.from(over.body) : (over.body ?? Buffer.alloc(0));
  return extractDocument({ url: URL_, status: 200, headers: [], mime: 'text/html', maxLinks: 1000, ...over, body });
}

const PAGE = `<html><head><title>Page</title><link rel="stylesheet" href="/s.css"></head>
  <body><a href="/next">next</a><img src="/i.png"><meta http-equiv="refresh" content="0;url=/r"><a href="/next">again</a></body></html>`;

describe('extractDocument', () => {
  it('dispatches HTML (text/html and XHTML) and merges header links first', () => {
    for (const mime of ['text/html', 'application/xhtml+xml', 'TEXT/HTML; charset=utf-8']) {
      const r = doc({ mime, body: PAGE, headers: [['Link', '</from-header.css>; rel=stylesheet']] });
      expect(r.isHtml).toBe(true);
      expect(r.kind).toBe('html');
      expect(r.title).toBe('Page');
      expect(r.text).toBe('next again');
      expect(r.outlinks.map((l) => `${l.hop} ${l.url}`)).toEqual([
        'E http://site.test/from-header.css',
        'E http://site.test/s.css',
        'L http://site.test/next',
        'E http://site.test/i.png',
        'R http://site.test/r',
      ]);
    }
  });

  it('de-duplicates the same url+hop across headers and body, keeping different hops', () => {
    const r = doc({
      status: 301,
      headers: [['Location', '/next'], ['Link', '</s.css>; rel=stylesheet']],
      body: '<a href="/next">n</a><link rel=stylesheet href="/s.css"><meta http-equiv=refresh content="0;url=/next">',
    });
    expect(r.outlinks.map((l) => `${l.hop} ${l.context} ${l.url}`)).toEqual([
      'R header/Location http://site.test/next',
      'E header/Link http://site.test/s.css',
      'L a/@href http://site.test/next',
    ]);
  });

  it('reads the charset from the Content-Type header', () => {
    const body = Buffer.concat([Buffer.from('<title>'), Buffer.from([0x82, 0xa0]), Buffer.from('</title>')]); // あ in Shift_JIS
    expect(doc({ body, headers: [['Content-Type', 'text/html; charset=Shift_JIS']] }).title).toBe('あ');
  });

  it('dispatches CSS, decoding @charset', () => {
    const css = Buffer.concat([Buffer.from('@charset "iso-8859-1"; a{background:url(caf'), Buffer.from([0xe9]), Buffer.from('.png)}')]);
    const r = doc({ mime: 'text/css', body: css, url: 'http://site.test/css/a.css' });
    expect(r.kind).toBe('css');
    expect(r.isHtml).toBe(false);
    expect(r.outlinks).toEqual([{ url: 'http://site.test/css/caf%C3%A9.png', hop: 'E', context: 'css/url()' }]);
  });

  it('dispatches sitemaps by root element, by URL, and gzipped; entries get hop M', () => {
    const urlset = '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://site.test/a</loc></url></urlset>';
    const index = '<sitemapindex><sitemap><loc>http://site.test/s2.xml</loc></sitemap></sitemapindex>';
    expect(doc({ mime: 'application/xml', url: 'http://site.test/feed', body: urlset }).outlinks).toEqual([
      { url: 'http://site.test/a', hop: 'M', context: 'sitemap/loc' },
    ]);
    expect(doc({ mime: 'text/plain', url: 'http://site.test/sitemap_index.xml', body: index }).outlinks).toEqual([
      { url: 'http://site.test/s2.xml', hop: 'M', context: 'sitemapindex/loc' },
    ]);
    const gz = doc({ mime: 'application/x-gzip', url: 'http://site.test/sitemap.xml.gz', body: zlib.gzipSync(Buffer.from(urlset)) });
    expect(gz.kind).toBe('sitemap');
    expect(gz.outlinks.map((l) => l.url)).toEqual(['http://site.test/a']);
    // XML that is not a sitemap, and a sitemap-looking URL with an HTML body, are not sitemaps
    expect(doc({ mime: 'application/xml', body: '<rss><channel><link>http://x.test/</link></channel></rss>' }).kind).toBe('other');
    expect(doc({ mime: 'text/html', url: 'http://site.test/sitemap.xml', body: '<a href="/x">x</a>' }).kind).toBe('html');
  });

  it('gives other types header links only', () => {
    const r = doc({ mime: 'image/png', status: 302, headers: [['Location', '/elsewhere.png']], body: Buffer.from([0x89, 0x50, 0x4e, 0x47]) });
    expect(r).toMatchObject({ kind: 'other', isHtml: false, title: null, text: '' });
    expect(r.outlinks.map((l) => `${l.hop} ${l.url}`)).toEqual(['R http://site.test/elsewhere.png']);
  });

  describe('nofollow', () => {
    const body = `<meta name="robots" content="nofollow"><link rel=stylesheet href="/s.css"><a href="/l">l</a>
      <img src="/i.png"><div data-href="/x"></div><meta http-equiv=refresh content="0;url=/r">`;

    it('from meta robots keeps embeds and redirects, drops links', () => {
      const r = doc({ body, headers: [['Link', '</canon>; rel=canonical']] });
      expect(r.nofollow).toBe(true);
      expect(r.outlinks.map((l) => `${l.hop} ${l.url}`)).toEqual(['E http://site.test/s.css', 'E http://site.test/i.png', 'R http://site.test/r']);
    });

    it('from X-Robots-Tag, unscoped or for our agent only', () => {
      const page = '<a href="/l">l</a><img src="/i.png">';
      expect(doc({ body: page, headers: [['X-Robots-Tag', 'noindex, nofollow']] })).toMatchObject({ nofollow: true, noindex: true });
      expect(doc({ body: page, headers: [['X-Robots-Tag', 'none']] }).outlinks.map((l) => l.hop)).toEqual(['E']);
      expect(doc({ body: page, headers: [['x-robots-tag', 'trovebot: nofollow']], agentToken: 'trovebot' }).nofollow).toBe(true);
      expect(doc({ body: page, headers: [['X-Robots-Tag', 'otherbot: nofollow']], agentToken: 'trovebot' }).nofollow).toBe(false);
      expect(doc({ body: page, headers: [['X-Robots-Tag', 'noindex']] })).toMatchObject({ nofollow: false, noindex: true });
      // a scope ends with its header: "otherbot:" in one header does not capture the next one
      expect(doc({ body: page, headers: [['X-Robots-Tag', 'otherbot: noindex'], ['X-Robots-Tag', 'nofollow']] }).nofollow).toBe(true);
      expect(doc({ body: page, headers: [['X-Robots-Tag', 'otherbot: noindex, trovebot: nofollow']], agentToken: 'TroveBot' }).nofollow).toBe(true);
      expect(doc({ body: page, headers: [['X-Robots-Tag', 'unavailable_after: 25 Jun 2010 15:00:00 PST']] }).nofollow).toBe(false);
    });

    it('applies to sitemaps too (no M entries)', () => {
      const r = doc({
        mime: 'application/xml',
        body: '<urlset><url><loc>http://site.test/a</loc></url></urlset>',
        headers: [['X-Robots-Tag', 'nofollow']],
      });
      expect(r.outlinks).toEqual([]);
    });
  });

  it('caps links across headers and body', () => {
    const links = Array.from({ length: 50 }, (_, i) => `<a href="/p${i}">p</a>`).join('');
    const r = doc({ body: links, maxLinks: 10, headers: [['Link', '</h.css>; rel=stylesheet']] });
    expect(r.outlinks).toHaveLength(10);
    expect(r.outlinks[0]!.url).toBe('http://site.test/h.css');
    expect(r.truncatedLinks).toBe(true);
    const css = doc({ mime: 'text/css', body: Array.from({ length: 20 }, (_, i) => `.a${i}{background:url(${i}.png)}`).join(''), maxLinks: 5 });
    expect(css.outlinks).toHaveLength(5);
    expect(css.truncatedLinks).toBe(true);
  });

  it('never throws on bad input', () => {
    expect(doc({ url: 'not a url', body: PAGE }).outlinks).toEqual([]);
    expect(doc({ mime: '', body: Buffer.from([0xff, 0x00, 0x1f, 0x8b]) }).kind).toBe('other');
    expect(doc({ mime: 'application/x-gzip', url: 'http://site.test/sitemap.xml.gz', body: Buffer.from([0x1f, 0x8b, 0x08, 0, 1, 2, 3]) })).toMatchObject({
      kind: 'other',
      outlinks: [],
    });
  });
});
