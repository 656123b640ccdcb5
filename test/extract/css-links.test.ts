import { describe, expect, it } from 'vitest';
import { extractCss } from '../../core/extract/css-links.ts';

const BASE = 'http://site.test/css/main.css';

function urls(css: string, maxLinks = 1000): string[] {
  return extractCss(css, BASE, maxLinks).map((l) => l.url);
}

describe('extractCss', () => {
  it('finds url() in every quoting style, all as embeds', () => {
    const links = extractCss(`a{background:url(a.png)} b{background:url('b.png')} c{background:url("c.png")}
      d{background:URL(  d.png  )} e{background:url( "e.png" )}`, BASE, 100);
    expect(links.map((l) => `${l.hop} ${l.context} ${l.url}`)).toEqual([
      'E css/url() http://site.test/css/a.png',
      'E css/url() http://site.test/css/b.png',
      'E css/url() http://site.test/css/c.png',
      'E css/url() http://site.test/css/d.png',
      'E css/url() http://site.test/css/e.png',
    ]);
  });

  it('finds @import with a string or url()', () => {
    const links = extractCss(`@import "reset.css"; @import 'print.css' print; @import url(fonts.css); @IMPORT url("/abs.css") screen;`, BASE, 100);
    expect(links.map((l) => `${l.context} ${l.url}`)).toEqual([
      'css/@import http://site.test/css/reset.css',
      'css/@import http://site.test/css/print.css',
      'css/@import http://site.test/css/fonts.css',
      'css/@import http://site.test/abs.css',
    ]);
  });

  it('unescapes CSS escapes', () => {
    expect(urls(String.raw`a{background:url(with\)paren.png)} b{background:url("q\"uote.png")} c{background:url(\66 ile.png)} d{background:url('line\
cont.png')}`)).toEqual([
      'http://site.test/css/with)paren.png',
      'http://site.test/css/q%22uote.png',
      'http://site.test/css/file.png',
      'http://site.test/css/linecont.png',
    ]);
  });

  it('finds image-set() strings and resolves fonts and cursors', () => {
    expect(urls(`x{background-image:image-set("a-1x.png" 1x, url(a-2x.png) 2x); cursor:url(c.cur),auto}
      @font-face{src:url(f.woff2) format("woff2"), url(f.woff) format("woff")}
      y{background-image:-webkit-image-set('w.png' 1x)}`)).toEqual([
      'http://site.test/css/a-1x.png',
      'http://site.test/css/a-2x.png',
      'http://site.test/css/c.cur',
      'http://site.test/css/f.woff2',
      'http://site.test/css/f.woff',
      'http://site.test/css/w.png',
    ]);
  });

  it('ignores comments, plain strings, data: URIs, fragments and empty url()', () => {
    expect(urls(`/* url(commented.png) */ a{content:"url(in-string.png)"; background:url(data:image/png;base64,AAA=)}
      b{clip-path:url(#clip)} c{background:url()} d{background:url('')}`)).toEqual([]);
  });

  it('matches the webarchive-commons style-node cases (tolerates stray quotes)', () => {
    expect(urls('url(foo.gif)')).toEqual(['http://site.test/css/foo.gif']);
    expect(urls(`url('foo.gif')`)).toEqual(['http://site.test/css/foo.gif']);
    expect(urls(String.raw`url(\"foo.gif\")`)).toEqual(['http://site.test/css/foo.gif']);
    expect(urls(String.raw`url(\'foo.gif\')`)).toEqual(['http://site.test/css/foo.gif']);
    expect(urls(`url(''foo.gif'')`)).toEqual(['http://site.test/css/foo.gif']);
    expect(urls(`url(  foo.gif  )`)).toEqual(['http://site.test/css/foo.gif']);
    expect(urls(`url('''')`)).toEqual([]);
    expect(urls(`url('foo.gif'')`)).toEqual(['http://site.test/css/foo.gif']);
    for (const bad of ['some css', 'url()', 'url () ', "url ('')", "url (' ')", `url('")`, "url(')", `url('"')`, "url(''''')"]) {
      expect(urls(bad)).toEqual([]);
    }
  });

  it('runs in linear time on hostile input (no hang)', () => {
    // No timing bound: a blow-up would not finish within the test's timeout; speed belongs to benchmarks.
    urls('url(' + "'".repeat(500_000) + 'foo.gif' + "'".repeat(499_000));
    urls('url('.repeat(200_000));
    urls('/*'.repeat(200_000));
    urls('"'.repeat(200_001) + '\\'.repeat(100_000));
    urls('image-set('.repeat(100_000));
  });

  it('caps at maxLinks, de-duplicates, and returns [] for a bad base', () => {
    const css = Array.from({ length: 50 }, (_, i) => `.c${i}{background:url(i${i}.png)} .d{background:url(i0.png)}`).join('\n');
    expect(urls(css, 10)).toHaveLength(10);
    expect(urls(css).length).toBe(50);
    expect(extractCss('a{background:url(a.png)}', 'no base', 10)).toEqual([]);
  });
});
