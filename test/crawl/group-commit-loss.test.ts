/**
 * A group commit that SQLite rolls back loses nothing. Mid-crawl the crawl's own connection gets
 * `PRAGMA max_page_count` = its present size: the next write that needs a page fails with
 * SQLITE_FULL, and SQLite rolls back the whole open transaction, i.e. the group of claims and
 * completions since the last COMMIT (checked first, so the test cannot pass vacuously). The
 * crawl must pause as for a full disk, and once the limit is lifted resume by itself; at the end
 * every page is captured, the capture index and the WARCs (read back with warcio) agree record
 * for record, no page is stored twice as a full response (the records of the lost group were
 * indexed by reconcile-index.ts, so a page fetched again is a revisit), and crawl.log holds one
 * line per URI. Every wait polls observable state with a bounded number of attempts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import type { CrawlEvent } from '../../core/crawl/crawl-controller.ts';
import { verifyCrawlDir } from '../helpers/verify-crawl-dir.ts';
import { startTreeSite, type TreeSite } from '../fixtures/tree-site.ts';

const PAGES = 300;

async function until(what: string, cond: () => boolean, attempts = 600): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('a lost group commit', () => {
  let site: TreeSite;
  let dir: string;
  beforeAll(async () => {
    site = await startTreeSite({ pages: PAGES, pageBytes: 4000, delayMs: 5 });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-group-loss-'));
  });
  afterAll(async () => {
    await site.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('pauses, reindexes what the WARC holds, re-queues its URIs and finishes with nothing lost or doubled', async () => {
    const crawl = await startCrawl({
      dir,
      settings: { seeds: [site.seed], concurrency: 4, perHost: 4, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, maxRetries: 0 },
    });
    const logs: Extract<CrawlEvent, { type: 'log' }>[] = [];
    let downloaded = 0;
    crawl.on((e) => {
      if (e.type === 'log') logs.push(e);
      if (e.type === 'snapshot') downloaded = e.snapshot.downloaded;
    });
    const { db, group } = crawl.ctx;
    await until('some pages downloaded', () => downloaded >= 40);
    // Rows committed before the limit: the group must lose what came after, not these.
    const pageCount = db.pragma('page_count', { simple: true }) as number;
    db.pragma(`max_page_count = ${pageCount}`);
    await until('the lost group to pause the crawl', () => group.lostGroups > 0 && crawl.state === 'paused');
    // Said by whichever write met the limit first: a unit (the group is lost) or a lone write.
    expect(logs.some((l) => l.code === 'DISK_PAUSED')).toBe(true);
    db.pragma('max_page_count = 1073741823');
    const final = await crawl.finished();
    expect(final.state).toBe('finished');
    expect(final.finishReason).toBe('frontier-empty');
    expect(logs.some((l) => l.code === 'DISK_BACK')).toBe(true);
    // The records the lost group had indexed were indexed again from the WARC.
    expect(logs.some((l) => l.code === 'INDEX_RECONCILED')).toBe(true);

    const check = await verifyCrawlDir(dir);
    expect(check.openFiles).toEqual([]);
    expect(check.indexOnly).toEqual([]);
    expect(check.warcOnly).toEqual([]);
    for (let n = 0; n < PAGES; n++) {
      const url = `${site.origin}/p/${n}.html`;
      expect(check.records.filter((r) => r.type === 'response' && r.targetUri === url).length, url).toBe(1);
    }
    // The lost group held completions: those URIs were fetched again and, their first capture
    // being in the WARC and now indexed, stored as revisits of it. (A URI whose first fetch had
    // written nothing yet when the group was lost is fetched again and stored once, as a response.)
    const refetched = [...site.hits.entries()].filter(([p, n]) => p.startsWith('/p/') && n > 1).length;
    const revisited = new Set(check.records.filter((r) => r.type === 'revisit' && r.targetUri?.includes('/p/')).map((r) => r.targetUri)).size;
    expect(refetched).toBeGreaterThan(0);
    expect(revisited).toBeGreaterThan(0);
    expect(revisited).toBeLessThanOrEqual(refetched);
    console.log(`refetched ${refetched}, revisits ${revisited}; ${logs.filter((l) => /INDEX_RECONCILED|LEASES_REQUEUED|DISK_PAUSED/.test(l.code)).map((l) => l.message).join(' | ')}`);
    const urls = fs.readFileSync(path.join(dir, 'logs', 'crawl.log'), 'utf8').trim().split('\n').map((l) => l.split(/\s+/)[3]);
    expect(new Set(urls).size).toBe(urls.length);
    expect(urls.filter((u) => u!.includes('/p/')).length).toBe(PAGES);
    // The counters went back to what had committed when the group was lost: nothing counted twice.
    expect(final.pages).toBe(PAGES);
    // Nothing is left leased or queued: the lost completions' leases were put back and fetched.
    expect(final.inFlight).toBe(0);
    expect(final.queued).toBe(0);
  }, 120_000);
});
