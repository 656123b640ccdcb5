import { describe, expect, it } from 'vitest';
import { extractFromHeaders, parseLinkHeader } from '../../core/extract/header-links.ts';
import { inferredLinks } from '../../core/extract/inferred-links.ts';
import { refreshTarget } from '../../core/extract/refresh-value.ts';
import { startHttpServer } from '../helpers/local-server.ts';

const BASE = 'http://site.test/a/page';

function lines(status: number, headers: [string, string][]): string[] {
  return extractFromHeaders(status, headers, BASE).map((l) => `${l.hop} ${l.context} ${l.url}`);
}

describe('extractFromHeaders', () => {
  it('takes Location as a redirect only on 3xx', () => {
    expect(lines(301, [['Location', '/moved#frag']])).toEqual(['R header/Location http://site.test/moved']);
    expect(lines(308, [['location', 'next']])).toEqual(['R header/Location http://site.test/a/next']);
    expect(lines(201, [['Location', '/created']])).toEqual([]);
    expect(lines(200, [['Location', '/ignored']])).toEqual([]);
  });

  it('takes Content-Location as R unless it names the page itself', () => {
    expect(lines(200, [['Content-Location', 'page.en.html']])).toEqual(['R header/Content-Location http://site.test/a/page.en.html']);
    expect(lines(200, [['Content-Location', '/a/page']])).toEqual([]);
  });

  it('reads Link headers: E for what the page loads, L otherwise, nothing for preconnect', () => {
    expect(
      lines(200, [
        ['Link', '</s.css>; rel=stylesheet, <https://cdn.test/f.woff2>; rel="preload"; as=font; crossorigin'],
        ['Link', '</canon>; rel="canonical", <page2>; rel=next, </icon.png>; rel="shortcut icon"'],
        ['Link', '<https://cdn.test>; rel=preconnect, <mailto:x@y.test>; rel=author'],
        ['LINK', '</odd,name.css>;rel="alternate stylesheet";title="a, b"'],
      ]),
    ).toEqual([
      'E header/Link http://site.test/s.css',
      'E header/Link https://cdn.test/f.woff2',
      'L header/Link http://site.test/canon',
      'L header/Link http://site.test/a/page2',
      'E header/Link http://site.test/icon.png',
      'E header/Link http://site.test/odd,name.css',
    ]);
  });

  it('reads Refresh as R', () => {
    expect(lines(200, [['Refresh', '5; url=/later']])).toEqual(['R header/Refresh http://site.test/later']);
    expect(lines(200, [['Refresh', '5']])).toEqual([]);
  });

  it('survives garbage and an unparsable base', () => {
    expect(lines(302, [['Location', 'http://[bad']])).toEqual([]);
    expect(lines(200, [['Link', '<unterminated'], ['Link', ';;;,,,"'], ['Refresh', 'url=']])).toEqual([]);
    // Odd but parsable: the reference between the first < and > is "<<", a relative URL.
    expect(lines(200, [['Link', '<<<>>>;;;,,,"']])).toEqual(['L header/Link http://site.test/a/%3C%3C']);
    expect(extractFromHeaders(301, [['Location', '/x']], 'not a url')).toEqual([]);
  });

  it('reads the headers of a real response', async () => {
    const server = await startHttpServer((_req, res) => {
      res.writeHead(302, { Location: '/target?x=1', Link: '</style.css>; rel=stylesheet' });
      res.end();
    });
    try {
      const res = await fetch(server.origin + '/start', { redirect: 'manual' });
      const headers = [...res.headers.entries()] as [string, string][];
      const links = extractFromHeaders(res.status, headers, server.origin + '/start');
      expect(links.map((l) => `${l.hop} ${l.url}`).sort()).toEqual([`E ${server.origin}/style.css`, `R ${server.origin}/target?x=1`]);
    } finally {
      await server.close();
    }
  });
});

describe('parseLinkHeader', () => {
  it('splits on commas outside <> and quotes', () => {
    expect(parseLinkHeader('<a,b>; rel="x, y", <c>; title="t"')).toEqual([
      { target: 'a,b', rel: 'x, y' },
      { target: 'c', rel: '' },
    ]);
  });
});

describe('refreshTarget', () => {
  it('follows the WHATWG declarative refresh steps', () => {
    expect(refreshTarget('0;url=/a')).toBe('/a');
    expect(refreshTarget('0; URL = "/b" ')).toBe('/b');
    expect(refreshTarget("1.5, '/c'")).toBe('/c');
    expect(refreshTarget('0 /d')).toBe('/d');
    expect(refreshTarget('5')).toBeNull();
    expect(refreshTarget('url=/no-delay')).toBeNull();
    expect(refreshTarget('')).toBeNull();
  });
});

describe('inferredLinks', () => {
  it('gives /favicon.ico on the same origin with hop I', () => {
    expect(inferredLinks('https://site.test:8443/deep/page?q=1')).toEqual([
      { url: 'https://site.test:8443/favicon.ico', hop: 'I', context: 'inferred/favicon' },
    ]);
    expect(inferredLinks('ftp://site.test/')).toEqual([]);
    expect(inferredLinks('nonsense')).toEqual([]);
  });
});
