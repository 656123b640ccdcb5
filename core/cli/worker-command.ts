/**
 * Several machines on one crawl. `trove crawl <seeds> --frontier postgres://…/<db>/<crawl> --out <dir>`
 * creates a shared crawl (its settings go into the crawl's PostgreSQL schema) and works on it;
 * `trove worker postgres://…/<db>/<crawl> --out <dir>` joins it from any machine with the same
 * settings. Every worker is an ordinary crawl directory (its own WARCs, named with the worker's
 * name as Heritrix names them with the host; its own capture index, logs and stats) whose
 * frontier and robots.txt cache are the shared ones, so `trove export`/replay work on each worker's
 * directory, and on the union by importing every worker's WARCs into one archive (`trove import`).
 * Each worker reports its totals into the crawl's database, where `trove status <crawl-url>`
 * reads the whole crawl; `trove pause|stop|resume <crawl-url>` act on every worker at once.
 */
import os from 'node:os';
import type { Command } from 'commander';
import type { CrawlSettings } from '../api/settings.ts';
import { parseInUnit } from '../api/setting-units.ts';
import { startCrawl, type CrawlController } from '../crawl/start-crawl.ts';
import { TroveError } from '../errors.ts';
import type { CrawlSnapshot, WorkerRow } from '../api/crawl-snapshot.ts';
import { createPostgresFrontier, type PostgresFrontier, type SharedCapture, type WorkerReport } from '../frontier/postgres-frontier.ts';
import { parseSharedCrawlUrl, workerRows } from '../frontier/postgres-crawl-view.ts';
import type { CommandIo } from './robots-command.ts';
import { runCrawlInForeground } from './crawl-command.ts';

const SETTINGS_KEY = 'settings';

/** `postgres://user@host:5432/db/crawl` → the database URL and the crawl (schema) name. */
// Kept with the crawl view, which the app uses too; exported here still for the CLI's commands.
export { parseSharedCrawlUrl };

export interface SharedCrawlOptions {
  /** postgres://…/<database>/<crawl> */
  frontier: string;
  dir: string;
  /** Unique in the crawl; default `<host>-<pid>`. */
  worker?: string;
  /** How long this worker's leases outlive its last heartbeat (default 30 s). */
  leaseMs?: number;
  /** Given: create the shared crawl with these settings (`trove crawl --frontier`); absent: join it. */
  settings?: Partial<CrawlSettings>;
  /** How often this worker reports its totals and reads the crawl's control (default 1 s). */
  reportMs?: number;
}

const REPORT_MS = 1000;
/** Index rows copied per report at most, and how many missing ids in a row end a copy. */
const CAPTURE_BATCH = 5000;
const CAPTURE_GAP = 50;

/**
 * A worker's crawl snapshot as the totals it reports into the shared crawl. The snapshot's
 * downloaded/failed are the shared frontier's (the whole crawl's); the worker's own are its stats.
 */
function reportOf(s: CrawlSnapshot, own: { downloaded: number; failed: number }): WorkerReport {
  return {
    state: s.state,
    downloaded: own.downloaded,
    failed: own.failed,
    pages: s.pages,
    bytes: s.bytes,
    warcBytes: s.warcBytes,
    urisPerSec: s.urisPerSec,
    kbPerSec: s.kbPerSec,
    warcFiles: s.warcFiles.length,
    dir: s.dir,
  };
}

/**
 * Start this process's part of a shared crawl; the frontier closes when the crawl finishes.
 * Every `reportMs` the worker reports its totals and reads the crawl's control: the operator's
 * pause (`trove pause <crawl-url>`) pauses it (the database already refuses every worker's
 * claims, so in-flight URIs finish and nothing new starts), `trove resume` lets it carry on, and
 * `trove stop` stops it as Ctrl-C would (in-flight URIs finish, WARCs sealed, the process exits).
 */
export async function startSharedCrawl(opts: SharedCrawlOptions): Promise<CrawlController> {
  const { url, crawl } = parseSharedCrawlUrl(opts.frontier);
  const worker = opts.worker ?? `${os.hostname()}-${process.pid}`;
  const setup = createPostgresFrontier({ url, crawl, worker: `${worker}-setup` });
  let shared: Partial<CrawlSettings> | undefined;
  try {
    shared = setup.getMeta<Partial<CrawlSettings>>(SETTINGS_KEY);
    if (opts.settings) {
      shared = { ...(shared ?? {}), ...opts.settings, seeds: [...new Set([...(shared?.seeds ?? []), ...(opts.settings.seeds ?? [])])] };
      setup.setMeta(SETTINGS_KEY, shared);
      // Starting the crawl (again, with seeds or settings) is the operator's word that it runs.
      setup.setControl('running');
    } else if (shared && setup.control().control === 'stopped') {
      throw new TroveError('CRAWL_STOPPED', `the shared crawl "${crawl}" was stopped; trove resume ${opts.frontier} lets workers join it again`, { crawl });
    }
  } finally {
    setup.close();
  }
  if (!shared) throw new TroveError('CRAWL_NOT_FOUND', `no shared crawl "${crawl}" in that database (create it with trove crawl --frontier)`, { crawl });
  let frontier: PostgresFrontier | undefined;
  let rows: WorkerRow[] = [];
  let timer: NodeJS.Timeout | undefined;
  const controller = await startCrawl({
    dir: opts.dir,
    settings: { ...shared, warcPrefix: `${shared.warcPrefix ?? 'TROVE'}-${worker}` },
    frontier: ({ defaultMaxInFlight }) =>
      (frontier = createPostgresFrontier({ url, crawl, worker, defaultMaxInFlight, leaseMs: opts.leaseMs, pageLimit: shared.limitPages ?? 0, writeBehind: true })),
    robotsStore: {
      get: (origin) => frontier!.getRobots(origin),
      set: (origin, value, now) => frontier!.setRobots(origin, value, now),
    },
    workers: () => rows,
    beforeClose: (final) => {
      clearInterval(timer);
      try {
        copyCaptures(Infinity);
        frontier?.report(reportOf(final, controller.ctx.stats.totals));
      } catch {
        /* the last report is advisory; the index rows follow at the worker's next start */
      }
    },
  });
  let last: CrawlSnapshot | null = null;
  const off = controller.on((e) => {
    if (e.type === 'snapshot') last = e.snapshot;
  });
  // This worker's capture-index rows go to the shared crawl with each report, in id order (ids
  // may have gaps where a disk-full recovery dropped rows: CAPTURE_GAP missing ids end a copy).
  let lastCopied = frontier!.lastCapture();
  const copyCaptures = (max: number) => {
    const batch: SharedCapture[] = [];
    for (let id = lastCopied + 1, miss = 0; batch.length < max && miss < CAPTURE_GAP; id++) {
      const r = controller.ctx.captures.byId(id);
      if (!r) {
        miss++;
        continue;
      }
      miss = 0;
      batch.push({
        id: r.id, warcFile: r.fileName, offset: r.offset, length: r.length, recordType: r.recordType, recordId: r.recordId, targetUri: r.targetUri,
        urlkey: r.urlkey, ts: r.ts, mime: r.mime, status: r.status, payloadDigest: r.payloadDigest, page: r.page,
      });
    }
    if (batch.length === 0) return;
    frontier!.addCaptures(batch);
    lastCopied = batch[batch.length - 1]!.id;
  };
  let pausedByCrawl = false;
  let stopAsked = false;
  const poll = () => {
    if (!frontier) return;
    try {
      copyCaptures(CAPTURE_BATCH);
      const control = frontier.report(reportOf(last ?? controller.snapshot(), controller.ctx.stats.totals));
      rows = workerRows(frontier);
      if (control === 'paused' && controller.state === 'running') {
        pausedByCrawl = true;
        controller.pause();
      } else if (control === 'running' && pausedByCrawl && (controller.state === 'paused' || controller.state === 'pausing')) {
        pausedByCrawl = false;
        controller.resume();
      } else if (control === 'stopped' && !stopAsked) {
        // Once: a second stop() is "stop now", which would abort the in-flight fetches.
        stopAsked = true;
        controller.stop();
      }
    } catch {
      /* the database is away: the frontier pauses the crawl itself until it is back */
    }
  };
  poll();
  timer = setInterval(poll, opts.reportMs ?? REPORT_MS);
  timer.unref();
  const close = () => {
    clearInterval(timer);
    off();
    frontier?.close();
  };
  void controller.finished().then(close, close);
  return controller;
}

/** `trove worker`, run in the foreground as `trove crawl` runs (progress, signals, exit codes). */
export function registerWorkerCommand(program: Command, io: CommandIo): void {
  program
    .command('worker')
    .description('Join a shared crawl: fetch from its PostgreSQL frontier, write WARCs into --out')
    .argument('<crawl-url>', 'postgres://user@host:port/<database>/<crawl>')
    .requiredOption('--out <dir>', 'this worker\'s crawl directory (created if missing)')
    .option('--worker-name <name>', 'name of this worker in the crawl, in its WARC file names (default <host>-<pid>)')
    .option('--lease-s <s>', 'if this worker dies, others take its URIs over after this long (default 30s)', (v: string) => {
      // Read as a crawl setting in seconds is (setting-units.ts): 30, 30s, 2min.
      const p = parseInUnit(v, 'seconds', false);
      if ('problem' in p) throw new TroveError('SETTINGS_INVALID', `--lease-s ${p.problem}`);
      return p.value;
    })
    .option('--no-progress', 'no progress bar (plain log lines)')
    .action(async (crawlUrl: string, opts: Record<string, unknown>) => {
      const leaseS = opts.leaseS as number | undefined;
      if (leaseS !== undefined && !(leaseS > 0)) throw new TroveError('SETTINGS_INVALID', '--lease-s must be a positive number of seconds');
      await runCrawlInForeground(io, opts, () =>
        startSharedCrawl({ frontier: crawlUrl, dir: String(opts.out), worker: opts.workerName as string | undefined, leaseMs: leaseS === undefined ? undefined : leaseS * 1000 }),
      );
    });
}
