/**
 * QA benchmark (issue 34): pages per second of `trove qa` on Debian's Python 3.11 docs (about 530
 * pages; apt-get install nginx python3-doc) with 1, 2 and 4 tabs, beside the pages per second of
 * the Trove crawl that made the archive (measured in the same run, in this process). The crawl is
 * an HTTP crawl, so QA's reference is replay alone: the figure is the cost of replaying and
 * screenshotting a page, which every reference pays. `--pages=N` scores only the first N pages
 * (the crawl is always whole). Target: at least 3 pages/s with 4 tabs on 2 cores.
 *
 * Timings on a loaded machine are printed with `uptime`'s load average beside them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nginxAvailable, startNginx } from './bench-nginx.ts';
import { startCrawl } from '../core/crawl/start-crawl.ts';
import { runQa } from '../core/qa/qa-run.ts';
import { listQaPages } from '../core/archive/qa-store.ts';
import { findChromium } from '../core/browser/find-chromium.ts';

const DOCS = '/usr/share/doc/python3-doc/html';

function loadAverage(): string {
  return os.loadavg().map((x) => x.toFixed(2)).join(', ');
}

async function main(): Promise<void> {
  if (!nginxAvailable() || !fs.existsSync(DOCS)) {
    console.log('qa bench skipped: needs Debian packages nginx and python3-doc (apt-get install nginx python3-doc)');
    return;
  }
  let chromium: string;
  try {
    chromium = findChromium();
  } catch {
    console.log('qa bench skipped: needs Chromium (apt-get install chromium)');
    return;
  }
  const pagesArg = process.argv.find((a) => a.startsWith('--pages='));
  const pages = pagesArg ? Number(pagesArg.slice('--pages='.length)) : undefined;
  const tabsArg = process.argv.find((a) => a.startsWith('--tabs='));
  const tabsList = tabsArg ? tabsArg.slice('--tabs='.length).split(',').map(Number) : [1, 2, 4];
  const nginx = await startNginx(fs.realpathSync(DOCS));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-qa-bench-'));
  try {
    const dir = path.join(tmp, 'docs');
    const t0 = performance.now();
    const crawl = await startCrawl({ dir, settings: { name: 'qa-bench', seeds: [nginx.origin + '/'], delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, maxRetries: 0, minFreeDiskBytes: 0 } });
    const final = await crawl.finished();
    const crawlSec = (performance.now() - t0) / 1000;
    console.log(`\nqa: Python 3.11 docs on nginx ${nginx.origin}, ${os.availableParallelism()} cores, Chromium ${chromium}`);
    console.log(`crawl (HTTP, in-process): ${final.pages} pages, ${final.downloaded} URIs in ${crawlSec.toFixed(1)} s; load average ${loadAverage()}`);
    const rows: string[] = [];
    for (const tabs of tabsList) {
      const t = performance.now();
      const run = await runQa(dir, { tabs, chromiumPath: chromium, ...(pages ? { pages } : {}) });
      const sec = (performance.now() - t) / 1000;
      rows.push(
        `  ${String(tabs).padStart(4)}  ${String(run.pages).padStart(5)}  ${sec.toFixed(1).padStart(7)}  ${(run.pages / sec).toFixed(2).padStart(7)}  ` +
          `severe ${run.bands.severe} moderate ${run.bands.moderate} good ${run.bands.good}   load ${loadAverage()}`,
      );
      console.log(rows.at(-1));
      for (const p of listQaPages(dir).filter((x) => x.band !== 'good' && x.runId === run.id)) {
        console.log(`        ${p.band} ${p.url} missing ${p.missingUrls.slice(0, 3).join(' ') || '-'} errors ${p.errorUrls.length} script errors ${p.scriptErrors.length}`);
      }
    }
    console.log(`\n  tabs  pages  seconds  pages/s  bands (and load average after)`);
    for (const r of rows) console.log(r);
    console.log(`  the crawl that made the archive: ${(final.pages / crawlSec).toFixed(2)} pages/s (${(final.downloaded / crawlSec).toFixed(2)} URIs/s)`);
    console.log('  target: >= 3 pages/s with 4 tabs on 2 cores (figures above are on this machine as loaded now)');
  } finally {
    await nginx.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
