/**
 * An unexpected error in any processor of the URI chain ends that URI as a −5 through the same
 * disposition as every other outcome: one crawl.log line with the error as its annotation, the
 * stats (failed count, status codes, recent list), the frontier outcome, and an error in the
 * crawl's log; the crawl goes on and its files stay whole. Before the chain, a −5 was logged by
 * hand in the controller and never reached the stats.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import type { Processor } from '../../core/crawl/chain/crawl-uri.ts';
import { verifyCrawlDir } from '../helpers/verify-crawl-dir.ts';
import { startTreeSite, type TreeSite } from '../fixtures/tree-site.ts';

const fast = { concurrency: 2, perHost: 2, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, maxRetries: 0 };

/** A processor that fails for one URL, as a bug would. */
function failingFor(suffix: string, message: string): Processor {
  return {
    name: 'failing',
    reads: { settings: [], services: [] },
    process(_ctx, curi) {
      if (curi.uri.url.endsWith(suffix)) throw new Error(message);
      return 'proceed';
    },
  };
}

describe('URI chain: an unexpected error', () => {
  let site: TreeSite;
  let dir: string;
  beforeAll(async () => {
    site = await startTreeSite({ pages: 12 });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-chain-err-'));
  });
  afterAll(async () => {
    await site.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is a −5 with a crawl.log line and in the stats, after the fetch or before it, and the crawl goes on', async () => {
    const crawl = await startCrawl({ dir, settings: { ...fast, seeds: [site.seed] } });
    // The chain is the crawl's own: a faulty processor after extraction and one among the preconditions.
    const chain = crawl.uriChain;
    chain.processors.splice(chain.processors.findIndex((p) => p.name === 'extract-links') + 1, 0, failingFor('/p/3.html', 'boom after extract'));
    chain.preconditions.push(failingFor('/p/5.html', 'boom, before, the fetch'));
    const errors: string[] = [];
    crawl.on((e) => e.type === 'log' && e.level === 'error' && errors.push(e.message));
    const final = await crawl.finished();

    expect(final.finishReason).toBe('frontier-empty');
    expect(final.statusCodes['-5']).toBe(2);
    expect(final.failed).toBe(2);
    // The ten other pages and their shared image end with their HTTP status as usual.
    expect(final.statusCodes['200']).toBe(10 + 1);
    expect(errors.some((m) => m.includes('/p/3.html') && m.includes('boom after extract'))).toBe(true);
    expect(errors.some((m) => m.includes('/p/5.html'))).toBe(true);

    const lines = fs.readFileSync(path.join(dir, 'logs', 'crawl.log'), 'utf8').trim().split('\n');
    const p3 = lines.filter((l) => l.split(/\s+/)[3]!.endsWith('/p/3.html'));
    const p5 = lines.filter((l) => l.split(/\s+/)[3]!.endsWith('/p/5.html'));
    expect(p3).toHaveLength(1);
    expect(p5).toHaveLength(1);
    const f3 = p3[0]!.split(/\s+/);
    expect(f3[1]).toBe('-5');
    expect(f3[4]).toBe('L'); // hops path and via as for any other outcome
    expect(f3[5]).toBe(site.seed);
    expect(f3[8]).toMatch(/^\d{17}\+\d+$/); // it was fetched: the fetch timing is kept
    expect(f3[11]).toBe('boom_after_extract');
    const f5 = p5[0]!.split(/\s+/);
    expect(f5[1]).toBe('-5');
    expect(f5[8]).toBe('-'); // never fetched
    expect(f5[11]).toBe('boom_before_the_fetch'); // commas would split the annotations field

    // Nothing of the failed URIs is half-archived: the WARCs and the index agree.
    const check = await verifyCrawlDir(dir);
    expect(check.warcOnly).toEqual([]);
    expect(check.indexOnly).toEqual([]);
    expect(check.records.some((r) => r.type === 'response' && r.targetUri?.endsWith('/p/3.html'))).toBe(false);
  });
});
