/**
 * The crawl worker: one worker_threads thread per running crawl, so the engine's SQLite writes,
 * WARC gzip and link bookkeeping never block the process that hosts the UI (Electron's main
 * process, where a busy loop would freeze every window).
 *
 * Up (worker → host): `started`, `event` (snapshot / state / log; snapshots at most every
 * SNAPSHOT_MS), `start-failed`, `finished`, `exclude-result`. Down (host → worker): `pause`,
 * `resume`, `stop`, `exclude` (a live exclusion, applied by the crawl through its own connection
 * and answered with what it dropped: the worker owns the database, core/crawl/live-exclude.ts).
 * The worker exits after `finished`. In browser mode from the app, a second port (`tabPort`)
 * carries CDP to the tabs the host owns (relayed-cdp-session.ts); the crawl closes it at its end.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type { CrawlSettings } from '../api/settings.ts';
import type { CrawlSnapshot } from '../api/crawl-snapshot.ts';
import type { AppError } from '../api/result.ts';
import type { CrawlNote } from '../api/error-codes.ts';
import type { LiveExcludeResult } from '../api/app-types.ts';
import { toAppError } from './worker-errors.ts';
import type { CrawlEvent } from '../crawl/crawl-controller.ts';
import { startCrawl } from '../crawl/start-crawl.ts';
import { RelayedTabSource } from '../browser/relayed-cdp-session.ts';

export interface CrawlWorkerData {
  dir: string;
  settings: Partial<CrawlSettings>;
  /**
   * Browser mode in the app: the port to the host's tabs (Electron's own, tab-relay-host.ts).
   * Without it a browser crawl launches a Chromium of the system, as the CLI does.
   */
  tabPort?: MessagePort;
  /** Where the crawl finds the library's browser profiles (`settings.profile`). */
  profilesDir?: string;
  /** A recrawl: the crawl directory it repeats (StartCrawlOptions.recrawlOf). */
  recrawlOf?: string;
}

export type WorkerDown = { type: 'pause' } | { type: 'resume' } | { type: 'stop'; now: boolean } | { type: 'exclude'; requestId: number; pattern: string };

export type WorkerUp =
  | { type: 'started'; notes: CrawlNote[] }
  | { type: 'start-failed'; error: AppError }
  | { type: 'event'; event: CrawlEvent }
  | { type: 'finished'; snapshot: CrawlSnapshot }
  | { type: 'exclude-result'; requestId: number; result: LiveExcludeResult | null; error: AppError | null };

/** At most ~4 snapshots a second go up, and the latest always does. */
export const SNAPSHOT_MS = 250;

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('crawl-worker.ts must run in a worker thread');
  const post = (m: WorkerUp) => port.postMessage(m);
  const data = workerData as CrawlWorkerData;

  const tabSource = data.tabPort ? new RelayedTabSource(data.tabPort) : undefined;
  let crawl;
  try {
    crawl = await startCrawl({
      dir: data.dir,
      settings: data.settings,
      tabSource,
      ...(data.profilesDir ? { profilesDir: data.profilesDir } : {}),
      ...(data.recrawlOf ? { recrawlOf: data.recrawlOf } : {}),
    });
  } catch (err) {
    await tabSource?.close();
    post({ type: 'start-failed', error: toAppError(err) });
    return;
  }

  let pending: CrawlSnapshot | null = null;
  let lastSent = 0;
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    timer = null;
    if (pending) {
      post({ type: 'event', event: { type: 'snapshot', snapshot: pending } });
      pending = null;
      lastSent = Date.now();
    }
  };
  crawl.on((event) => {
    if (event.type !== 'snapshot') {
      post({ type: 'event', event });
      return;
    }
    pending = event.snapshot;
    const wait = SNAPSHOT_MS - (Date.now() - lastSent);
    if (wait <= 0) flush();
    else timer ??= setTimeout(flush, wait);
  });
  port.on('message', (m: WorkerDown) => {
    if (m.type === 'pause') crawl.pause();
    else if (m.type === 'resume') crawl.resume();
    else if (m.type === 'stop') crawl.stop({ now: m.now });
    else if (m.type === 'exclude') {
      try {
        post({ type: 'exclude-result', requestId: m.requestId, result: crawl.addExclude(m.pattern), error: null });
      } catch (err) {
        post({ type: 'exclude-result', requestId: m.requestId, result: null, error: toAppError(err) });
      }
    }
  });

  post({ type: 'started', notes: crawl.startNotes });
  post({ type: 'event', event: { type: 'snapshot', snapshot: crawl.snapshot() } });
  lastSent = Date.now();
  const final = await crawl.finished();
  if (timer) clearTimeout(timer);
  pending = null;
  post({ type: 'finished', snapshot: final });
  port.close();
}

main().catch((err) => {
  parentPort?.postMessage({ type: 'start-failed', error: toAppError(err) } satisfies WorkerUp);
  parentPort?.close();
});
