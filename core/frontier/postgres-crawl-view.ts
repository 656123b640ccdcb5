/**
 * The whole of a shared crawl as one process sees it from the crawl's database: every worker
 * (host, rate, leases, last heartbeat, from `workers` and the reports in `worker_stats`) and the
 * totals across them. The crawl snapshot of each worker, the CLI progress and `trove status`
 * all read these, so a worker row means the same everywhere. The index rows the workers copy
 * into the crawl's database say where in which worker's WARCs each capture is.
 */
import type { WorkerRow } from '../api/crawl-snapshot.ts';
import type { SharedCrawlControl, SharedCrawlView } from '../api/shared-crawl-types.ts';
import { TroveError } from '../errors.ts';
import type { FrontierCounts } from './frontier.ts';
import type { CrawlControl, PostgresFrontier, WorkerInfo, WorkerReport } from './postgres-frontier.ts';
import { openPostgresFrontierStore } from './postgres-frontier-store.ts';
import type { PostgresFrontierStore } from './postgres-frontier-store-types.ts';

/** A shared crawl's URL, postgres://user@host:port/<database>/<crawl>: the database's URL and the crawl's name. */
export function parseSharedCrawlUrl(url: string): { url: string; crawl: string } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new TroveError('SETTINGS_INVALID', `not a URL: ${url}`, { url });
  }
  const parts = u.pathname.split('/').filter(Boolean);
  if (!/^postgres(ql)?:$/.test(u.protocol) || parts.length !== 2) {
    throw new TroveError('SETTINGS_INVALID', `a shared crawl is postgres://user@host:port/<database>/<crawl>, not ${url}`, { url });
  }
  u.pathname = `/${parts[0]}`;
  return { url: u.toString(), crawl: parts[1]! };
}

/** The crawl's workers now, on this process's clock. */
export function workerRows(frontier: PostgresFrontier, now = Date.now()): WorkerRow[] {
  return rowsOf(frontier.workers(), now);
}

function rowsOf(workers: WorkerInfo[], now: number): WorkerRow[] {
  return workers.map((w) => ({
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

/**
 * One look at (or one change of) a shared crawl from the app, on the async store (no thread, the
 * app's event loop free meanwhile), under a name of its own with a short lease: this connection
 * holds no URIs, and its row goes when it closes. CRAWL_NOT_FOUND for a crawl not in that database.
 */
export async function withSharedCrawl<T>(crawlUrl: string, fn: (store: PostgresFrontierStore) => Promise<T>): Promise<T> {
  const { url, crawl } = parseSharedCrawlUrl(crawlUrl);
  const store = await openPostgresFrontierStore({ url, crawl, worker: `trove-app-${process.pid}-${Date.now().toString(36)}`, leaseMs: 5000, mustExist: true });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** The app's view of a shared crawl: the `trove status` figures, its workers and first hosts. */
export async function readSharedCrawlView(crawlUrl: string, now = Date.now()): Promise<SharedCrawlView> {
  return withSharedCrawl(crawlUrl, async (store) => {
    const { control } = await store.control();
    const counts = await store.counts(now);
    const reports = await store.reports();
    const workers = rowsOf(await store.workers(), now).filter((w) => w.name !== store.worker);
    const queues = await store.queues(200, 0, now);
    const live = new Set(workers.filter((w) => w.alive).map((w) => w.name));
    const sum = (f: (r: WorkerReport) => number) => reports.reduce((n, r) => n + f(r.stats), 0);
    const u = new URL(parseSharedCrawlUrl(crawlUrl).url);
    u.password = '';
    return {
      crawl: parseSharedCrawlUrl(crawlUrl).crawl,
      database: u.toString(),
      control,
      counts: { done: counts.done, failed: counts.failed, pending: counts.pending, inFlight: counts.inFlight, seen: counts.seen, queues: counts.queues },
      totals: {
        pages: sum((r) => r.pages),
        bytes: sum((r) => r.bytes),
        warcBytes: sum((r) => r.warcBytes),
        warcFiles: sum((r) => r.warcFiles),
        urisPerSec: reports.filter((r) => live.has(r.name) && r.stats.state === 'running').reduce((n, r) => n + r.stats.urisPerSec, 0),
      },
      workers,
      hosts: queues.map((q) => ({ queue: q.key, pending: q.pending, inFlight: q.inFlight, done: q.done, failed: q.failed, readyInMs: Math.max(0, q.readyAt - now) })),
      at: now,
    };
  });
}

/** Pause, resume or stop every worker of a shared crawl (each reads it with its next report). */
export async function setSharedCrawlControlAsync(crawlUrl: string, control: SharedCrawlControl): Promise<void> {
  await withSharedCrawl(crawlUrl, (store) => store.setControl(control));
}
