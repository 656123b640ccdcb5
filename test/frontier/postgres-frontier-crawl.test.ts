/**
 * The crawl engine, unchanged, over the PostgreSQL frontier: the fixture site crawled once with
 * the directory's SQLite frontier and once with a PostgreSQL one gives the same captures (WARC
 * records read back with warcio) and the same outcome counts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import type { CrawlSettings } from '../../core/api/settings.ts';
import { createPostgresFrontier } from '../../core/frontier/postgres-frontier.ts';
import type { PostgresFrontier } from '../../core/frontier/postgres-frontier.ts';
import { startFixtureSite } from '../fixtures/fixture-site.ts';
import { readWarcDir } from '../helpers/read-warcs.ts';
import { startTestPostgres } from '../helpers/postgres-server.ts';

const server = await startTestPostgres();
if (typeof server === 'string') console.warn(`PostgreSQL crawl test skipped: ${server}`);
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  if (typeof server !== 'string') await server.stop();
});

const settings = (origin: string): Partial<CrawlSettings> => ({
  name: 'fixture',
  seeds: [origin + '/'],
  minDelayMs: 0,
  maxDelayMs: 0,
  delayFactor: 0,
  maxRetries: 0,
  concurrency: 4,
  minFreeDiskBytes: 0,
});

describe.skipIf(typeof server === 'string')('a crawl over the PostgreSQL frontier', () => {
  it('captures what the same crawl over SQLite captures', async () => {
    const pgs = server as Exclude<typeof server, string>;
    const site = await startFixtureSite();
    try {
      const crawlOnce = async (frontier?: () => PostgresFrontier) => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-pg-crawl-'));
        dirs.push(dir);
        let pgf: PostgresFrontier | undefined;
        const crawl = await startCrawl({
          dir,
          settings: settings(site.origin),
          frontier: frontier && (() => (pgf = frontier())),
        });
        const final = await crawl.finished();
        pgf?.close();
        const records = await readWarcDir(path.join(dir, 'warcs'));
        const captured = records.filter((r) => r.type === 'response').map((r) => r.targetUri).sort();
        return { final, captured };
      };
      const sqlite = await crawlOnce();
      const crawl = pgs.freshSchema('crawl');
      const viaPg = await crawlOnce(() => createPostgresFrontier({ url: pgs.url, crawl, worker: 'only' }));
      expect(viaPg.final).toMatchObject({ state: 'finished', finishReason: 'frontier-empty', queued: 0 });
      expect(viaPg.captured.length).toBeGreaterThan(10);
      expect(viaPg.captured).toEqual(sqlite.captured);
      for (const k of ['downloaded', 'failed'] as const) expect(viaPg.final[k]).toBe(sqlite.final[k]);
    } finally {
      await site.close();
    }
  }, 120_000);
});
