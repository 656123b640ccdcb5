/**
 * The crawl's live counters keep only what the snapshot shows. A per-host tally was once kept
 * here, written on every outcome and never read (the monitor's per-host table comes from the
 * frontier's queues), growing with every host of a wide crawl.
 */
import { describe, expect, it } from 'vitest';
import { CrawlStats } from '../../core/crawl/crawl-stats.ts';

describe('CrawlStats', () => {
  it('keeps no per-host tally, however many hosts a crawl meets', () => {
    const stats = new CrawlStats();
    for (let i = 0; i < 1000; i++) {
      stats.recordOutcome({ time: 1_000_000 + i, status: 200, outcome: 'HTTP 200', url: `http://h${i}.example/`, hopsPath: '', mime: 'text/html', bytes: 10, durationMs: 1, duplicate: false, page: true });
    }
    expect(Object.keys(stats).sort()).toEqual(['mimeTypes', 'recent', 'scopeRejections', 'statusCodes', 'totals', 'window']);
    expect(stats.totals.pages).toBe(1000);
    expect(stats.recent.length).toBeLessThanOrEqual(50);
  });
});
