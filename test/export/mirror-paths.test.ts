import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mirrorSegments, safeSegment } from '../../core/export/mirror-paths.ts';
import { MirrorPlan } from '../../core/export/mirror-plan.ts';
import { rewriteHtml } from '../../core/export/mirror-html.ts';
import { relativeLink } from '../../core/export/mirror-links.ts';
import { surtKey } from '../../core/scope/surt.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-mirror-paths-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const seg = (url: string, mime: string | null = 'text/html') => mirrorSegments(new URL(url), mime).join('/');

describe('mirror paths', () => {
  it('maps host, path, directory URLs, queries and MIME extensions', () => {
    expect(seg('http://Example.org/')).toBe('example.org/index.html');
    expect(seg('https://example.org:8443/a/b/')).toBe('example.org_8443/a/b/index.html');
    expect(seg('http://example.org/page')).toBe('example.org/page.html');
    expect(seg('http://example.org/x.php')).toBe('example.org/x.php.html');
    expect(seg('http://example.org/x.HTM')).toBe('example.org/x.HTM');
    expect(seg('http://example.org/style', 'text/css')).toBe('example.org/style.css');
    expect(seg('http://example.org/data.bin', 'application/octet-stream')).toBe('example.org/data.bin');
    expect(seg('http://example.org/raw', null)).toBe('example.org/raw');
    expect(seg('http://example.org/s?q=1')).toMatch(/^example\.org\/s_[0-9a-f]{10}\.html$/);
    expect(seg('http://example.org/s?q=1')).not.toBe(seg('http://example.org/s?q=2'));
    expect(seg('http://example.org/caf%C3%A9%20au%20lait.html')).toBe('example.org/café au lait.html');
    expect(seg('http://[::1]:8080/')).toBe('__1_8080/index.html');
  });

  it('never yields a segment that climbs out or is illegal on some file system', () => {
    const hostile = [
      'http://x/..%2f..%2fetc/passwd',
      'http://x/%2e%2e/%2e%2e/a',
      'http://x/a/%2e/b',
      'http://x/a%5c..%5c..%5cb',
      'http://x/CON',
      'http://x/nul.txt',
      'http://x/a:b*c?.html',
      'http://x/trailing.',
      'http://x/a//b',
      'http://x/%00nul',
      `http://x/${'long'.repeat(100)}.html`,
    ];
    for (const u of hostile) {
      const segs = mirrorSegments(new URL(u), 'text/html');
      for (const s of segs) {
        expect(s, u).not.toMatch(/^\.\.?$/);
        expect(s, u).not.toMatch(/[\\/:*?"<>|\u0000-\u001f]/);
        expect(s, u).not.toMatch(/^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/i);
        expect(s.endsWith('.') || s.endsWith(' '), u).toBe(false);
        expect(Buffer.byteLength(s), u).toBeLessThanOrEqual(130);
        expect(s.length, u).toBeGreaterThan(0);
      }
      const abs = path.resolve('/mirror', ...segs);
      expect(abs.startsWith('/mirror/'), u).toBe(true);
    }
    expect(safeSegment('..')).toBe('__');
    expect(safeSegment('%2e%2e')).toBe('__');
  });

  it('settles collisions: file vs folder, same name, names differing only in case', () => {
    const plan = new MirrorPlan(path.join(tmp, 'plan.sqlite'));
    const add = (u: string, mime: string | null) => plan.add(surtKey(u), new URL(u), '20240101000000', mime);
    try {
      expect(add('http://x.org/a', null)).toBe('x.org/a');
      expect(add('http://x.org/a/b.html', 'text/html')).toBe('x.org/a_/b.html');
      expect(add('http://x.org/a/c.html', 'text/html')).toBe('x.org/a_/c.html');
      expect(add('http://x.org/a:b.html', 'text/html')).toBe('x.org/a_b.html');
      expect(add('http://x.org/A_B.html', 'text/html')).toBe('x.org/A_B-1.html');
      // URL keys are case-insensitive (python-surt lowercases), so these are one URL.
      expect(add('http://x.org/P.html', 'text/html')).toBe('x.org/P.html');
      expect(add('http://x.org/p.html', 'text/html')).toBe('x.org/P.html');
      expect(plan.pathFor('https://x.org/a/b.html')).toBe('x.org/a_/b.html');
      expect(plan.pathFor('http://x.org/none')).toBeNull();
      expect(plan.count()).toBe(6);
    } finally {
      plan.close();
    }
    expect(fs.existsSync(path.join(tmp, 'plan.sqlite'))).toBe(false);
  });

  it('relative links climb and descend, percent-encoded', () => {
    expect(relativeLink('h/a/b.html', 'h/c/d e.png')).toBe('../c/d%20e.png');
    expect(relativeLink('h/index.html', 'h/index.html')).toBe('index.html');
    expect(relativeLink('index.html', 'h/x#y.html')).toBe('h/x%23y.html');
  });
});

describe('HTML rewriting', () => {
  const rw = (html: string, ct = 'text/html; charset=utf-8') =>
    rewriteHtml(Buffer.from(html, 'utf8'), ct, 'http://site.test/dir/page.html', (raw, base) => {
      const u = new URL(raw, base);
      return u.hostname === 'site.test' ? `LOCAL${u.pathname}` : u.href;
    })?.toString('utf8').replace(/^\ufeff/, '') ?? null;

  it('touches only the URL attributes that change, keeps everything else', () => {
    const html = '<!doctype html>\r\n<P CLASS=x><A HREF = "a.html?x=1&amp;y=2" title="t">A</A><img src=\'i.png\' alt="&lt;"></P>';
    expect(rw(html)).toBe('<!doctype html>\r\n<P CLASS=x><A href="LOCAL/dir/a.html" title="t">A</A><img src="LOCAL/dir/i.png" alt="&lt;"></P>');
  });

  it('leaves scripts, comments, textarea and title text alone', () => {
    const html = '<title><a href="x"></title><script>var s = "<a href=\'y\'>";</script><!-- <a href="z"> --><textarea><img src="q"></textarea>';
    expect(rw(html)).toBeNull();
  });

  it('applies <base href> to later links and removes it', () => {
    const out = rw('<head><base href="http://other.test/b/"><link rel=stylesheet href="s.css"></head><a href="/x">x</a>')!;
    expect(out).toBe('<head><base ><link rel=stylesheet href="http://other.test/b/s.css"></head><a href="http://other.test/x">x</a>');
  });

  it('rewrites <style>, style attributes, srcset, meta refresh and form actions', () => {
    const out = rw(
      '<style>body{background:url(bg.png)} @import "m.css";</style><div style="background:url(\'d.png\')"></div>' +
        '<img srcset="a.png 1x,b.png 2x"><meta http-equiv="Refresh" content="0; url=next.html"><form action="/go"></form>',
    )!;
    expect(out).toContain('<style>body{background:url("LOCAL/dir/bg.png")} @import "LOCAL/dir/m.css";</style>');
    expect(out).toContain('style="background:url(&quot;LOCAL/dir/d.png&quot;)"');
    expect(out).toContain('srcset="LOCAL/dir/a.png 1x,LOCAL/dir/b.png 2x"');
    expect(out).toContain('content="0; url=LOCAL/dir/next.html"');
    expect(out).toContain('action="LOCAL/go"');
  });

  it('does not treat markup inside <svg> as HTML raw text', () => {
    const out = rw('<svg><style>.a{}</style><a href="s.html">x</a></svg><a href="t.html">t</a>')!;
    expect(out).toContain('<a href="LOCAL/dir/s.html">');
    expect(out).toContain('<a href="LOCAL/dir/t.html">');
  });
});
