/**
 * A page's screenshot from the capture index, on a real browser crawl (real Chromium, the
 * browser fixture site on 127.0.0.1, port 0): every page the browser loaded has one, found by
 * pageScreenshot; its bytes are a PNG, and warcio reads the same bytes back from the WARC as a
 * `resource` record `urn:view:<page>` concurrent to the page's response. An HTTP crawl's pages
 * have none; the newest is the monitor's.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import { findChromium } from '../e2e/harness.ts';
import { openArchive, type Archive } from '../../core/archive/archive-dir.ts';
import { latestScreenshot, pageScreenshot } from '../../core/archive/page-screenshot.ts';
import { listPages } from '../../core/archive/record-query.ts';
import { startBrowserSite, type BrowserSiteServer } from '../helpers/browser-site-server.ts';
import { readWarcDir, type ReadRecord } from '../helpers/read-warcs.ts';

const chromium = findChromium();

const fast = { concurrency: 2, perHost: 2, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, maxRetries: 0, maxHops: 1 };
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe.skipIf(!chromium)('page screenshots', () => {
  let site: BrowserSiteServer;
  const dirs: string[] = [];
  const archives: Archive[] = [];
  const newDir = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-shots-'));
    dirs.push(d);
    return d;
  };
  const open = (dir: string) => {
    const a = openArchive(dir);
    archives.push(a);
    return a;
  };
  beforeAll(async () => {
    site = await startBrowserSite();
  });
  afterAll(async () => {
    for (const a of archives) a.close();
    await site.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('finds each browser-crawled page’s screenshot, a PNG that warcio reads as its urn:view: resource record', async () => {
    const dir = newDir();
    const crawl = await startCrawl({ dir, settings: { ...fast, maxHops: 0, seeds: [`${site.origin}/spa.html`, `${site.origin}/lazy.html`], browser: { enabled: true, tabs: 1, path: chromium! } } });
    const final = await crawl.finished();
    expect(final.state).toBe('finished');

    const records = await readWarcDir(path.join(dir, 'warcs'));
    expect(records.length).toBeGreaterThan(0);
    const byId = new Map<string, ReadRecord>(records.map((r) => [r.recordId, r]));
    const archive = open(dir);
    const pages = listPages(archive, 1000).rows;
    expect(pages.length).toBeGreaterThanOrEqual(2);

    let newest = 0;
    for (const p of pages) {
      const shot = await pageScreenshot(archive, p.id);
      expect(shot, p.url).not.toBeNull();
      newest = Math.max(newest, shot!.recordId);
      expect(shot!.url).toBe(p.url);
      expect(shot!.mime).toBe('image/png');
      const bytes = Buffer.from(shot!.dataUrl.slice('data:image/png;base64,'.length), 'base64');
      expect(shot!.dataUrl.startsWith('data:image/png;base64,')).toBe(true);
      expect(bytes.subarray(0, 8)).toEqual(PNG_MAGIC);
      expect(bytes.length).toBe(shot!.bytes);

      // The same record, read by warcio: a resource of type image/png, concurrent to the page's response.
      const pageRow = archive.index.byId(p.id)!;
      const shotRow = archive.index.byId(shot!.recordId)!;
      const warc = byId.get(shotRow.recordId!) ?? byId.get(`<${shotRow.recordId}>`);
      if (!warc) throw new Error(`warcio found no record ${shotRow.recordId}`);
      expect(warc.type).toBe('resource');
      expect(warc.targetUri).toBe(`urn:view:${p.url}`);
      expect(warc.warcHeaders['Content-Type']).toBe('image/png');
      expect(warc.concurrentTo.map((c) => c.replace(/^<|>$/g, ''))).toContain(pageRow.recordId!.replace(/^<|>$/g, ''));
      expect(warc.payload.equals(bytes)).toBe(true);
    }
    const latest = await latestScreenshot(archive);
    expect(latest?.recordId).toBe(newest);
  }, 120_000);

  it('has none for an HTTP crawl’s pages, and no newest', async () => {
    const dir = newDir();
    const crawl = await startCrawl({ dir, settings: { ...fast, maxHops: 0, seeds: [`${site.origin}/`] } });
    expect((await crawl.finished()).state).toBe('finished');
    const archive = open(dir);
    const pages = listPages(archive, 10).rows;
    expect(pages.length).toBe(1);
    expect(await pageScreenshot(archive, pages[0]!.id)).toBeNull();
    expect(await latestScreenshot(archive)).toBeNull();
  });
});
