/**
 * A page limit keeps pages whole: with 8 connections and 8 fetches per host it captures exactly
 * the limit's number of pages, still fetches every stylesheet (with its @import and the images
 * it points at), image, iframe and redirect those pages need, and finishes with "limit-pages".
 * Every captured page is then replayed through core replay(), and every in-scope embed it (or
 * its stylesheets) names must be archived. Pages are counted in the WARCs by warcio, an
 * independent reader. Resume raises and clears the limit; the URI limit is exact too and says
 * so when robots.txt used it up before the first page.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resumeCrawl, startCrawl } from '../../core/crawl/start-crawl.ts';
import { openArchive } from '../../core/archive/archive-dir.ts';
import { missingEmbeds } from '../helpers/replay-embeds.ts';
import { readWarcFile } from '../helpers/read-warcs.ts';
import { startStyledSite, type StyledSite } from '../fixtures/styled-site.ts';

const fast = { scope: 'host' as const, concurrency: 8, perHost: 8, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, maxRetries: 0 };

/** Every page-level 200 HTML response in the WARCs (pages are /doc/…; /frame/… are embeds). */
async function capturedPages(dir: string): Promise<string[]> {
  const warcs = fs.readdirSync(path.join(dir, 'warcs')).filter((f) => /\.warc(\.gz)?$/.test(f));
  const pages: string[] = [];
  for (const f of warcs) {
    for (const r of await readWarcFile(path.join(dir, 'warcs', f))) {
      if (r.type === 'response' && r.status === 200 && r.targetUri && /\/doc\/\d+\.html$/.test(r.targetUri)) pages.push(r.targetUri);
    }
  }
  return pages;
}

describe('page limit', () => {
  let site: StyledSite;
  const dirs: string[] = [];
  const newDir = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-limit-'));
    dirs.push(d);
    return d;
  };
  beforeAll(async () => {
    site = await startStyledSite({ pages: 400, delayMs: 2 });
  });
  afterAll(async () => {
    await site.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('captures exactly 100 pages with 8 connections, each of which replays with all its embeds', async () => {
    const dir = newDir();
    const crawl = await startCrawl({ dir, settings: { ...fast, seeds: [site.seed], limitPages: 100 } });
    const logs: string[] = [];
    crawl.on((e) => e.type === 'log' && logs.push(e.code));
    const final = await crawl.finished();
    expect(final.finishReason).toBe('limit-pages');
    expect(final.pages).toBe(100);
    const pages = await capturedPages(dir);
    expect(new Set(pages).size).toBe(100);
    expect(pages.length).toBe(100);
    expect(logs).toContain('PAGE_LIMIT_REACHED');

    const archive = openArchive(dir, { create: false });
    try {
      const { missing, checked } = await missingEmbeds(archive, new Set(pages), (u) => u.startsWith(site.origin));
      expect(missing).toEqual([]);
      // The chain a limited crawl used to cut: stylesheet → @import → background image.
      for (const u of ['/static/site.css', '/static/base.css', '/static/bg.png']) expect(checked.has(site.origin + u)).toBe(true);
    } finally {
      archive.close();
    }

    // Nothing past the limit was fetched: no page beyond the 100 captured.
    const fetchedPages = [...site.hits.keys()].filter((p) => /^\/doc\/\d+\.html$/.test(p));
    expect(fetchedPages.length).toBe(100);

    // Resume raises the limit…
    const more = await (await resumeCrawl(dir, { limitPages: 130 })).finished();
    expect(more.finishReason).toBe('limit-pages');
    expect(more.pages).toBe(130);
    expect(new Set(await capturedPages(dir)).size).toBe(130);
    // …and 0 clears it: the crawl runs to the end of the site.
    const rest = await (await resumeCrawl(dir, { limitPages: 0 })).finished();
    expect(rest.finishReason).toBe('frontier-empty');
    expect(rest.pages).toBe(site.pages);
  }, 120_000);

  it('does not count a link that turns out not to be a page, nor an HTML iframe', async () => {
    const dir = newDir();
    const final = await (await startCrawl({ dir, settings: { ...fast, seeds: [site.seed], limitPages: 12 } })).finished();
    expect(final.pages).toBe(12);
    const frames = (await capturedFrames(dir)).length;
    expect(frames).toBeGreaterThan(0); // /doc/0.html and /doc/10.html hold iframes
    const texts = [...site.hits.keys()].filter((p) => p.startsWith('/files/'));
    expect(texts.length).toBeGreaterThan(0); // fetched under the limit, its page slot given back
    expect(new Set(await capturedPages(dir)).size).toBe(12);
  }, 60_000);

  it('counts every fetch against the URI limit, robots.txt included, and says so when no page was reached', async () => {
    const one = newDir();
    const crawl = await startCrawl({ dir: one, settings: { ...fast, seeds: [site.seed], limitUris: 1 } });
    const first = await crawl.finished();
    expect(first.finishReason).toBe('limit-uris');
    expect(first.downloaded + first.failed).toBe(1);
    expect(first.message).toMatch(/before any page was captured.*robots\.txt.*--limit-uris 2/);

    const dir = newDir();
    const final = await (await startCrawl({ dir, settings: { ...fast, seeds: [site.seed], limitUris: 25 } })).finished();
    expect(final.finishReason).toBe('limit-uris');
    expect(final.downloaded + final.failed).toBe(25);
  }, 60_000);
});

async function capturedFrames(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const f of fs.readdirSync(path.join(dir, 'warcs')).filter((x) => /\.warc(\.gz)?$/.test(x))) {
    for (const r of await readWarcFile(path.join(dir, 'warcs', f))) if (r.type === 'response' && r.targetUri?.includes('/frame/')) out.push(r.targetUri);
  }
  return out;
}
