/**
 * The PostgreSQL frontier behind the synchronous Frontier interface, so the crawl controller and
 * everything else that drives a frontier works unchanged (better-sqlite3 made that interface
 * synchronous; node-postgres is async). The store (postgres-frontier-store.ts) runs in a worker
 * thread; each call here posts a message and blocks in `Atomics.wait` until the thread has the
 * answer, then reads it with `receiveMessageOnPort`. The controller's calls stay exactly as they
 * are, and each call costs one thread hop (a few µs) on top of its database round trips: see
 * `npm run bench -- pg` for per-operation figures against SQLite.
 *
 * One difference from the SQLite frontier: `complete` commits in PostgreSQL on its own; it cannot
 * join the crawl loop's SQLite transaction with its capture-index rows (see Frontier.complete).
 * With `writeBehind` (a crawl's workers) it does not even wait: the completion (and the slot
 * given back before it) is posted to the thread, which sends the completions that came together
 * as one batch, and the next call waits for them. With `claimMany`, a worker's free fetch slots
 * are filled in one round trip, the same trip as the completions written behind before it
 * (postgres-frontier-thread.ts). Each round trip and each thread hop is paid once per batch
 * rather than once per URI, which is what lets the shared frontier keep up with SQLite's
 * (`npm run bench -- pg --uris 1000000`, which prints the round trips per batch).
 *
 * This is what the `synckit` package does; it is written out here because synckit keeps one
 * worker per worker file for the whole process, and a frontier needs its own thread and
 * connection (two frontiers in one process are two workers of a crawl, as the tests use them),
 * and a way to close it.
 */
import { receiveMessageOnPort, MessageChannel, Worker } from 'node:worker_threads';
import { TroveError } from '../errors.ts';
import { isErrorCode } from '../api/error-codes.ts';
import type { ClaimOptions, ClaimedUri, Frontier } from './frontier.ts';
import type { CallStats, CrawlControl, LateRefusal, PostgresFrontierOptions, PostgresFrontierStore, SharedCapture, WorkerInfo, WorkerReport } from './postgres-frontier-store-types.ts';

export type { CrawlControl, PostgresFrontierOptions, SharedCapture, WorkerInfo, WorkerReport } from './postgres-frontier-store-types.ts';

type Answer<K extends keyof PostgresFrontierStore> = PostgresFrontierStore[K] extends (...a: never[]) => Promise<infer R> ? R : never;

export interface PostgresFrontier extends Frontier {
  /** This worker's name in the crawl. */
  readonly worker: string;
  claimMany(now: number, max: number, opts?: ClaimOptions): ClaimedUri[];
  lateRefusals(): { url: string; message: string }[];
  /** Every worker of the crawl: host, pid, lease expiry, leases held. */
  workers(): WorkerInfo[];
  /** Renew this worker's lease now (the thread also does so by itself with `clock: 'database'`). */
  heartbeat(now?: number): void;
  /** A crawl-wide fact (JSON) every worker reads, e.g. the crawl settings; undefined when unset. */
  getMeta<T>(key: string): T | undefined;
  setMeta(key: string, value: unknown): void;
  /** The crawl's shared robots.txt cache (see crawl/robots-gate.ts RobotsStateStore). */
  getRobots<T>(origin: string): T | null;
  setRobots(origin: string, value: unknown, now: number): void;
  /** What the operator asked of the whole crawl (running, paused, stopped), and when. */
  control(): { control: CrawlControl; changedAt: number };
  setControl(control: CrawlControl): void;
  /** Store this worker's totals for the crawl-wide view; returns the crawl's control. */
  report(stats: WorkerReport): CrawlControl;
  /** Every worker's last report, those gone included. */
  reports(): { name: string; host: string; stats: WorkerReport; updatedAt: number }[];
  pagesOpen(): boolean;
  /** The shared copy of the workers' capture indexes (see the store). */
  lastCapture(): number;
  addCaptures(rows: readonly SharedCapture[]): void;
  captureTotals(): Answer<'captureTotals'>;
  capturesOf(urlkey: string): Answer<'capturesOf'>;
  /** Per store method, as the thread ran them (completions written behind: `completeMany`, per batch): for the pg bench. */
  callStats(): Record<string, CallStats>;
  /** Ends the connection and the thread. Leases held stay in the database until they expire. */
  close(): void;
}

/** The error a call's answer carries, as thrown in this thread. */
function thrown(e: LateRefusal['error']): Error {
  if (e.name === 'TroveError' && isErrorCode(e.code)) return new TroveError(e.code, e.message, (e.details as Record<string, unknown>) ?? {});
  return Object.assign(new Error(e.message), { code: e.code });
}

/** A database call that takes longer than this is taken as a lost connection. */
const CALL_TIMEOUT_MS = 120_000;

export function createPostgresFrontier(options: PostgresFrontierOptions): PostgresFrontier {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const thread = new Worker(new URL('./postgres-frontier-thread.ts', import.meta.url), {
    workerData: { port: port2, flag, options },
    transferList: [port2],
  });
  thread.unref();
  let seq = 0;
  let closed = false;
  const refused: { url: string; message: string }[] = [];

  /** What the thread says of completions written behind: refusals kept, any other failure thrown. */
  const takeLate = (late: LateRefusal[] | undefined) => {
    let failure: LateRefusal | undefined;
    for (const r of late ?? []) {
      if (r.error.code === 'FRONTIER_NOT_IN_FLIGHT') refused.push({ url: r.url, message: r.error.message });
      else failure ??= r;
    }
    if (failure) throw thrown(failure.error);
  };

  const call = (method: string, ...args: unknown[]): unknown => {
    if (closed) throw new TroveError('FRONTIER_CLOSED', 'the PostgreSQL frontier is closed');
    const mine = ++seq;
    Atomics.store(flag, 0, 0);
    port1.postMessage({ seq: mine, method, args });
    for (;;) {
      if (Atomics.wait(flag, 0, 0, CALL_TIMEOUT_MS) === 'timed-out') {
        throw new TroveError('FRONTIER_DB_TIMEOUT', `PostgreSQL frontier call ${method} got no answer in ${CALL_TIMEOUT_MS} ms`, { method });
      }
      const msg = receiveMessageOnPort(port1)?.message as { seq: number; value?: unknown; error?: LateRefusal['error']; late?: LateRefusal[] } | undefined;
      if (!msg) continue;
      takeLate(msg.late);
      if (msg.seq !== mine) {
        Atomics.store(flag, 0, 0); // a late answer to a call that timed out
        continue;
      }
      if (msg.error) throw thrown(msg.error);
      return msg.value;
    }
  };

  /** A call written behind (options.writeBehind): posted, not waited for (the thread runs it in order). */
  const post = (method: string, ...args: unknown[]): void => {
    if (closed) throw new TroveError('FRONTIER_CLOSED', 'the PostgreSQL frontier is closed');
    port1.postMessage({ seq: 0, method, args });
  };

  let worker: string;
  try {
    worker = call('open') as string;
  } catch (err) {
    void thread.terminate();
    throw err;
  }

  return {
    worker,
    schedule: (cands) => call('schedule', cands) as number,
    forceSchedule: (c) => call('forceSchedule', c) as boolean,
    claim: (now, opts) => call('claim', now, opts) as ReturnType<Frontier['claim']>,
    claimMany: (now, max, opts) => call('claimMany', now, max, opts) as ClaimedUri[],
    complete: options.writeBehind ? (uri, outcome, outlinks) => post('completeLater', uri, outcome, outlinks) : (uri, outcome, outlinks) => void call('complete', uri, outcome, outlinks),
    lateRefusals: () => refused.splice(0),
    releaseSlot: (uri, queueReadyAt) => {
      if (uri.slotReleased) return;
      // Behind, the slot is given back a round trip later: the queue's next fetch can only start later, never sooner.
      if (options.writeBehind) post('releaseSlotLater', uri, queueReadyAt);
      else call('releaseSlot', uri, queueReadyAt);
      uri.slotReleased = true;
    },
    defer: (uri, until) => void call('defer', uri, until),
    setQueueLimit: (key, maxInFlight) => void call('setQueueLimit', key, maxInFlight),
    setQueueReadyAt: (key, at) => void call('setQueueReadyAt', key, at),
    nextReadyAt: (opts) => call('nextReadyAt', opts) as number | null,
    pagesOpen: () => call('pagesOpen') as boolean,
    control: () => call('control') as { control: CrawlControl; changedAt: number },
    setControl: (control) => void call('setControl', control),
    report: (stats) => call('report', stats) as CrawlControl,
    reports: () => call('reports') as ReturnType<PostgresFrontier['reports']>,
    lastCapture: () => call('lastCapture') as number,
    addCaptures: (rows) => void call('addCaptures', rows),
    captureTotals: () => call('captureTotals') as Answer<'captureTotals'>,
    capturesOf: (urlkey) => call('capturesOf', urlkey) as Answer<'capturesOf'>,
    recoverInFlight: () => call('recoverInFlight') as number,
    counts: (now) => call('counts', now) as ReturnType<Frontier['counts']>,
    retryWaiting: (limit, countUpTo) => call('retryWaiting', limit, countUpTo) as ReturnType<Frontier['retryWaiting']>,
    queuedNonPages: () => call('queuedNonPages') as number,
    queues: (limit, offset, now) => call('queues', limit, offset, now) as ReturnType<Frontier['queues']>,
    queue: (key, now) => call('queue', key, now) as ReturnType<Frontier['queue']>,
    isSeen: (fingerprint) => call('isSeen', fingerprint) as boolean,
    workers: () => call('workers') as WorkerInfo[],
    heartbeat: (now) => void call('heartbeat', now),
    callStats: () => call('callStats') as Record<string, CallStats>,
    getMeta: <T>(key: string) => call('getMeta', key) as T | undefined,
    setMeta: (key, value) => void call('setMeta', key, value),
    getRobots: <T>(origin: string) => call('getRobots', origin) as T | null,
    setRobots: (origin, value, now) => void call('setRobots', origin, value, now),
    close: () => {
      if (closed) return;
      // Completions written behind are sent before the close (the thread runs calls in order).
      try {
        call('close');
      } finally {
        closed = true;
        void thread.terminate();
      }
    },
  };
}
