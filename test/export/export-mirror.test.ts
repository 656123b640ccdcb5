import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseOf, openArchive } from '../../core/archive/archive-dir.ts';
import type { Archive } from '../../core/archive/archive-dir.ts';
import { exportMirror } from '../../core/export/export-mirror.ts';
import type { MirrorExportResult } from '../../core/export/export-mirror.ts';
import { extractCss } from '../../core/extract/css-links.ts';
import { extractHtml } from '../../core/extract/html-links.ts';
import { recordTypeList } from '../../core/archive/record-type-key.ts';
import { crawlFixture } from './export-fixture.ts';
import type { CrawledArchive } from './export-fixture.ts';

/** Every file below `dir`, as `/`-separated relative paths. */
function walk(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...walk(path.join(dir, e.name), rel));
    else out.push(rel);
  }
  return out;
}

const MIRROR_HOST = 'mirror.invalid';

/** Links of a mirrored file, found by the crawler's own extractors (not the rewriter), resolved as if the mirror were served at http://mirror.invalid/. */
function linksOf(root: string, rel: string): string[] {
  const body = fs.readFileSync(path.join(root, rel));
  const base = `http://${MIRROR_HOST}/${rel.split('/').map(encodeURIComponent).join('/')}`;
  if (rel.endsWith('.css')) return extractCss(body.toString('utf8'), base, 10_000).map((o) => o.url);
  return extractHtml(body, { baseUrl: base, maxLinks: 10_000 }).outlinks.map((o) => o.url);
}

describe('mirror export', () => {
  let c: CrawledArchive;
  let archive: Archive;
  let root: string;
  let result: MirrorExportResult;
  let files: string[];

  beforeAll(async () => {
    c = await crawlFixture('mirror');
    archive = openArchive(c.dir, { create: false });
    root = path.join(c.out, 'mirror');
    result = await exportMirror(archive, root);
    files = walk(root);
  }, 60_000);

  afterAll(async () => {
    archive?.close();
    await c?.cleanup();
  });

  const site = () => `127.0.0.1_${c.site.port}`;
  const read = (rel: string) => fs.readFileSync(path.join(root, rel));

  it('writes one file per captured 200 URL, plus the root index, and nothing else', () => {
    expect(files).toContain('index.html');
    expect(files).not.toContain('.trove-mirror-plan.sqlite');
    expect(files.length).toBe(result.files + 1);
    for (const f of ['index.html', 'a.html', 'deep/2.html', 'style.css', 'more.css', 'img/logo.png', 'img/logo-2x.png', 'font.woff', 'app.js', 'gzip.html', 'latin1.html', 'dup-copy.html', 'robots.txt']) {
      expect(files, f).toContain(`${site()}/${f}`);
    }
    // A directory URL gets index.html; a URL with no extension gets one from its MIME type.
    expect(files).toContain(`${site()}/search.html`);
    expect(files).toContain(`localhost_${c.site.port}/cdn/photo.png`);
    expect(files.some((f) => f.includes('missing') || f.includes('error') || f.includes('redirect'))).toBe(false);
    expect(result.placeholders).toBe(0);
  });

  it('writes bodies as a browser gets them: decoded, revisits resolved', () => {
    expect(read(`${site()}/gzip.html`).toString()).toContain('Gzip page');
    expect(read(`${site()}/br.html`).toString()).toContain('Brotli page');
    expect(read(`${site()}/dup-copy.html`).toString()).toContain('identical payload');
    expect(read(`${site()}/img/logo.png`).subarray(1, 4).toString()).toBe('PNG');
  });

  it('re-encodes a non-UTF-8 page as UTF-8 with a byte order mark', () => {
    const b = read(`${site()}/latin1.html`);
    expect(b.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(true);
    expect(b.toString('utf8')).toContain('Café crème');
  });

  it('rewrites links to mirrored URLs as relative paths and leaves the rest absolute', () => {
    const home = read(`${site()}/index.html`).toString('utf8');
    expect(home).toContain('href="a.html"');
    expect(home).toContain('href="b.html#frag"');
    expect(home).toContain('srcset="img/logo-2x.png 2x, img/logo-3x.png 3x"');
    expect(home).toContain(`src="../localhost_${c.site.port}/cdn/photo.png"`);
    expect(home).toContain(`url(&quot;img/bg.png&quot;)`);
    expect(home).toContain('href="style.css"');
    expect(home).toContain(`href="${c.site.origin}/missing"`);
    expect(home).toContain(`href="${c.site.otherOrigin}/offsite.html"`);
    expect(home).toContain('href="mailto:someone@example.org"');
    const css = read(`${site()}/style.css`).toString('utf8');
    expect(css).toContain('@import "more.css"');
    expect(css).toContain('url("img/css-bg.png")');
    expect(css).toContain('url("font.woff")');
    expect(read(`${site()}/deep/1.html`).toString()).toContain('href="2.html"');
    expect(read(`${site()}/a.html`).toString()).toContain('href="deep/1.html"');
    expect(result.linksLocal).toBeGreaterThan(20);
    expect(result.linksAbsolute).toBeGreaterThan(0);
  });

  it('every relative link in every mirrored HTML and CSS file points at a file that exists', () => {
    let followed = 0;
    for (const rel of files.filter((f) => /\.(html|css)$/.test(f))) {
      for (const link of linksOf(root, rel)) {
        const u = new URL(link);
        if (u.hostname !== MIRROR_HOST) continue;
        const target = decodeURIComponent(u.pathname.slice(1));
        const abs = path.resolve(root, target);
        expect(abs.startsWith(root + path.sep), `${rel} → ${link}`).toBe(true);
        expect(fs.statSync(abs, { throwIfNoEntry: false })?.isFile(), `${rel} → ${link}`).toBe(true);
        followed++;
      }
    }
    expect(followed).toBeGreaterThan(30);
  });

  it('no absolute link points at a URL the mirror holds', () => {
    const mirrored = new Set<string>();
    for (const r of databaseOf(archive).prepare(`SELECT target_uri FROM records WHERE status = 200 AND record_type IN ${recordTypeList(['response', 'revisit'])}`).all() as { target_uri: string }[]) {
      mirrored.add(r.target_uri);
    }
    for (const rel of files.filter((f) => f.endsWith('.html') && f !== 'index.html')) {
      for (const link of linksOf(root, rel)) {
        if (new URL(link).hostname !== MIRROR_HOST) expect(mirrored.has(link), `${rel} → ${link}`).toBe(false);
      }
    }
  });

  it('lists the seeds and sites in the root index.html', () => {
    const index = read('index.html').toString('utf8');
    expect(index).toContain(`<a href="${site()}/index.html">${c.site.origin}/</a>`);
    expect(index).toContain(`<a href="${site()}/index.html">${site()}</a>`);
    expect(index).toContain(`localhost_${c.site.port}/`);
  });

  it('refuses a folder that is not empty', async () => {
    await expect(exportMirror(archive, root)).rejects.toMatchObject({ code: 'EXPORT_TARGET_NOT_EMPTY' });
  });
});
