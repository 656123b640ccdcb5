/**
 * What another connection (the UI, `trove status`) sees of a crawl under group commit: while it
 * runs, the outcomes the crawl has counted become visible to a read-only connection on the same
 * file without any pause (the group's timer commits them); once it is paused, everything it did is
 * committed, so the reader's counts equal the crawl's own snapshot exactly; and after the end, the
 * reader sees the whole crawl. Waits poll observable state with a bounded number of attempts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../helpers/poll-until.ts';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import { recordTypeCode } from '../../core/archive/record-type-key.ts';
import { startTreeSite, type TreeSite } from '../fixtures/tree-site.ts';

const PAGES = 200;

const until = (what: string, cond: () => boolean, attempts = 800) => pollUntil(what, cond, { attempts, everyMs: 25 });

describe('readers of a crawl under group commit', () => {
  let site: TreeSite;
  let dir: string;
  beforeAll(async () => {
    site = await startTreeSite({ pages: PAGES, delayMs: 5 });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-group-readers-'));
  });
  afterAll(async () => {
    await site.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('see the crawl while it runs, all of it when paused, and everything at the end', async () => {
    const crawl = await startCrawl({
      dir,
      settings: { seeds: [site.seed], concurrency: 4, perHost: 4, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, maxRetries: 0 },
    });
    const reader = new Database(path.join(dir, 'crawl.sqlite'), { readonly: true });
    const seen = () => reader.prepare('SELECT done + failed AS n FROM frontier_stats').get() as { n: number };
    const rows = () => (reader.prepare(`SELECT count(*) AS n FROM records WHERE record_type = ${recordTypeCode('response')}`).get() as { n: number }).n;
    try {
      let downloaded = 0;
      crawl.on((e) => {
        if (e.type === 'snapshot') downloaded = e.snapshot.downloaded + e.snapshot.failed;
      });
      await until('some pages downloaded', () => downloaded >= 20);
      // Running: what the crawl had counted a moment ago reaches the reader without a pause.
      const target = downloaded;
      await until('the reader to see the running crawl', () => seen().n >= target);
      expect(crawl.state).toBe('running');

      crawl.pause();
      await until('paused', () => crawl.state === 'paused');
      const snap = crawl.snapshot();
      expect(seen().n).toBe(snap.downloaded + snap.failed);
      expect(crawl.ctx.group.state).toBe('idle');

      crawl.resume();
      expect(crawl.ctx.group.state).toBe('open');
      const final = await crawl.finished();
      expect(final.state).toBe('finished');
      expect(seen().n).toBe(final.downloaded + final.failed);
      expect(rows()).toBeGreaterThanOrEqual(PAGES);
    } finally {
      reader.close();
    }
  }, 120_000);
});
