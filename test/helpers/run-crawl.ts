/**
 * Run one real crawl into a temporary directory and read back what it left: the final
 * snapshot, crawl.log as parsed lines, scope.log, and (on demand) the WARC records.
 * Defaults are fast and local: no delays, no retries, no free-disk guard.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import type { CrawlSettings } from '../../core/api/settings.ts';
import type { CrawlSnapshot } from '../../core/api/crawl-snapshot.ts';
import { readWarcDir, type ReadRecord } from './read-warcs.ts';

export interface LogLine {
  status: number;
  size: number;
  url: string;
  hopsPath: string;
  via: string;
  mime: string;
  /** When the crawler started the fetch (ms since epoch), and how long it took; null without a fetch. */
  fetchStart: number | null;
  durationMs: number | null;
  annotations: string[];
}

/** `20261121090000080+43` → [start ms, duration ms]. */
function fetchTiming(field: string | undefined): [number | null, number | null] {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{3})\+(\d+)$/.exec(field ?? '');
  if (!m) return [null, null];
  const [, y, mo, d, h, mi, s, ms, dur] = m.map(Number) as number[];
  return [Date.UTC(y!, mo! - 1, d!, h!, mi!, s!, ms!), dur!];
}

export interface CrawlRun {
  dir: string;
  final: CrawlSnapshot;
  log: LogLine[];
  scopeLog: string[];
  /** The crawl.log line of `url` (the last one when robots.txt was fetched more than once). */
  line(url: string): LogLine | undefined;
  records(): Promise<ReadRecord[]>;
  cleanup(): void;
}

export const FAST: Partial<CrawlSettings> = {
  name: 'test',
  delayFactor: 0,
  minDelayMs: 0,
  maxDelayMs: 0,
  maxRetries: 0,
  concurrency: 4,
  minFreeDiskBytes: 0,
};

function readLines(file: string): string[] {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

export async function runCrawl(settings: Partial<CrawlSettings>): Promise<CrawlRun> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-test-crawl-'));
  const crawl = await startCrawl({ dir, settings: { ...FAST, ...settings } });
  const final = await crawl.finished();
  const log = readLines(path.join(dir, 'logs', 'crawl.log')).map((l): LogLine => {
    const f = l.split(/\s+/);
    const [fetchStart, durationMs] = fetchTiming(f[8]);
    return {
      status: Number(f[1]),
      size: Number(f[2]),
      url: f[3]!,
      hopsPath: f[4]!,
      via: f[5]!,
      mime: f[6]!,
      fetchStart,
      durationMs,
      annotations: f[11] === '-' || !f[11] ? [] : f[11].split(','),
    };
  });
  return {
    dir,
    final,
    log,
    scopeLog: readLines(path.join(dir, 'logs', 'scope.log')),
    line: (url) => log.findLast((l) => l.url === url),
    records: () => readWarcDir(path.join(dir, 'warcs')),
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
