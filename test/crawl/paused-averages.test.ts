/**
 * Averages leave out paused time (issue 33): a crawl on an injected clock runs 10 s, is paused
 * for an hour, then resumed; its average URI/s and KB/s are over the 10 s it ran (in the CLI
 * summary and in the Heritrix-style crawl-report.txt), its elapsed time still counts the hour,
 * and the paused time is kept across a resume.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resumeCrawl, startCrawl } from '../../core/crawl/start-crawl.ts';
import { formatSummary } from '../../core/cli/crawl-progress.ts';
import { openArchive } from '../../core/archive/archive-dir.ts';
import { exportReport } from '../../core/export/export-report.ts';
import { FAST } from '../helpers/run-crawl.ts';
import { startStyledSite, type StyledSite } from '../fixtures/styled-site.ts';

const HOUR = 3_600_000;

describe('averages over the time the crawl ran', () => {
  let site: StyledSite;
  const dirs: string[] = [];
  beforeAll(async () => {
    site = await startStyledSite({ pages: 20 });
  });
  afterAll(async () => {
    await site.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('an hour paused is in the elapsed time, not in the averages, and is kept across a resume', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-paused-'));
    dirs.push(dir);
    // The crawl's clock moves only when the test moves it (a day ahead of the real one, so every
    // politeness time the chain sets on the real clock has passed).
    let t = Date.now() + 86_400_000;
    const crawl = await startCrawl({ dir, settings: { ...FAST, scope: 'host', seeds: [site.seed] }, clock: () => t });
    let paused = false;
    crawl.on((e) => {
      if (e.type === 'state' && e.state === 'paused') {
        paused = true;
        t += HOUR; // an hour paused
        crawl.resume();
      }
    });
    expect(crawl.state).toBe('running'); // the loop started before startCrawl resolved
    t += 10_000; // ten seconds of crawling
    crawl.pause();
    const final = await crawl.finished();
    expect(paused).toBe(true);
    expect(final.finishReason).toBe('frontier-empty');
    expect(final.elapsedMs).toBe(10_000 + HOUR);
    expect(final.pausedMs).toBe(HOUR);
    const done = final.downloaded + final.failed;
    expect(done).toBeGreaterThan(20);
    expect(final.avgUrisPerSec).toBeCloseTo(done / 10, 6);
    expect(final.avgKbPerSec).toBeCloseTo(final.bytes / 1024 / 10, 6);
    expect(formatSummary(final)[2]).toBe(
      `  elapsed     1:00:10  (${final.avgUrisPerSec.toFixed(1)} URI/s, ${Math.round(final.avgKbPerSec)} KB/s on average while running; paused 1:00:00)`,
    );

    // crawl-report.txt: the whole duration, the time paused, and rates over the 10 s it ran.
    const archive = openArchive(dir, { create: false });
    try {
      const r = await exportReport(archive, path.join(dir, 'reports-test'));
      const text = fs.readFileSync(path.join(r.dir, 'crawl-report.txt'), 'utf8');
      expect(text).toContain('\nduration: 1h0m10s0ms\ntime paused: 1h0m0s0ms\n');
      expect(text).toContain(`\nURIs/sec: ${(r.data.summary.urisProcessed / 10).toFixed(2)}\n`);
      expect(text).toContain(`\nKB/sec: ${Math.round(r.data.summary.totalBytes / 1024 / 10)}\n`);
    } finally {
      archive.close();
    }

    // A resume (on the real clock) carries the paused hour on.
    const again = await (await resumeCrawl(dir)).finished();
    expect(again.pausedMs).toBe(HOUR);
  }, 60_000);
});
