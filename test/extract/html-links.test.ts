import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WARCParser } from 'warcio';
import { extractHtml, MAX_TEXT_CHARS } from '../../core/extract/html-links.ts';
import type { HtmlExtraction } from '../../core/extract/html-links.ts';
import { corpusPath } from '../helpers/corpus.ts';

const BASE = 'http://site.test/dir/page.html';

function html(source: string | Buffer, opts: { baseUrl?: string; contentType?: string; maxLinks?: number; agentToken?: string } = {}): HtmlExtraction {
  const body = typeof source === 'string' ? Buffer.from(source, 'utf8') : source;
  return extractHtml(body, { baseUrl: opts.baseUrl ?? BASE, maxLinks: opts.maxLinks ?? 1000, ...opts });
}

/** `hop context url` lines, easy to compare and to read in a failure. */
function lines(r: HtmlExtraction): string[] {
  return r.outlinks.map((l) => `${l.hop} ${l.context} ${l.url}`);
}

describe('extractHtml: link kinds and hop types', () => {
  it('gives L to navigation, E to embeds, R to meta refresh', () => {
    const r = html(`<!doctype html><html><head>
      <meta http-equiv="refresh" content="0; url=/moved">
      <link rel="stylesheet" href="s.css"><link rel="icon" href="/fav.png"><link rel="preload" href="f.woff2" as="font">
      <link rel="modulepreload" href="m.js"><link rel="manifest" href="app.webmanifest">
      <link rel="canonical" href="/canon"><link rel="alternate" href="feed.rss"><link rel="preconnect" href="https://cdn.test">
      <script src="app.js"></script>
      </head><body background="bg.jpg">
      <a href="a.html">a</a><map><area href="area.html"></map>
      <img src="i.png"><embed src="e.swf"><object data="o.swf"></object>
      <video src="v.mp4" poster="poster.jpg"><source src="v.webm"><track src="t.vtt"></video><audio src="a.mp3"></audio>
      <iframe src="frame.html"></iframe><frameset><frame src="f.html"></frameset>
      <table background="t.gif"><tr><td background="td.gif">x</td></tr></table>
      <input type="image" src="go.png">
      <form action="/search"><input name="q"></form>
      </body></html>`);
    expect(lines(r)).toEqual([
      'R meta/@content http://site.test/moved',
      'E link/@href http://site.test/dir/s.css',
      'E link/@href http://site.test/fav.png',
      'E link/@href http://site.test/dir/f.woff2',
      'E link/@href http://site.test/dir/m.js',
      'E link/@href http://site.test/dir/app.webmanifest',
      'L link/@href http://site.test/canon',
      'L link/@href http://site.test/dir/feed.rss',
      'E script/@src http://site.test/dir/app.js',
      'E body/@background http://site.test/dir/bg.jpg',
      'L a/@href http://site.test/dir/a.html',
      'L area/@href http://site.test/dir/area.html',
      'E img/@src http://site.test/dir/i.png',
      'E embed/@src http://site.test/dir/e.swf',
      'E object/@data http://site.test/dir/o.swf',
      'E video/@src http://site.test/dir/v.mp4',
      'E video/@poster http://site.test/dir/poster.jpg',
      'E source/@src http://site.test/dir/v.webm',
      'E track/@src http://site.test/dir/t.vtt',
      'E audio/@src http://site.test/dir/a.mp3',
      'E iframe/@src http://site.test/dir/frame.html',
      'E frame/@src http://site.test/dir/f.html',
      'E table/@background http://site.test/dir/t.gif',
      'E td/@background http://site.test/dir/td.gif',
      'E input/@src http://site.test/dir/go.png',
      'L form/@action http://site.test/search',
    ]);
    expect(r.metaRefresh).toBe('http://site.test/moved');
  });

  it('follows GET forms only', () => {
    const r = html('<form action="/get" method="GET"></form><form action="/post" method="post"></form><form action="/d"></form>');
    expect(lines(r)).toEqual(['L form/@action http://site.test/get', 'L form/@action http://site.test/d']);
  });

  it('reads every srcset and imagesrcset candidate', () => {
    const r = html(`<img srcset="a.png 1x, b.png 2x,c.png 3x">
      <picture><source srcset="https://cdn.test/w400.jpg 400w, https://cdn.test/w800.jpg 800w"></picture>
      <img srcset="data:image/png;base64,AAAA 1x, d,e.png 2x">
      <link rel="preload" as="image" imagesrcset="p1.png 1x, p2.png 2x">`);
    expect(lines(r)).toEqual([
      'E img/@srcset http://site.test/dir/a.png',
      'E img/@srcset http://site.test/dir/b.png',
      'E img/@srcset http://site.test/dir/c.png',
      'E source/@srcset https://cdn.test/w400.jpg',
      'E source/@srcset https://cdn.test/w800.jpg',
      'E img/@srcset http://site.test/dir/d,e.png',
      'E link/@imagesrcset http://site.test/dir/p1.png',
      'E link/@imagesrcset http://site.test/dir/p2.png',
    ]);
  });

  it('runs style attributes and <style> blocks through the CSS scanner (E)', () => {
    const r = html(`<style>@import "print.css"; body { background: url('img/bg.png') } .x{background-image:image-set("a1.png" 1x)}</style>
      <div style="background:url(d.png)">x</div><p style='list-style: url("&quot;q.png&quot;")'>y</p>`);
    expect(lines(r)).toEqual([
      'E style/@import http://site.test/dir/print.css',
      'E style/url() http://site.test/dir/img/bg.png',
      'E style/image-set() http://site.test/dir/a1.png',
      'E div/@style http://site.test/dir/d.png',
      'E p/@style http://site.test/dir/q.png',
    ]);
  });

  it('reads SVG links, CDATA and noscript fallbacks', () => {
    const r = html(`<svg><a xlink:href="/svg-link">t</a><image href="pic.png"/><use href="#icon"/><use href="sprite.svg#i"/>
      <![CDATA[<a href="/not-a-link">]]></svg>
      <noscript><img src="fallback.gif"></noscript>`);
    expect(lines(r)).toEqual([
      'L a/@xlink:href http://site.test/svg-link',
      'E image/@href http://site.test/dir/pic.png',
      'E use/@href http://site.test/dir/sprite.svg',
      'E img/@src http://site.test/dir/fallback.gif',
    ]);
  });

  it('lets HTML elements break out of an unclosed <svg>', () => {
    const r = html('<svg><circle r="1"><p>text</p><script>var s = "<a href=/in-script>";</script><link rel=stylesheet href="/late.css"><img src="/after.png">');
    expect(lines(r)).toEqual(['E link/@href http://site.test/late.css', 'E img/@src http://site.test/after.png']);
    expect(r.text).toBe('text');
  });

  it('treats data-* URLs and URL-like strings in event handlers as speculative (X)', () => {
    const r = html(`<div data-href="/lazy"></div><img data-src="late.jpg"><button onclick="location.href='next.html'">go</button>
      <a onclick="window.open('popup.php','n','width=500,height=300')">p</a>`);
    expect(lines(r)).toEqual([
      'X div/@data-href http://site.test/lazy',
      'X img/@data-src http://site.test/dir/late.jpg',
      'X button/@onclick http://site.test/dir/next.html',
      'X a/@onclick http://site.test/dir/popup.php',
    ]);
  });

  it('takes no URL from attributes named like Object properties (constructor, __proto__)', () => {
    // The rule tables were plain objects: `constructor` matched Object.prototype.constructor and
    // produced an outlink whose hop was a function. They are Maps now.
    const r = html('<div constructor="/c" __proto__="/p" hasownproperty="/h"><a constructor="/a" href="/ok">x</a></div><svg><a constructor="/s"/></svg>');
    expect(lines(r)).toEqual(['L a/@href http://site.test/ok']);
  });

  it('closes foreign content the same way however it is spelled', () => {
    const r = html(`<svg><foreignObject><p>in</p></foreignObject><image href="/after-fo.png"/></svg>
      <svg><desc></html><image href="/after-html-end.png"/></svg><math><mtext></math><img src="/img.png">`);
    expect(lines(r)).toEqual([
      'E image/@href http://site.test/after-fo.png',
      'E image/@href http://site.test/after-html-end.png',
      'E img/@src http://site.test/img.png',
    ]);
    expect(r.text).toBe('in');
  });

  it('never reads links inside script, comments or textarea', () => {
    const r = html(`<script>document.write('<a href="/in-script">')</script><!-- <a href="/in-comment"> -->
      <textarea><a href="/in-textarea"></textarea><title><a href="/in-title"></title><a href="/real">r</a>`);
    expect(lines(r)).toEqual(['L a/@href http://site.test/real']);
  });
});

describe('extractHtml: URL rules', () => {
  it('keeps only http(s), drops fragments, counts unparsable values', () => {
    const r = html(`<a href="javascript:void(0)">j</a><a href="mailto:a@b.test">m</a><a href="tel:+1">t</a>
      <a href="data:text/html,hi">d</a><a href="about:blank">ab</a><a href="blob:http://site.test/x">b</a>
      <a href="#top">frag</a><a href="">empty</a><a href="  /trim#x  ">ok</a>
      <a href="http://exa mple.test/">bad host</a><a href="http://[::1">bad ipv6</a><a href="https://OTHER.test/Ä?q=1#f">idn</a>`);
    expect(r.outlinks.map((l) => l.url)).toEqual(['http://site.test/trim', 'https://other.test/%C3%84?q=1']);
    expect(r.skipped).toBe(2);
  });

  it('resolves repeated targets with different fragments once, identically', () => {
    const r = html(`<a href="f.html#a">1</a><a href="f.html#b">2</a><img src="f.html#c"><a href="f.html">3</a>
      <a href="sp #x">4</a><a href="sp">5</a><a href="http://[::1#x">bad</a><a href="http://[::1#y">bad</a>
      <a href="q?x=1#a">6</a><a href=" q?x=1#b ">7</a><base href="http://other.test/"><a href="f.html#z">8</a>`);
    expect(lines(r)).toEqual([
      'L a/@href http://site.test/dir/f.html',
      'E img/@src http://site.test/dir/f.html',
      // a space before '#' is inside the URL (percent-encoded), not trailing
      'L a/@href http://site.test/dir/sp%20',
      'L a/@href http://site.test/dir/sp',
      'L a/@href http://site.test/dir/q?x=1',
      'L a/@href http://other.test/f.html',
    ]);
    expect(r.skipped).toBe(2);
  });

  it('resolves against <base href> from where it appears; only the first base counts', () => {
    const r = html(`<head><link rel="stylesheet" href="early.css"><base href="https://cdn.test/base/"><base href="http://ignored.test/">
      </head><body><a href="rel.html">r</a><img src="/root.png"></body>`);
    expect(r.baseHref).toBe('https://cdn.test/base/');
    expect(lines(r)).toEqual([
      'E link/@href http://site.test/dir/early.css',
      'L a/@href https://cdn.test/base/rel.html',
      'E img/@src https://cdn.test/root.png',
    ]);
  });

  it('ignores a relative or non-http base, resolving it against the page', () => {
    expect(html('<base href="sub/"><a href="x">x</a>').outlinks[0]!.url).toBe('http://site.test/dir/sub/x');
    expect(html('<base href="javascript:alert(1)"><a href="x">x</a>').outlinks[0]!.url).toBe('http://site.test/dir/x');
  });

  it('parses meta refresh variants', () => {
    expect(html('<meta http-equiv="Refresh" content="5; URL=\'/q\'">').metaRefresh).toBe('http://site.test/q');
    expect(html('<meta http-equiv="refresh" content="3,next.html">').metaRefresh).toBe('http://site.test/dir/next.html');
    expect(html('<meta http-equiv="refresh" content="10">').metaRefresh).toBeUndefined();
    expect(html('<meta http-equiv="refresh" content="0;url=mailto:x@y.test">').metaRefresh).toBeUndefined();
  });

  it('decodes entities in attributes', () => {
    const r = html('<a href="/view?id=logo&amp;action=edit">e</a><img src="https://img.test/v?id=1&amp;res=10x16">');
    expect(r.outlinks.map((l) => l.url)).toEqual(['http://site.test/view?id=logo&action=edit', 'https://img.test/v?id=1&res=10x16']);
  });
});

describe('extractHtml: title, text and meta robots', () => {
  it('takes the first title with entities decoded and whitespace collapsed', () => {
    const r = html('<title>  Title &ndash; &quot;Title&quot;\n  here </title><svg><title>svg title</title></svg><title>second</title>');
    expect(r.title).toBe('Title – "Title" here');
  });

  it('keeps the first 4,096 characters of a long title, however it is cut into tokens', () => {
    const words = 'word '.repeat(2000);
    expect(html(`<title>${words}</title>`).title).toBe(words.slice(0, 4096).trim());
    expect(html(`<title>${'x'.repeat(9000)}</title>`).title).toBe('x'.repeat(4096));
  });

  it('has a null title when the title is missing or empty', () => {
    expect(html('<p>no title</p>').title).toBeNull();
    expect(html('<title> </title>').title).toBeNull();
  });

  it('collects visible text only, words kept apart by blocks, not by inline tags', () => {
    const r = html(`<html><head><title>T</title><style>p{}</style><script>var x=1</script></head>
      <body><h1>Head</h1><p>Para<b>graph</b> one</p><noscript>enable js</noscript><template>tpl</template>
      <div>two&nbsp;&amp;   three</div>\n\n<ul><li>a<li>b</ul></body></html>`);
    expect(r.text).toBe('Head Paragraph one two & three a b');
  });

  it('reads meta robots for robots and for our agent token', () => {
    expect(html('<meta name="robots" content="NOINDEX, nofollow">').metaRobots).toEqual({ nofollow: true, noindex: true });
    expect(html('<meta name="ROBOTS" content="none">').metaRobots).toEqual({ nofollow: true, noindex: true });
    expect(html('<meta name="trovebot" content="nofollow">', { agentToken: 'TroveBot' }).metaRobots).toEqual({ nofollow: true, noindex: false });
    expect(html('<meta name="otherbot" content="nofollow">', { agentToken: 'trovebot' }).metaRobots).toEqual({ nofollow: false, noindex: false });
  });
});

describe('extractHtml: character encodings', () => {
  it('decodes windows-1252 by default', () => {
    const body = Buffer.concat([Buffer.from('<title>Caf'), Buffer.from([0xe9, 0x20, 0x80]), Buffer.from('</title>')]);
    const r = html(body);
    expect(r.charset).toBe('windows-1252');
    expect(r.title).toBe('Café €');
  });

  it('takes the Content-Type charset over the meta charset', () => {
    const body = Buffer.concat([Buffer.from('<meta charset="utf-8"><title>'), Buffer.from([0xe9]), Buffer.from('</title>')]);
    const r = html(body, { contentType: 'text/html; charset="ISO-8859-1"' });
    expect(r.charset).toBe('windows-1252');
    expect(r.title).toBe('é');
  });

  it('decodes Shift_JIS named by <meta charset>', () => {
    const title = Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea]); // 日本語
    const body = Buffer.concat([Buffer.from('<html><head><meta charset="Shift_JIS"><title>'), title, Buffer.from('</title></head><body><a href="/ja">x</a>')]);
    const r = html(body, { contentType: 'text/html' });
    expect(r.charset).toBe('shift_jis');
    expect(r.title).toBe('日本語');
  });

  it('decodes EUC-JP named by http-equiv content-type', () => {
    const body = Buffer.concat([
      Buffer.from('<meta http-equiv="Content-Type" content="text/html; charset=euc-jp"><title>'),
      Buffer.from([0xc6, 0xfc, 0xcb, 0xdc]), // 日本
      Buffer.from('</title>'),
    ]);
    expect(html(body).title).toBe('日本');
  });

  it('lets a BOM win over everything', () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<meta charset="windows-1252"><title>Ünïcødé</title>')]);
    const r = html(body, { contentType: 'text/html; charset=shift_jis' });
    expect(r.charset).toBe('utf-8');
    expect(r.title).toBe('Ünïcødé');
  });

  it('recognises undeclared UTF-8 and ignores unknown labels', () => {
    expect(html(Buffer.from('<title>naïve – ok</title>')).charset).toBe('utf-8');
    expect(html(Buffer.from('<meta charset="no-such-encoding"><title>x</title>')).charset).toBe('windows-1252');
  });
});

describe('extractHtml: hostile and broken input', () => {
  it('reads broken HTML as browsers do', () => {
    const r = html(`<A HREF = http://site.test/unquoted >x</a><IMG SRC='single.png'<p><a href=/ok>ok</a>
      <a href="/unclosed <a href=/swallowed>s</a><div> <a href="/after">`);
    // An unclosed quote runs to the next quote, as in a browser: "/swallowed" is part of that value.
    expect(r.outlinks.map((l) => l.url)).toEqual([
      'http://site.test/unquoted',
      'http://site.test/dir/single.png',
      'http://site.test/ok',
      'http://site.test/unclosed%20%3Ca%20href=/swallowed%3Es%3C/a%3E%3Cdiv%3E%20%3Ca%20href=',
    ]);
  });

  it('returns nothing (no throw) for empty, binary or unparsable-base input', () => {
    expect(html('').outlinks).toEqual([]);
    expect(html(Buffer.from([0, 1, 2, 0xff, 0xfe, 0x00, 0x3c, 0x61])).outlinks).toEqual([]);
    const r = html('<a href="/x">x</a>', { baseUrl: 'not a url' });
    expect(r.outlinks).toEqual([]);
  });

  it('survives 100,000 levels of nesting without recursion', () => {
    const depth = 100_000;
    const body = Buffer.from('<html><body>' + '<div><span>'.repeat(depth) + '<a href="/deep">deep</a>' + '</span></div>'.repeat(depth));
    const r = html(body);
    expect(lines(r)).toEqual(['L a/@href http://site.test/deep']);
    expect(r.text).toBe('deep');
  });

  it('caps 300,000 links at maxLinks and says so', () => {
    const parts = ['<html><body>'];
    for (let i = 0; i < 300_000; i++) parts.push(`<a href="/p/${i}">${i}</a>`);
    const r = html(Buffer.from(parts.join('')), { maxLinks: 5000 });
    expect(r.outlinks).toHaveLength(5000);
    expect(r.truncatedLinks).toBe(true);
    expect(r.outlinks[4999]!.url).toBe('http://site.test/p/4999');
  });

  it('caps visible text at 1 MiB', () => {
    const r = html(Buffer.from('<p>' + 'word '.repeat(400_000)));
    expect(r.text.length).toBe(MAX_TEXT_CHARS);
  });

  it('treats absurdly long attribute values as unparsable', () => {
    const r = html(`<a href="/${'x'.repeat(100_000)}">x</a><a href="/fine">f</a>`);
    expect(r.outlinks.map((l) => l.url)).toEqual(['http://site.test/fine']);
    expect(r.skipped).toBe(1);
  });
});

describe('extractHtml: webarchive-commons link-extraction-test.warc', () => {
  it('finds the links upstream ExtractingParseObserverTest expects, with Heritrix hop types', async () => {
    const parser = new WARCParser(fs.createReadStream(corpusPath('warc', 'webarchive-commons', 'link-extraction-test.warc')));
    const pages: { url: string; r: HtmlExtraction }[] = [];
    for await (const record of parser) {
      if (record.warcType !== 'response') continue;
      const body = Buffer.from(await record.readFully(false));
      // The last record has no WARC-Target-URI; give it one on the same site.
      const url = record.warcTargetURI ?? 'http://www.example.com/onclick.html';
      const contentType = record.httpHeaders?.headers.get('content-type') ?? undefined;
      pages.push({ url, r: extractHtml(body, { baseUrl: url, maxLinks: 1000, ...(contentType ? { contentType } : {}) }) });
    }
    expect(pages).toHaveLength(7);

    const [html4, video, poor, fbVideo, dataHref, fbSocial, onclick] = pages.map((p) => p.r);
    expect(html4!.title).toBe('Test XHTML Link Extraction');
    expect(html4!.baseHref).toBe('http://www.example.com/');
    expect(html4!.metaRefresh).toBe('http://www.example.com/redirected.html');
    expect(lines(html4!)).toEqual([
      'R meta/@content http://www.example.com/redirected.html',
      'E body/@background http://www.example.com/background.jpg',
      'L a/@href http://www.example.com/a-href.html',
      // upstream also lists "#anchor": a fragment-only link names the page itself, so Trove skips it
      'E img/@src http://www.example.com/image.png',
      'E img/@src http://www.example.com/image.gif',
      'L img/@longdesc http://example.com/image-description.html',
      'E object/@data http://www.example.com/helloworld.swf',
      'L q/@cite http://www.example.com/shakespeare.html',
      'L blockquote/@cite http://www.example.com/shakespeare-long.html',
    ]);
    expect(html4!.text).toContain('outrageous fortune, …');

    expect(video!.title).toBe('Test HTML5 Video Tag');
    expect(lines(video!)).toEqual([
      'L link/@href http://www.example.com/video.html', // "http:///www.example.com/video.html", as WHATWG reads it
      'L link/@href http://www.example.com/video.rss',
      'E video/@poster https://archive.org/download/WebmVp8Vorbis/webmvp8.gif',
      'E source/@src https://archive.org/download/WebmVp8Vorbis/webmvp8.webm',
      'E source/@src https://archive.org/download/WebmVp8Vorbis/webmvp8_512kb.mp4',
      'E source/@src https://archive.org/download/WebmVp8Vorbis/webmvp8.ogv',
    ]);

    expect(poor!.title).toBe('Testing poor HTML5');
    expect(lines(poor!)).toEqual(['L a/@href http://www.example.com/']);

    expect(fbVideo!.title).toBe('fb-video - Embedded Videos - Social Plugins');
    const fb = 'https://www.facebook.com/facebook/videos/10153231379946729/';
    // a/@href to the same URL is the same (url, L) link as blockquote/@cite, so it is kept once
    expect(lines(fbVideo!)).toEqual([`X div/@data-href ${fb}`, `L blockquote/@cite ${fb}`, 'L a/@href https://www.facebook.com/facebook/']);

    expect(dataHref!.title).toBeNull(); // an empty <title>
    const dh = lines(dataHref!);
    for (const expected of [
      'E link/@href http://www.example.com/standard.css',
      'X link/@data-href http://www.example.com/green.css',
      'X link/@data-href http://www.example.com/blue.css',
      'E source/@src http://edge.flowplayer.org/bauhaus.webm',
      'E source/@src http://edge.flowplayer.org/bauhaus.mp4',
      'X button/@data-href http://edge.flowplayer.org/functional.webm',
      'X article/@data-href http://www.example.com/content-page',
      'L a/@href http://www.example.com/content-page',
      'L a/@href http://www.example.com/tags/content',
      'L a/@href http://www.example.com/tags/headlines',
      'X div/@data-href http://grabaperch.com/',
      'X a/@data-href http://codecanyon.net/user/CodingJack',
      'E img/@src http://www.example.com/jackbox/img/thumbs/4.jpg',
      'X a/@data-href http://venobox-destination/',
      'X div/@data-href http://www.youtube.com/v/itTskyFLSS8&rel=0&autohide=1&showinfo=0&autoplay=1',
      'E iframe/@src http://www.youtube.com/v/itTskyFLSS8&rel=0&autohide=1&showinfo=0',
    ]) {
      expect(dh).toContain(expected);
    }

    expect(fbSocial!.title).toBeNull();
    expect(fbSocial!.outlinks.map((l) => l.url)).toEqual([
      'http://www.your-domain.com/your-page.html',
      'https://developers.facebook.com/docs/plugins/comments',
      'https://www.facebook.com/zuck/posts/10102735452532991?comment_id=1070233703036185',
      'https://www.facebook.com/zuck',
      'https://developers.facebook.com/docs/plugins/',
      'https://www.facebook.com/facebook',
      'https://www.facebook.com/facebook',
    ]);

    expect(onclick!.title).toBe('Test Extraction of URLs from INPUT onClick Attributes');
    expect(onclick!.outlinks.map((l) => `${l.hop} ${l.context} ${l.url}`)).toEqual([
      'X div/@onclick http://www.example.com/webpage.html',
      'X input/@onclick http://www.example.com/index.html',
      'X input/@onclick http://www.x.com/',
      'X input/@onclick http://www.example.com/button-child.php',
      'X input/@onclick http://example.com/',
      'X input/@onclick http://example.com/location/href/1.html',
      'X input/@onclick http://example.com/location/href/2.html',
    ]);
  });
});
