/**
 * What the app shows of a crawl shared by several workers over PostgreSQL (issue 39): the
 * `shared.*` commands' results, kept in a file of their own so the renderer can import them as
 * types. The same figures `trove status <crawl-url>` prints (core/frontier/postgres-crawl-view.ts).
 */
import type { WorkerRow } from './crawl-snapshot.ts';

export type SharedCrawlControl = 'running' | 'paused' | 'stopped';

export interface SharedHostRow {
  queue: string;
  pending: number;
  inFlight: number;
  done: number;
  failed: number;
  /** ms until the queue may give out its next URI (0 = ready now). */
  readyInMs: number;
}

export interface SharedCrawlView {
  /** The crawl's name (its schema in the database). */
  crawl: string;
  /** The database, the password left out. */
  database: string;
  control: SharedCrawlControl;
  /** The shared frontier's counts across every worker. */
  counts: { done: number; failed: number; pending: number; inFlight: number; seen: number; queues: number };
  /** Sums of every worker's last report, the workers gone included. */
  totals: { pages: number; bytes: number; warcBytes: number; warcFiles: number; urisPerSec: number };
  /** The workers in the crawl now (the app's own look at it left out). */
  workers: WorkerRow[];
  /** The first hosts (queues), in creation order. */
  hosts: SharedHostRow[];
  /** When this was read (ms since the epoch). */
  at: number;
}
