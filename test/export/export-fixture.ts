/**
 * A real crawl of the fixture site (pages, CSS, images, redirects, a revisit, gzip/br/chunked
 * bodies, a second host) into a temporary archive directory, for the export tests.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FAST } from '../helpers/run-crawl.ts';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import { startFixtureSite } from '../fixtures/fixture-site.ts';
import type { FixtureSite } from '../fixtures/fixture-site.ts';

export interface CrawledArchive {
  site: FixtureSite;
  dir: string;
  /** A scratch folder for export outputs. */
  out: string;
  cleanup(): Promise<void>;
}

export async function crawlFixture(prefix: string): Promise<CrawledArchive> {
  const site = await startFixtureSite();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `trove-${prefix}-`));
  const dir = path.join(root, 'archive');
  const out = path.join(root, 'out');
  fs.mkdirSync(out);
  const crawl = await startCrawl({
    dir,
    settings: {
      ...FAST,
      name: 'fixture',
      seeds: [site.origin + '/'],
    },
  });
  await crawl.finished();
  return {
    site,
    dir,
    out,
    async cleanup() {
      await site.close();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
