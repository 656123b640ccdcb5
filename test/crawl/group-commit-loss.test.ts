/**
 * A group commit that SQLite rolls back loses nothing. Mid-crawl the crawl's own connection gets
 * `PRAGMA max_page_count` = its present size: the next write that needs a page fails with
 * SQLITE_FULL, and SQLite rolls back the whole open transaction, i.e. the group of claims and
 * completions since the last COMMIT (checked first, so the test cannot pass vacuously). The
 * crawl must pause as for a full disk, and once the limit is lifted resume by itself; at the end
 * every page is captured, the capture index and the WARCs (read back with warcio) agree record
 * for record, no page is stored twice as a full response (the records of the lost group were
 * indexed by reconcile-index.ts, so a page fetched again is a revisit), and crawl.log holds one
 * line per URI. Stopped instead while the limit still holds, the crawl cannot index those records,
 * so it leaves the WARC `.open` (and says it failed); the next run recovers and reconciles it and
 * ends with the same checks passing. Every wait polls observable state with a bounded number of
 * attempts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../helpers/poll-until.ts';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import type { CrawlEvent } from '../../core/crawl/crawl-controller.ts';
import { verifyCrawlDir } from '../helpers/verify-crawl-dir.ts';
import { startTreeSite, type TreeSite } from '../fixtures/tree-site.ts';

const PAGES = 300;

const until = (what: string, cond: () => boolean, attempts = 600) => pollUntil(what, cond, { attempts, everyMs: 25 });

describe('a lost group commit', () => {
  let site: TreeSite;
  const dirs: string[] = [];
  const newDir = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-group-loss-'));
    dirs.push(d);
    return d;
  };
  beforeAll(async () => {
    site = await startTreeSite({ pages: PAGES, pageBytes: 4000, delayMs: 5 });
  });
  afterAll(async () => {
    await site.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  const settings = () => ({ seeds: [site.seed], concurrency: 4, perHost: 4, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, maxRetries: 0 });

  it('pauses, reindexes what the WARC holds, re-queues its URIs and finishes with nothing lost or doubled', async () => {
    site.hits.clear();
    const dir = newDir();
    const crawl = await startCrawl({ dir, settings: settings() });
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

    const check = await expectWhole(dir);
    // The lost group held completions: those URIs were fetched again and, their first capture
    // being in the WARC and now indexed, stored as revisits of it. (A URI whose first fetch had
    // written nothing yet when the group was lost is fetched again and stored once, as a response.)
    const refetched = [...site.hits.entries()].filter(([p, n]) => p.startsWith('/p/') && n > 1).length;
    const revisited = new Set(check.records.filter((r) => r.type === 'revisit' && r.targetUri?.includes('/p/')).map((r) => r.targetUri)).size;
    expect(refetched).toBeGreaterThan(0);
    expect(revisited).toBeGreaterThan(0);
    expect(revisited).toBeLessThanOrEqual(refetched);
    // The counters went back to what had committed when the group was lost: nothing counted twice.
    expect(final.pages).toBe(PAGES);
    // Nothing is left leased or queued: the lost completions' leases were put back and fetched.
    expect(final.inFlight).toBe(0);
    expect(final.queued).toBe(0);
  }, 120_000);

  it('with a WARC file closed at every write, no record is left unindexed: a file closes only once its rows are in a commit', async () => {
    // Each record group fills its file (warcMaxBytes at the minimum), so every write closes the
    // file before it while other URIs still have rows for that file to add. Were those rows
    // committed after the close, a group lost then would leave records in a closed file that
    // nothing reconciles (only `.open` files are walked): this crawl would end with warcOnly.
    site.hits.clear();
    const dir = newDir();
    const crawl = await startCrawl({ dir, settings: { ...settings(), concurrency: 8, perHost: 8, warcMaxBytes: 1024 } });
    let downloaded = 0;
    crawl.on((e) => {
      if (e.type === 'snapshot') downloaded = e.snapshot.downloaded;
    });
    const { db, group } = crawl.ctx;
    await until('some pages downloaded', () => downloaded >= 60);
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
    // A loaded machine (the whole suite on two cores) can take well over 15 s to reach the next
    // write that must grow the database: more attempts here, and what was seen if none comes.
    await pollUntil('the lost group to pause the crawl', () => group.lostGroups > 0 && crawl.state === 'paused', {
      attempts: 3200,
      everyMs: 25,
      seen: () => `state ${crawl.state}, lost groups ${group.lostGroups}, downloaded ${downloaded}`,
    });
    db.pragma('max_page_count = 1073741823');
    const final = await crawl.finished();
    expect(final.state).toBe('finished');
    expect(fs.readdirSync(path.join(dir, 'warcs')).length).toBeGreaterThan(100);
    await expectWhole(dir);
  }, 120_000);

  it('stopped while the database still refuses writes, it leaves the WARC open; a resume repairs everything', async () => {
    site.hits.clear();
    const dir = newDir();
    const crawl = await startCrawl({ dir, settings: settings() });
    let downloaded = 0;
    crawl.on((e) => {
      if (e.type === 'snapshot') downloaded = e.snapshot.downloaded;
    });
    const { db, group } = crawl.ctx;
    await until('some pages downloaded', () => downloaded >= 40);
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
    await until('the lost group to pause the crawl', () => group.lostGroups > 0 && crawl.state === 'paused');
    crawl.stop();
    // The limit is never lifted on this connection: the records cannot be indexed, so the WARC
    // must stay `.open` for the next run (closing it would hide them from reconcile-index.ts).
    const stopped = await crawl.finished();
    expect(stopped.state).toBe('failed');
    expect(fs.readdirSync(path.join(dir, 'warcs')).some((n) => n.endsWith('.open'))).toBe(true);

    const resumed = await startCrawl({ dir, settings: {} });
    const notes = resumed.startNotes.map((n) => n.code);
    const final = await resumed.finished();
    expect(final.state).toBe('finished');
    expect(final.finishReason).toBe('frontier-empty');
    expect(notes).toContain('WARC_RECOVERED');
    expect(notes).toContain('INDEX_RECONCILED');
    await expectWhole(dir);
  }, 120_000);
});

/** Index and WARCs agree record for record (warcio), one response per page, one log line per URI. */
async function expectWhole(dir: string) {
  const check = await verifyCrawlDir(dir);
  expect(check.openFiles).toEqual([]);
  expect(check.indexOnly).toEqual([]);
  expect(check.warcOnly).toEqual([]);
  const origin = new URL(check.records.find((r) => r.type === 'response')!.targetUri!).origin;
  for (let n = 0; n < PAGES; n++) {
    const url = `${origin}/p/${n}.html`;
    expect(check.records.filter((r) => r.type === 'response' && r.targetUri === url).length, url).toBe(1);
  }
  const urls = fs.readFileSync(path.join(dir, 'logs', 'crawl.log'), 'utf8').trim().split('\n').map((l) => l.split(/\s+/)[3]);
  expect(new Set(urls).size).toBe(urls.length);
  expect(urls.filter((u) => u!.includes('/p/')).length).toBe(PAGES);
  return check;
}
