/**
 * What a page limit leaves in the queue is held back, not left undone (issue 33): a crawl that
 * stops at its page limit says "N held back by the page limit" in its snapshot, its CLI summary
 * and its reports (the Heritrix-style crawl-report.txt too), never "N still queued", and a
 * resume with no limit fetches them. A crawl
 * stopped by another limit before the page limit was reached still reads "still queued".
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resumeCrawl, startCrawl } from '../../core/crawl/start-crawl.ts';
import { openArchive } from '../../core/archive/archive-dir.ts';
import { gatherReport } from '../../core/export/report-data.ts';
import { exportReport } from '../../core/export/export-report.ts';
import { formatSummary } from '../../core/cli/crawl-progress.ts';
import { startStyledSite, type StyledSite } from '../fixtures/styled-site.ts';

const fast = { scope: 'host' as const, concurrency: 4, perHost: 4, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, maxRetries: 0 };

/** The Heritrix-style crawl-report.txt of the crawl, written by `trove export --report`. */
async function heritrixCrawlReport(dir: string): Promise<string> {
  const archive = openArchive(dir, { create: false });
  try {
    const out = path.join(dir, 'reports-test');
    await exportReport(archive, out);
    return fs.readFileSync(path.join(out, 'crawl-report.txt'), 'utf8');
  } finally {
    archive.close();
  }
}

async function report(dir: string) {
  const archive = openArchive(dir, { create: false });
  try {
    return (await gatherReport(archive)).summary;
  } finally {
    archive.close();
  }
}

describe('URIs held back by the page limit', () => {
  let site: StyledSite;
  const dirs: string[] = [];
  const newDir = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-held-'));
    dirs.push(d);
    return d;
  };
  beforeAll(async () => {
    site = await startStyledSite({ pages: 60 });
  });
  afterAll(async () => {
    await site.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('a crawl ended by its page limit says how many it holds back (summary, report), and a resume fetches them', async () => {
    const dir = newDir();
    const final = await (await startCrawl({ dir, settings: { ...fast, seeds: [site.seed], limitPages: 10 } })).finished();
    expect(final.finishReason).toBe('limit-pages');
    expect(final.queued).toBeGreaterThan(0);
    // Everything left is a page the limit holds back: the captured pages' embeds were fetched.
    expect(final.heldByPageLimit).toBe(final.queued);
    const summary = formatSummary(final);
    const uris = summary.find((l) => l.startsWith('  URIs'))!;
    expect(uris).toBe(`  URIs        ${final.downloaded} downloaded, ${final.failed} failed, ${final.queued} held back by the page limit, ${final.pages} HTML pages`);
    expect(uris).not.toContain('still queued');

    const r = await report(dir);
    expect(r.finishReason).toBe('limit-pages');
    expect(r.heldByPageLimit).toBe(final.queued);
    expect(r.queued).toBe(0);
    expect(await heritrixCrawlReport(dir)).toContain(`\nURIs held back by the page limit: ${final.queued}\n`);

    // Resumable as before: without the limit the crawl fetches what was held back, and nothing is held.
    const rest = await (await resumeCrawl(dir, { limitPages: 0 })).finished();
    expect(rest.finishReason).toBe('frontier-empty');
    expect(rest.pages).toBe(site.pages);
    expect(rest.heldByPageLimit).toBe(0);
    expect((await report(dir)).heldByPageLimit).toBe(0);
    expect(await heritrixCrawlReport(dir)).not.toContain('held back');
  }, 60_000);

  it('a crawl stopped by another limit before the page limit was reached reads "still queued"', async () => {
    const dir = newDir();
    const final = await (await startCrawl({ dir, settings: { ...fast, seeds: [site.seed], limitPages: 1000, limitUris: 8 } })).finished();
    expect(final.finishReason).toBe('limit-uris');
    expect(final.queued).toBeGreaterThan(0);
    expect(final.heldByPageLimit).toBe(0);
    expect(formatSummary(final).find((l) => l.startsWith('  URIs'))).toContain(`${final.queued} still queued`);
    const r = await report(dir);
    expect(r.heldByPageLimit).toBe(0);
    expect(r.queued).toBe(final.queued);
  }, 60_000);
});
