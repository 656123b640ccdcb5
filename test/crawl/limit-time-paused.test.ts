/**
 * --limit-time counts the time a crawl ran, not the time it was paused: a crawl on an injected
 * clock with a one-minute limit, paused for an hour after ten seconds, resumes and finishes its
 * site; one that runs past the minute stops at the limit.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import { FAST } from '../helpers/run-crawl.ts';
import { startStyledSite, type StyledSite } from '../fixtures/styled-site.ts';

const HOUR = 3_600_000;

describe('--limit-time over running time', () => {
  let site: StyledSite;
  const dirs: string[] = [];
  const newDir = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-limit-time-'));
    dirs.push(d);
    return d;
  };
  beforeAll(async () => {
    site = await startStyledSite({ pages: 20 });
  });
  afterAll(async () => {
    await site.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('an hour paused does not use up a one-minute limit', async () => {
    // The crawl's clock moves only when the test moves it (a day ahead of the real one, so every
    // politeness time the chain sets on the real clock has passed).
    let t = Date.now() + 86_400_000;
    const crawl = await startCrawl({ dir: newDir(), settings: { ...FAST, scope: 'host', seeds: [site.seed], limitTimeS: 60 }, clock: () => t });
    let paused = false;
    crawl.on((e) => {
      if (e.type === 'state' && e.state === 'paused' && !paused) {
        paused = true;
        t += HOUR;
        crawl.resume();
      }
    });
    expect(crawl.state).toBe('running');
    t += 10_000;
    crawl.pause();
    const final = await crawl.finished();
    expect(paused).toBe(true);
    expect(final.pausedMs).toBe(HOUR);
    expect(final.elapsedMs).toBe(10_000 + HOUR);
    expect(final.finishReason).toBe('frontier-empty');
    expect(final.pages).toBe(site.pages);
  }, 60_000);

  it('a crawl that runs past the limit stops at it', async () => {
    let t = Date.now() + 86_400_000;
    const crawl = await startCrawl({ dir: newDir(), settings: { ...FAST, scope: 'host', seeds: [site.seed], limitTimeS: 60 }, clock: () => t });
    t += 61_000;
    const final = await crawl.finished();
    expect(final.finishReason).toBe('limit-time');
    expect(final.pages).toBeLessThan(site.pages);
  }, 60_000);
});
