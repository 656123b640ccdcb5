/**
 * Crawl lifecycle: pause holds new claims and lets in-flight fetches finish; resume continues;
 * stop finishes in-flight work and closes files; a hard stop aborts fetches and still leaves
 * valid files; limits finish the crawl with their reason and leave it resumable with a higher
 * limit.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import type { CrawlState } from '../../core/api/crawl-snapshot.ts';
import { verifyCrawlDir } from '../helpers/verify-crawl-dir.ts';
import { startTreeSite, type TreeSite } from '../fixtures/tree-site.ts';

const fast = { concurrency: 4, perHost: 4, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, maxRetries: 0 };

describe('crawl lifecycle', () => {
  let site: TreeSite;
  const dirs: string[] = [];
  const newDir = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-life-'));
    dirs.push(d);
    return d;
  };
  beforeAll(async () => {
    site = await startTreeSite({ pages: 200, delayMs: 10 });
  });
  afterAll(async () => {
    await site.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('pauses (in-flight fetches finish, nothing new is claimed) and resumes to the end', async () => {
    const dir = newDir();
    const crawl = await startCrawl({ dir, settings: { ...fast, seeds: [site.seed] } });
    const states: CrawlState[] = [];
    crawl.on((e) => e.type === 'state' && states.push(e.state));
    while (crawl.snapshot().downloaded < 10) await new Promise((r) => setTimeout(r, 10));
    crawl.pause();
    while (crawl.state !== 'paused') await new Promise((r) => setTimeout(r, 10));
    const frozen = crawl.snapshot();
    expect(frozen.inFlight).toBe(0);
    const hitsAtPause = [...site.hits.values()].reduce((a, b) => a + b, 0);
    await new Promise((r) => setTimeout(r, 300));
    expect([...site.hits.values()].reduce((a, b) => a + b, 0)).toBe(hitsAtPause);
    crawl.resume();
    const final = await crawl.finished();
    expect(final.finishReason).toBe('frontier-empty');
    expect(final.downloaded).toBeGreaterThanOrEqual(201);
    expect(states).toEqual(expect.arrayContaining(['running', 'pausing', 'paused', 'stopping', 'finished']));
  });

  it('stops gracefully, and a hard stop still leaves valid files that resume', async () => {
    const dir = newDir();
    const crawl = await startCrawl({ dir, settings: { ...fast, seeds: [site.seed] } });
    while (crawl.snapshot().downloaded < 10) await new Promise((r) => setTimeout(r, 10));
    crawl.stop();
    crawl.stop({ now: true });
    const final = await crawl.finished();
    expect(final.state).toBe('finished');
    expect(final.finishReason).toBe('operator');
    const check = await verifyCrawlDir(dir);
    expect(check.openFiles).toEqual([]);
    expect(check.indexOnly).toEqual([]);
    expect(check.warcOnly).toEqual([]);
    const again = await startCrawl({ dir });
    const done = await again.finished();
    expect(done.finishReason).toBe('frontier-empty');
    expect(done.downloaded).toBeGreaterThanOrEqual(201);
  });

  it('finishes at a limit with its reason, and resumes with a higher limit', async () => {
    const dir = newDir();
    const crawl = await startCrawl({ dir, settings: { ...fast, seeds: [site.seed], limitPages: 20 } });
    const first = await crawl.finished();
    expect(first.finishReason).toBe('limit-pages');
    expect(first.pages).toBeGreaterThanOrEqual(20);
    expect(first.pages).toBeLessThan(20 + 8);
    expect(first.queued).toBeGreaterThan(0);
    const more = await startCrawl({ dir, settings: { limitPages: 60 } });
    const second = await more.finished();
    expect(second.finishReason).toBe('limit-pages');
    expect(second.pages).toBeGreaterThanOrEqual(60);
    const rest = await startCrawl({ dir, settings: { limitPages: 0 } });
    expect((await rest.finished()).finishReason).toBe('frontier-empty');
  });

  it('finishes at the URI, byte and time limits too', async () => {
    const a = await (await startCrawl({ dir: newDir(), settings: { ...fast, seeds: [site.seed], limitUris: 15 } })).finished();
    expect(a.finishReason).toBe('limit-uris');
    const b = await (await startCrawl({ dir: newDir(), settings: { ...fast, seeds: [site.seed], limitBytes: 20_000 } })).finished();
    expect(b.finishReason).toBe('limit-bytes');
    const c = await (await startCrawl({ dir: newDir(), settings: { ...fast, seeds: [site.seed], concurrency: 1, perHost: 1, limitTimeS: 1 } })).finished();
    expect(c.finishReason).toBe('limit-time');
    const d = await (await startCrawl({ dir: newDir(), settings: { ...fast, seeds: [site.seed], maxTotalWarcBytes: 30_000 } })).finished();
    expect(d.finishReason).toBe('limit-warc-bytes');
  });

  it('refuses a second crawler on the same directory', async () => {
    const dir = newDir();
    const crawl = await startCrawl({ dir, settings: { ...fast, seeds: [site.seed], limitUris: 5 } });
    await expect(startCrawl({ dir })).rejects.toMatchObject({ code: 'CRAWL_DIR_LOCKED' });
    await crawl.finished();
  });
});
