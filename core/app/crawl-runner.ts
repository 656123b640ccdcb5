/**
 * Runs crawls in worker threads (crawl-worker.ts) and relays what they report. One worker per
 * crawl directory; commands (pause / resume / stop) go down as messages, snapshots and state
 * changes come up and are handed to `onEvent`.
 *
 * The worker is started from `new URL('./crawl-worker.ts', import.meta.url)`: Node 24 strips
 * the types itself (tests, the e2e harness); the Electron build rewrites that URL to the bundled
 * worker chunk (electron.vite.config.ts).
 *
 * Browser mode: when the host can open tabs (`openTab`: Electron's own hidden windows), each
 * worker gets a relay port to them (tab-relay-host.ts), so the app's crawls use Electron's
 * Chromium and users install nothing. The port is given to every crawl, not only those whose
 * given settings ask for a browser: a resumed crawl's browser setting is in its database, which
 * only the worker reads; a crawl without browser mode closes the port at once. Without
 * `openTab` a browser crawl launches a system Chromium, or says that there is none.
 */
import { MessageChannel, Worker } from 'node:worker_threads';
import type { CrawlSettings } from '../api/settings.ts';
import type { CrawlSnapshot, CrawlState } from '../api/crawl-snapshot.ts';
import type { LiveExcludeResult } from '../api/app-types.ts';
import { TroveError } from '../errors.ts';
import { isErrorCode } from '../api/error-codes.ts';
import type { CrawlEvent } from '../crawl/crawl-controller.ts';
import type { CrawlWorkerData, WorkerDown, WorkerUp } from './crawl-worker.ts';
import type { OpenTab } from '../browser/tab-source.ts';
import { serveTabs } from '../browser/tab-relay-host.ts';
import { holdSqliteAddon } from '../storage/open-database.ts';

export type RunnerEvent = CrawlEvent | { type: 'exit'; snapshot: CrawlSnapshot | null; error: string | null };

interface Running {
  worker: Worker;
  /** Live exclusions sent down and not answered yet, by request id. */
  excludes: Map<number, { resolve: (r: LiveExcludeResult) => void; reject: (err: Error) => void }>;
  snapshot: CrawlSnapshot | null;
  state: CrawlState;
  exited: Promise<void>;
}

export interface CrawlRunnerOptions {
  onEvent(id: string, event: RunnerEvent): void;
  /** Override the worker entry (tests). */
  workerUrl?: URL;
  /** Opens a browser tab for a crawl, in the thread that owns the browser (Electron main). */
  openTab?: OpenTab;
  /** Where the relay's own failures go (a tab that would not close). */
  log?: (message: string, err?: unknown) => void;
  /** The library's browser profiles (`--profile`), passed to the crawl worker. */
  profilesDir?: string;
}

/** A worker that has said `finished` but not exited after this long is terminated. */
const EXIT_GRACE_MS = 5_000;

export class CrawlRunner {
  private running = new Map<string, Running>();
  private requests = 0;
  private opts: CrawlRunnerOptions;

  constructor(opts: CrawlRunnerOptions) {
    this.opts = opts;
  }

  isRunning(id: string): boolean {
    return this.running.has(id);
  }

  ids(): string[] {
    return [...this.running.keys()];
  }

  snapshot(id: string): CrawlSnapshot | null {
    return this.running.get(id)?.snapshot ?? null;
  }

  /** Start (or continue) the crawl in `dir`; resolves once the engine has opened it, rejects if it cannot. */
  start(id: string, dir: string, settings: Partial<CrawlSettings>, recrawlOf?: string): Promise<void> {
    if (this.running.has(id)) return Promise.reject(new TroveError('CRAWL_RUNNING', `${id} is already running`, { id }));
    const relay = this.opts.openTab ? new MessageChannel() : null;
    const data: CrawlWorkerData = {
      dir,
      settings,
      ...(relay ? { tabPort: relay.port2 } : {}),
      ...(this.opts.profilesDir ? { profilesDir: this.opts.profilesDir } : {}),
      ...(recrawlOf ? { recrawlOf } : {}),
    };
    if (relay) serveTabs(relay.port1, this.opts.openTab!, this.opts.log);
    holdSqliteAddon();
    const worker = new Worker(this.opts.workerUrl ?? new URL('./crawl-worker.ts', import.meta.url), {
      workerData: data,
      transferList: relay ? [relay.port2] : [],
      name: `crawl ${id}`,
      // A small young generation, as the CLI's --max-semi-space-size (bin/trove.js): V8 would
      // grow it to 64 MB under a crawl's allocation rate, most of a crawl's peak memory.
      resourceLimits: { maxYoungGenerationSizeMb: 12 },
    });
    let started = false;
    let finished: CrawlSnapshot | null = null;
    let failure: string | null = null;
    let graceTimer: NodeJS.Timeout | null = null;

    return new Promise<void>((resolve, reject) => {
      const exited = new Promise<void>((done) => {
        worker.once('exit', (code) => {
          if (graceTimer) clearTimeout(graceTimer);
          this.running.delete(id);
          for (const p of entry.excludes.values()) p.reject(new TroveError('CRAWL_NOT_RUNNING', `the crawl ${id} ended before it took the exclusion`, { id }));
          entry.excludes.clear();
          if (!started) {
            reject(new TroveError('CRAWL_START_FAILED', failure ?? `the crawl worker exited (code ${code}) before the crawl started`, { id }));
          } else {
            const error = finished ? null : (failure ?? `the crawl worker stopped unexpectedly (code ${code})`);
            this.opts.onEvent(id, { type: 'exit', snapshot: finished ?? entry.snapshot, error });
          }
          done();
        });
      });
      const entry: Running = { worker, snapshot: null, state: 'starting', exited, excludes: new Map() };
      this.running.set(id, entry);

      worker.on('error', (err) => {
        failure = err.message;
      });
      worker.on('message', (m: WorkerUp) => {
        switch (m.type) {
          case 'started':
            started = true;
            resolve();
            for (const note of m.notes) this.opts.onEvent(id, { type: 'log', level: 'info', ...note });
            break;
          case 'start-failed':
            if (!started) {
              this.running.delete(id);
              reject(new TroveError(isErrorCode(m.error.code) ? m.error.code : 'CRAWL_START_FAILED', this.startFailure(m.error), { id }));
            } else {
              failure = m.error.message;
            }
            break;
          case 'event':
            if (m.event.type === 'snapshot') {
              entry.snapshot = m.event.snapshot;
              entry.state = m.event.snapshot.state;
            } else if (m.event.type === 'state') {
              entry.state = m.event.state;
              if (entry.snapshot) entry.snapshot = { ...entry.snapshot, state: m.event.state, finishReason: m.event.reason, message: m.event.message };
            }
            this.opts.onEvent(id, m.event);
            break;
          case 'exclude-result': {
            const p = entry.excludes.get(m.requestId);
            entry.excludes.delete(m.requestId);
            if (m.result) p?.resolve(m.result);
            else p?.reject(new TroveError(m.error && isErrorCode(m.error.code) ? m.error.code : 'INTERNAL', m.error?.message ?? 'the exclusion failed', { id }));
            break;
          }
          case 'finished':
            finished = m.snapshot;
            entry.snapshot = m.snapshot;
            entry.state = m.snapshot.state;
            this.opts.onEvent(id, { type: 'snapshot', snapshot: m.snapshot });
            graceTimer = setTimeout(() => void worker.terminate(), EXIT_GRACE_MS);
            graceTimer.unref();
            break;
        }
      });
    });
  }

  /** The app has no --browser-path flag: say what to do in its terms when no browser is found. */
  private startFailure(error: { code: string; message: string }): string {
    if (error.code !== 'BROWSER_NOT_FOUND' || this.opts.openTab) return error.message;
    const tried = error.message.replace(/\nInstall one[\s\S]*$/, '').replace(/^.*?tried:/, 'Paths tried:');
    return (
      'This crawl captures pages with a browser, but this app cannot open browser tabs for crawls and no Chromium is installed. ' +
      `Install Chromium (Debian/Ubuntu: sudo apt install chromium) or set TROVE_CHROMIUM, or turn off "Capture pages with a browser".\n${tried}`
    );
  }

  private send(id: string, m: WorkerDown): void {
    const r = this.running.get(id);
    if (!r) throw new TroveError('CRAWL_NOT_RUNNING', `${id} is not running`, { id });
    r.worker.postMessage(m);
  }

  /** Add a live exclusion to the running crawl (its worker applies it); resolves with what it dropped. */
  exclude(id: string, pattern: string): Promise<LiveExcludeResult> {
    const r = this.running.get(id);
    if (!r) return Promise.reject(new TroveError('CRAWL_NOT_RUNNING', `${id} is not running`, { id }));
    const requestId = ++this.requests;
    return new Promise((resolve, reject) => {
      r.excludes.set(requestId, { resolve, reject });
      r.worker.postMessage({ type: 'exclude', requestId, pattern } satisfies WorkerDown);
    });
  }

  pause(id: string): void {
    this.send(id, { type: 'pause' });
  }

  resume(id: string): void {
    this.send(id, { type: 'resume' });
  }

  stop(id: string, now = false): void {
    this.send(id, { type: 'stop', now });
  }

  /** Resolves when the crawl's worker has exited (at once when it is not running). */
  async exited(id: string): Promise<void> {
    await this.running.get(id)?.exited;
  }

  /** Stop every crawl (in-flight fetches aborted, files closed cleanly) and wait for the workers. */
  async close(): Promise<void> {
    const all = [...this.running.entries()];
    for (const [id] of all) {
      try {
        this.stop(id, true);
      } catch {
        /* exited meanwhile */
      }
    }
    await Promise.all(
      all.map(([, r]) =>
        Promise.race([r.exited, new Promise<void>((resolve) => setTimeout(resolve, 15_000).unref())]).then(() => {
          void r.worker.terminate();
        }),
      ),
    );
  }
}
