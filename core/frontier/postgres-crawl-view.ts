/**
 * The whole of a shared crawl as one process sees it from the crawl's database: every worker
 * (host, rate, leases, last heartbeat, from `workers` and the reports in `worker_stats`) and the
 * totals across them. The crawl snapshot of each worker, the CLI progress and `trove status`
 * all read these, so a worker row means the same everywhere. The index rows the workers copy
 * into the crawl's database say where in which worker's WARCs each capture is.
 */
import type { WorkerRow } from '../api/crawl-snapshot.ts';
import type { FrontierCounts } from './frontier.ts';
import type { CrawlControl, PostgresFrontier, WorkerReport } from './postgres-frontier.ts';

/** The crawl's workers now, on this process's clock. */
export function workerRows(frontier: PostgresFrontier, now = Date.now()): WorkerRow[] {
  return frontier.workers().map((w) => ({
    name: w.name,
    host: w.host,
    pid: w.pid,
    state: w.report?.state ?? '-',
    urisPerSec: w.report?.urisPerSec ?? 0,
    downloaded: w.report?.downloaded ?? 0,
    leases: w.leases,
    heartbeatAgoMs: w.heartbeatAt === null ? null : Math.max(0, now - w.heartbeatAt),
    alive: w.leaseUntil === null || w.leaseUntil >= now,
  }));
}

export interface SharedCrawlStatus {
  control: CrawlControl;
  /** The shared frontier's counts: URIs done, failed, queued, in flight, seen, across all workers. */
  counts: FrontierCounts;
  /** Sums of every worker's last report, the workers gone included. */
  totals: { pages: number; bytes: number; warcBytes: number; warcFiles: number; urisPerSec: number };
  /** Every worker that ever reported: its host, folder and totals. */
  reports: { name: string; host: string; stats: WorkerReport; updatedAt: number }[];
  /** The workers in the crawl now (those that left without leases are gone from it). */
  workers: WorkerRow[];
  /** The shared copy of the workers' capture indexes, per worker. */
  index: { worker: string; records: number; pages: number; responses: number; files: number }[];
}

export function sharedCrawlStatus(frontier: PostgresFrontier, now = Date.now()): SharedCrawlStatus {
  const reports = frontier.reports();
  const workers = workerRows(frontier, now);
  const live = new Set(workers.filter((w) => w.alive).map((w) => w.name));
  const sum = (f: (r: WorkerReport) => number) => reports.reduce((s, r) => s + f(r.stats), 0);
  return {
    control: frontier.control().control,
    counts: frontier.counts(now),
    totals: {
      pages: sum((r) => r.pages),
      bytes: sum((r) => r.bytes),
      warcBytes: sum((r) => r.warcBytes),
      warcFiles: sum((r) => r.warcFiles),
      // Only the workers still in the crawl are fetching.
      urisPerSec: reports.filter((r) => live.has(r.name) && r.stats.state === 'running').reduce((s, r) => s + r.stats.urisPerSec, 0),
    },
    reports,
    workers,
    index: frontier.captureTotals(),
  };
}
