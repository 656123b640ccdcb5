/**
 * The crawl controller: lifecycle and the crawl loop with N fetch slots. A slot is taken for a
 * URI's fetch and given back when the fetch is over; the URI's processing (extraction, WARC
 * records, index rows) goes on beside the next fetches, up to `maxActive` URIs in all.
 *
 *   starting → running ⇄ pausing → paused
 *                 └──→ stopping → finished (reason)        (any error → failed)
 *
 * Pause lets in-flight fetches finish and holds new claims. Stop finishes in-flight work and
 * closes files cleanly; a second stop (`stop({ now: true })`) aborts in-flight fetches at once —
 * their URIs stay leased in the database and are fetched again on resume — and still closes the
 * WARC cleanly. Limits finish the crawl with their reason and leave it resumable.
 *
 * A page limit keeps pages whole: a URI that may be a page (page-hops.ts) takes a page slot when
 * it is claimed and gives it back unless its response is a page, and while every slot is taken
 * only URIs that cannot be pages are claimed. So the crawl never captures more pages than the
 * limit, whatever the number of connections, and once the limit is reached it still fetches
 * the embeds and redirects of the pages it captured (stylesheets, their @imports and images)
 * before it finishes with "limit-pages". The URI limit is exact too: a URI is claimed only while
 * those finished plus those in flight stay under it. A frontier shared by several crawlers holds
 * the page slots itself, crawl-wide (Frontier.pagesOpen), and the loop asks it instead.
 */
import path from 'node:path';
import type { CrawlSnapshot, CrawlState, FinishReason, HostRow, RetryWaiting, TrapWarning, WorkerRow } from '../api/crawl-snapshot.ts';
import { outcomeName } from '../api/outcome-codes.ts';
import type { ClaimedUri } from '../frontier/frontier.ts';
import type { CrawlContext } from './crawl-context.ts';
import { processUri, type UriChain } from './chain/uri-chain.ts';
import { mayBePage } from '../frontier/page-hops.ts';
import type { CrawlLogCode, CrawlNote } from '../api/error-codes.ts';
import { isTroveError, TroveError } from '../errors.ts';
import { DiskGuard, isDiskFullError } from './disk-guard.ts';
import { isGroupLostError } from '../storage/group-commit.ts';
import type { LiveExcludeResult } from '../api/app-types.ts';
import type { ExcludeAnswer, ExcludeRequest } from './exclude-requests.ts';

export type CrawlEvent =
  | { type: 'snapshot'; snapshot: CrawlSnapshot }
  | { type: 'state'; state: CrawlState; reason: FinishReason | null; message: string | null }
  | ({ type: 'log'; level: 'info' | 'warn' | 'error' } & CrawlNote);

export interface ControllerHooks {
  /** Called once when the loop ends, after in-flight work has settled: closes WARCs, fetcher, workers. */
  closeFiles(): Promise<void>;
  /** Called last, after the final snapshot was taken: persists counters, closes the database. */
  closeStore(final: CrawlSnapshot): Promise<void>;
  /** Extra snapshot fields the controller cannot see (WARC files, traps). */
  warcFiles(): string[];
  traps(): TrapWarning[];
  robotsFor(queueKey: string): string;
  /** A shared crawl's workers (absent: not shared). */
  workers?(): WorkerRow[];
  /** Bytes of WARC written by earlier runs of this crawl (for --max-total-warc-bytes). */
  previousWarcBytes: number;
  /** Called at each snapshot to persist counters (resume keeps totals). */
  persist(): void;
  /**
   * After a disk-full pause in which the database refused a write that followed a WARC write,
   * index what the current WARC holds beyond the index (see reconcile-index.ts).
   */
  reconcile(): Promise<CrawlNote[]>;
  /** A live exclusion through the crawl's own connection (live-exclude.ts). */
  addExclude?(pattern: string): LiveExcludeResult;
  /** Live exclusions other processes asked for (exclude-requests.ts): taken, then answered. */
  excludeRequests?: { take(): ExcludeRequest[]; answer(id: string, answer: ExcludeAnswer): void };
}

const SNAPSHOT_MS = 250;
/**
 * URIs waiting for a retry listed in a snapshot, and counted: counting reads each waiting row (an
 * index entry and its row; with 100,000 waiting, 23 ms per snapshot counting all, 1.2 ms counting
 * up to 10,000, measured on the SQLite frontier), so the count stops at 10,000 and says "at least".
 */
const RETRIES_SHOWN = 5;
const RETRIES_COUNTED = 10_000;

/**
 * Group commit (core/storage/group-commit.ts): the crawl's claims and completions share one
 * transaction, committed after this many units (a URI is two: its claim and its completion) or
 * this long after the group began, whichever comes first; and at pause, stop, end, checkpoints
 * and WARC file changes. The delay is how late the UI and `trove status` see the crawl; the size
 * bounds what a crash or a rolled-back group makes the crawl fetch again. Chosen with
 * bench/group-commit-bench.ts, bench/crawl-ab-bench.ts and bench/crawl100k-bench.ts.
 */
export const GROUP_COMMIT_UNITS = 200;
export const GROUP_COMMIT_DELAY_MS = 200;
/**
 * Free space is looked at this often (statfs costs microseconds): at crawl speed a few MB are
 * written in between, well inside any sensible --min-free-disk. While paused on a full disk, a
 * write probe is tried this often too, and a URI whose write failed waits this long.
 */
const DISK_CHECK_MS = 250;

export class CrawlController {
  readonly ctx: CrawlContext;
  /** The processors each claimed URI goes through (chain/uri-chain.ts), built for this crawl's settings. */
  readonly uriChain: UriChain;
  /** What start-up found and did (WARCs recovered after a crash, leases re-queued), for the log. */
  readonly startNotes: CrawlNote[] = [];
  private hooks: ControllerHooks;
  private listeners = new Set<(e: CrawlEvent) => void>();
  private _state: CrawlState = 'starting';
  private reason: FinishReason | null = null;
  private message: string | null = null;
  private inflight = new Set<Promise<void>>();
  private freeSlots: number[] = [];
  /**
   * URIs at once, fetching or being processed: the fetch slots plus two whose fetch is over and
   * whose links, records and index rows are still being made (enough to keep one connection
   * busy; more bought no speed on 2 cores). Bounds memory and the URIs a crash leaves leased
   * (fetched again on resume).
   */
  private readonly maxActive: number;
  /** URIs in flight that are parked (CrawlUri.park): they do not count against maxActive. */
  private parked = 0;
  private wake: (() => void) | null = null;
  private stopRequested = false;
  private pauseRequested = false;
  private diskPaused = false;
  /** Paused by loggedOut: what to do on resume (read the refreshed profile). */
  private loginPaused: (() => void) | null = null;
  private loginWallSaid = false;
  private needsReconcile = false;
  private reconciling = false;
  private hardAbort: AbortController;
  private startedAt: number;
  private elapsedBefore: number;
  private runStartedAt: number;
  /** Time paused in earlier runs, in this run until the current pause, and when the current pause began. */
  private pausedBefore: number;
  private pausedThisRun = 0;
  private pausedSince: number | null = null;
  private lastSnapshot = 0;
  private lastDiskCheck = 0;
  private appliedLimits = new Set<string>();
  /** Page slots held by claimed URIs that may be pages (see the top of this file). */
  private pageSlotsHeld = 0;
  private pageLimitSaid = false;
  private trapsSaid = new Set<string>();
  private done: Promise<CrawlSnapshot>;
  private guard: DiskGuard;
  /** The last write probe's failure while paused on a full disk, said once per distinct reason. */
  private lastProbeError: string | null = null;
  /** Set once the loop is over: the database is about to close, no exclusion is taken any more. */
  private closing = false;

  constructor(ctx: CrawlContext, hooks: ControllerHooks, hardAbort: AbortController, opts: { uriChain: UriChain; startedAt?: number; elapsedBefore?: number; pausedBefore?: number }) {
    this.ctx = ctx;
    this.uriChain = opts.uriChain;
    this.hooks = hooks;
    this.hardAbort = hardAbort;
    this.runStartedAt = ctx.now();
    this.startedAt = opts.startedAt ?? this.runStartedAt;
    this.elapsedBefore = opts.elapsedBefore ?? 0;
    this.pausedBefore = opts.pausedBefore ?? 0;
    for (let i = ctx.settings.concurrency; i >= 1; i--) this.freeSlots.push(i);
    this.maxActive = ctx.settings.concurrency + 2;
    this.guard = new DiskGuard({
      dir: ctx.paths.warcs,
      minFreeBytes: ctx.settings.minFreeDiskBytes,
      db: ctx.db,
      dbFile: ctx.paths.db,
      probeFile: path.join(ctx.paths.tmp, '.disk-probe'),
    });
    ctx.group.listen({ lost: (err) => this.groupLost(err) });
    this.done = new Promise<CrawlSnapshot>((resolve) => {
      queueMicrotask(() => {
        this.loop()
          .catch((err) => this.fail(err))
          .finally(async () => {
            // The last group commits before the files close. A lost one (stopped while paused
            // for it; nothing is in flight by now) is dealt with here if the database takes the
            // writes; if not it stays lost, the current WARC is not closed (onFileClosing refuses)
            // and stays `.open`, and the next run reconciles it and re-queues its URIs.
            this.closing = true;
            this.suspendGroup();
            if (this.ctx.group.state === 'lost') await this.settleLostGroup();
            try {
              await this.hooks.closeFiles();
            } catch (err) {
              this.fail(err);
            }
            if (this._state !== 'failed') this._state = 'finished';
            const final = this.snapshot();
            try {
              await this.hooks.closeStore(final);
            } catch (err) {
              this.fail(err);
              final.state = 'failed';
            }
            this.emit({ type: 'snapshot', snapshot: final });
            this.emit({ type: 'state', state: final.state, reason: this.reason, message: this.message });
            resolve(final);
          });
      });
    });
  }

  get state(): CrawlState {
    return this._state;
  }

  /** Resolves with the final snapshot once the crawl has finished or failed and files are closed. */
  finished(): Promise<CrawlSnapshot> {
    return this.done;
  }

  on(listener: (e: CrawlEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  pause(): void {
    if (this._state !== 'running') return;
    this.pauseRequested = true;
    this.setState('pausing');
    this.poke();
  }

  /**
   * A response said the login ended (--logged-in-check, chain/check-logged-in.ts): pause with
   * the reason in the snapshot's message and the log, once; `onResume` reads the refreshed
   * profile before the crawl goes on.
   */
  loggedOut(url: string, why: string, onResume: () => void): void {
    if (this.loginPaused || this.stopRequested) return;
    this.loginPaused = onResume;
    this.message = `paused: logged out (${url}: ${why}); refresh the profile (trove profile create NAME --url LOGIN_URL --update), then resume`;
    this.pause();
    this.log('warn', 'LOGGED_OUT', this.message);
    this.emitSnapshot();
  }

  /**
   * A response was a login wall (chain/note-login-wall.ts): say once that the site needs a login
   * (`hasLogin`: the crawl carries one, which did not hold), and how to give it one.
   */
  loginWall(url: string, why: string, hasLogin: boolean): void {
    if (this.loginWallSaid) return;
    this.loginWallSaid = true;
    const how = hasLogin
      ? 'the crawl carries a login, which the site did not accept (the session may have ended: refresh the profile; --logged-in-check pauses the crawl when it does)'
      : 'pages behind a login are not archived without one: crawl with --profile NAME (trove profile create NAME --url LOGIN_URL) or --cookies FILE';
    this.log('warn', 'LOGIN_REQUIRED', `${url}: ${why}; ${how}`);
  }

  resume(): void {
    if (this._state !== 'paused' && this._state !== 'pausing') return;
    if (this.loginPaused) {
      this.loginPaused();
      this.loginPaused = null;
      this.message = null;
    }
    this.pauseRequested = false;
    this.diskPaused = false;
    this.ctx.group.open();
    this.setState('running');
    this.poke();
  }

  /** First call: graceful (in-flight fetches finish). With `now`, or a second call: abort in-flight fetches. */
  stop(opts: { now?: boolean; reason?: FinishReason } = {}): void {
    if (this._state === 'finished' || this._state === 'failed') return;
    if (this.stopRequested || opts.now) this.hardAbort.abort();
    if (!this.stopRequested) {
      this.stopRequested = true;
      this.reason = this.reason ?? opts.reason ?? 'operator';
      this.setState('stopping');
    }
    this.poke();
  }

  /**
   * Add a live exclusion (live-exclude.ts): queued URIs matching `pattern` are dropped and logged
   * in scope.log, later ones are rejected by scope, and the settings keep it for a resume.
   * Throws SCOPE_BAD_REGEX, or CRAWL_NOT_RUNNING once the crawl is closing.
   */
  addExclude(pattern: string, askedBy = 'the app'): LiveExcludeResult {
    if (this.closing || !this.hooks.addExclude) throw new TroveError('CRAWL_NOT_RUNNING', 'the crawl is finishing: add the exclusion once it has stopped');
    const r = this.hooks.addExclude(pattern);
    this.log('info', 'EXCLUDE_ADDED', `excluding /${pattern}/ (asked by ${askedBy}): ${r.dropped} queued URI${r.dropped === 1 ? '' : 's'} dropped, listed in logs/scope.log`);
    this.emitSnapshot();
    return r;
  }

  /** Apply the exclusions other processes asked for, and answer each. */
  private takeExcludeRequests(): void {
    const channel = this.hooks.excludeRequests;
    if (!channel || this.closing) return;
    for (const req of channel.take()) {
      let answer: ExcludeAnswer;
      try {
        answer = { ok: true, result: this.addExclude(req.pattern, 'another process') };
      } catch (err) {
        const code = (err as { code?: unknown })?.code;
        answer = { ok: false, error: { code: typeof code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(code) ? code : 'INTERNAL', message: (err as Error)?.message ?? String(err) } };
      }
      try {
        channel.answer(req.id, answer);
      } catch (err) {
        this.log('warn', 'EXCLUDE_ADDED', `could not answer the exclusion request ${req.id}: ${(err as Error).message}`);
      }
    }
  }

  snapshot(): CrawlSnapshot {
    const now = this.ctx.now();
    const elapsedMs = this.elapsedBefore + (now - this.runStartedAt);
    const pausedMs = this.pausedMs(now);
    const c = this.ctx.frontier.counts(now);
    const stats = this.ctx.stats;
    const rates = stats.rates(now, elapsedMs - pausedMs);
    const hosts: HostRow[] = this.ctx.frontier.queues(200, 0, now).map((q) => {
      const note = this.ctx.queueNotes.get(q.key);
      return {
        queue: q.key,
        pending: q.pending,
        inFlight: q.inFlight,
        done: q.done,
        failed: q.failed,
        readyInMs: Math.max(0, q.readyAt - now),
        delayMs: note?.delayMs ?? 0,
        delayReason: note?.delayReason ?? '-',
        robots: this.hooks.robotsFor(q.key),
        backoffs: note?.backoffs ?? 0,
      };
    });
    return {
      name: this.ctx.settings.name,
      dir: this.ctx.paths.dir,
      state: this._state,
      finishReason: this.reason,
      message: this.message,
      startedAt: this.startedAt,
      elapsedMs,
      pausedMs,
      // What a browser tab loaded for its pages is archived beside them, outside the frontier.
      downloaded: c.done + stats.totals.browserLoads,
      browserLoads: stats.totals.browserLoads,
      rendered: stats.totals.rendered,
      failed: c.failed,
      queued: c.pending,
      retrying: this.retrying(c.waiting, now),
      retries: stats.totals.retries,
      heldByPageLimit: this.heldByPageLimit(c.pending),
      inFlight: c.inFlight,
      seen: c.seen,
      pages: stats.totals.pages,
      bytes: stats.totals.bytes,
      novelBytes: stats.totals.novelBytes,
      duplicateBytes: stats.totals.duplicateBytes,
      warcBytes: this.hooks.previousWarcBytes + this.ctx.writer.bytesWritten,
      ...rates,
      statusCodes: { ...stats.statusCodes },
      mimeTypes: { ...stats.mimeTypes },
      scopeRejections: { ...stats.scopeRejections },
      hosts,
      recent: stats.recent.slice(0, 20),
      traps: this.hooks.traps(),
      warcFiles: this.hooks.warcFiles(),
      ...(this.hooks.workers ? { workers: this.hooks.workers() } : {}),
    };
  }

  /** Paused time in all runs, the current pause included. */
  private pausedMs(now: number): number {
    return this.pausedBefore + this.pausedThisRun + (this.pausedSince === null ? 0 : now - this.pausedSince);
  }

  /** The URIs waiting for another try, the soonest few with their last outcome, try and countdown. */
  private retrying(waiting: number, now: number): RetryWaiting {
    // Only waiting URIs can be retries: nothing is asked of the database while none wait.
    if (waiting === 0) return { count: 0, next: [] };
    const r = this.ctx.frontier.retryWaiting(RETRIES_SHOWN, RETRIES_COUNTED);
    const maxTries = this.ctx.settings.maxRetries + 1;
    return {
      count: r.count,
      ...(r.capped ? { capped: true } : {}),
      next: r.uris.map((u) => ({
        url: u.url,
        queue: u.queueKey,
        status: u.status,
        outcome: outcomeName(u.status),
        nextTry: u.attempts + 1,
        // A resume with a lower --max-retries leaves URIs that were already due another try.
        maxTries: Math.max(maxTries, u.attempts + 1),
        nextTryAt: u.notBefore,
        nextTryInMs: Math.max(0, u.notBefore - now),
      })),
    };
  }

  /**
   * Of `queued`, the URIs a reached page limit holds back: those that may be pages (the rest,
   * embeds and prerequisites of the captured pages, are still fetched). 0 while the limit has room.
   */
  private heldByPageLimit(queued: number): number {
    const limit = this.ctx.settings.limitPages;
    if (limit <= 0 || queued === 0) return 0;
    const reached =
      this.reason === 'limit-pages' || (this.ctx.frontier.pagesOpen ? !this.ctx.frontier.pagesOpen() : this.ctx.stats.totals.pages >= limit);
    return reached ? Math.max(0, queued - this.ctx.frontier.queuedNonPages()) : 0;
  }

  private async loop(): Promise<void> {
    this.setState('running');
    this.ctx.group.open();
    while (true) {
      const now = this.ctx.now();
      this.maybeSnapshot(now);
      if (this.stopRequested) {
        if (this.inflight.size === 0) return;
      } else {
        this.checkLimits(now);
        this.checkDisk(now);
        if (this.pauseRequested || this.diskPaused) {
          if (this.inflight.size === 0 && this._state === 'pausing') {
            // Paused, the crawl's writes are all committed (readers see them; nothing waits).
            this.suspendGroup();
            // In-flight URIs may have written since the disk pause began: give the WAL back again.
            if (this.diskPaused) this.guard.checkpoint();
            this.setState('paused');
            this.emitSnapshot();
          }
        } else {
          while (this.freeSlots.length > 0 && this.inflight.size - this.parked < this.maxActive && !this.stopRequested && !this.diskPaused && this.underUriLimit(now)) {
            let uris: ClaimedUri[];
            try {
              uris = this.ctx.group.unit(() => this.claimSome(this.ctx.now()));
            } catch (err) {
              // A claim checks before it writes: refused, it changed nothing (or its whole group
              // was lost, which groupLost deals with). Pause until writes succeed.
              if (!isDiskFullError(err) && !isGroupLostError(err)) throw err;
              this.diskPause(`the database refused a write (${(err as Error).message})`);
              break;
            }
            if (uris.length === 0) break;
            for (const uri of uris) this.start(uri);
          }
          for (const r of this.ctx.frontier.lateRefusals?.() ?? []) this.log('warn', 'COMPLETION_REFUSED', `${r.url}: ${r.message}`);
          if (this.diskPaused) continue;
          if (this.inflight.size === 0) {
            let next = this.ctx.frontier.nextReadyAt({ pages: this.pagesOpen() });
            if (next === null && this.ctx.frontier.counts().inFlight > 0) {
              // Nothing runs, yet the database holds leases: a lease whose release a full disk
              // refused. Put them back (exactly what a resume does) and carry on.
              try {
                const n = this.ctx.frontier.recoverInFlight();
                this.log('warn', 'LEASES_REQUEUED', `${n} URIs left leased after a failed write were put back in the queue`);
              } catch (err) {
                this.log('warn', 'LEASES_REQUEUE_FAILED', `could not put leased URIs back yet: ${(err as Error).message}`);
              }
              next = this.ctx.frontier.nextReadyAt({ pages: this.pagesOpen() });
            }
            if (next === null) {
              // Nothing left to claim: with the page slots all taken (and none in flight, so the
              // limit is reached), what is left are pages beyond the limit.
              this.reason = this.pagesOpen() ? 'frontier-empty' : 'limit-pages';
              if (this.reason === 'limit-pages') this.message = `page limit reached (${this.ctx.settings.limitPages} pages, with their embeds)`;
              this.stopRequested = true;
              this.setState('stopping');
              return;
            }
          }
        }
      }
      // Sleep until a slot finishes, the next queue is ready, a command arrives, or a tick passes.
      // With every fetch slot taken nothing can be claimed before one is given back (which wakes
      // the loop), so the next ready time is not asked for: it cost two queries per pass, and with
      // a queue ready and the slots full the loop came round every 5 ms to ask again.
      const canClaim = this.freeSlots.length > 0 && this.inflight.size - this.parked < this.maxActive;
      const next = this.stopRequested || this.pauseRequested || !canClaim ? null : this.ctx.frontier.nextReadyAt({ pages: this.pagesOpen() });
      const waitMs = Math.max(5, Math.min(next === null ? 1000 : next - this.ctx.now(), SNAPSHOT_MS));
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, waitMs);
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  /** Whether a URI that may be a page can be claimed now (always, without a page limit). */
  private pagesOpen(): boolean {
    const limit = this.ctx.settings.limitPages;
    if (limit > 0 && this.ctx.frontier.pagesOpen) return this.ctx.frontier.pagesOpen(); // a shared frontier counts crawl-wide
    return limit <= 0 || this.ctx.stats.totals.pages + this.pageSlotsHeld < limit;
  }

  /**
   * One URI, or on a frontier that claims several in one call (a shared crawl's database round
   * trip) as many as there are free fetch slots and room under the URI limit.
   */
  private claimSome(now: number): ClaimedUri[] {
    const { frontier, settings } = this.ctx;
    const opts = { pages: this.pagesOpen() };
    if (!frontier.claimMany) {
      const uri = frontier.claim(now, opts);
      return uri ? [uri] : [];
    }
    const uriRoom = settings.limitUris > 0 ? settings.limitUris - this.uriTotal(now) - this.inflight.size : Infinity;
    const room = Math.min(this.freeSlots.length, this.maxActive - (this.inflight.size - this.parked), uriRoom);
    return frontier.claimMany(now, Math.max(1, room), opts);
  }

  /** Whether one more URI may be claimed under the URI limit (finished + in flight < limit). */
  private underUriLimit(now: number): boolean {
    const limit = this.ctx.settings.limitUris;
    return limit <= 0 || this.uriTotal(now) + this.inflight.size < limit;
  }

  private start(uri: ClaimedUri): void {
    const slot = this.freeSlots.pop()!;
    // A page slot is given back when the URI is done: by then a page has been counted in the
    // stats (processUri records its outcome before it returns), so the two never both lapse.
    const holdsPage = this.ctx.settings.limitPages > 0 && mayBePage(uri.hopsPath);
    if (holdsPage) this.pageSlotsHeld++;
    let slotFree = false;
    // The fetch slot comes back when the fetch is over (processUri says so) or, at the latest,
    // when the URI is done; the URI keeps its place in `inflight` until then.
    const freeSlot = () => {
      if (slotFree) return;
      slotFree = true;
      this.freeSlots.push(slot);
      this.poke();
    };
    let parked = false;
    const park = (on: boolean) => {
      if (on === parked) return;
      parked = on;
      this.parked += on ? 1 : -1;
      this.poke();
    };
    const p: Promise<void> = processUri(this.ctx, this.uriChain, uri, slot, freeSlot, park)
      .then((r) => {
        if (r.kind === 'retry') this.ctx.stats.recordRetry();
        // An unexpected error ended this URI as a −5 through the chain's disposition (crawl.log,
        // stats); its stack goes to the crawl's error log.
        if (r.error !== undefined) this.log('error', 'URI_FAILED', `${uri.url}: ${(r.error as Error)?.stack ?? r.error}`);
      })
      .catch((err) => {
        if (isDiskFullError(err) || isGroupLostError(err)) {
          const warc = isTroveError(err, 'WARC_WRITE_FAILED');
          const spool = isTroveError(err, 'FETCH_SPOOL_FAILED');
          // A database write refused after the WARC group was written leaves records the index
          // does not know: indexed before resuming (reconcile-index.ts).
          if (!warc && !spool) this.needsReconcile = true;
          // The writer cut the file back to its last complete group: nothing is corrupt. The
          // URI goes back to the queue and the crawl pauses until the disk has room again.
          try {
            this.ctx.frontier.defer(uri, this.ctx.now() + DISK_CHECK_MS);
          } catch {
            /* refused too (or closed by a hard stop): the lease is put back before resuming */
          }
          const what = warc ? 'writing the WARC failed' : spool ? 'spooling a response body failed' : 'the database refused a write';
          this.diskPause(`${what} (${(err as Error).message})`);
          return;
        }
        // Not even a −5 could be recorded (a hard stop may have closed the database): the lease
        // is put back in the queue on resume.
        this.log('error', 'URI_FAILED', `${uri.url}: ${(err as Error).stack ?? err}`);
      })
      .finally(() => {
        this.inflight.delete(p);
        if (holdsPage) this.pageSlotsHeld--;
        park(false);
        freeSlot();
        this.poke();
      });
    this.inflight.add(p);
  }

  private uriTotal(now: number): number {
    const c = this.ctx.frontier.counts(now);
    return c.done + c.failed;
  }

  private checkLimits(now: number): void {
    const s = this.ctx.settings;
    const t = this.ctx.stats.totals;
    // The time limit counts running time: an hour paused does not use up an hour of it.
    const runningS = (this.elapsedBefore + (now - this.runStartedAt) - this.pausedMs(now)) / 1000;
    const hit = (reason: FinishReason, msg: string) => {
      if (this.appliedLimits.has(reason)) return;
      this.appliedLimits.add(reason);
      this.message = msg;
      this.log('info', 'LIMIT_REACHED', msg);
      this.stop({ reason });
    };
    // The page limit does not stop the crawl: no page is claimed beyond it (pagesOpen), the
    // captured pages' embeds are still fetched, and the loop finishes once none is left.
    if (s.limitPages > 0 && t.pages >= s.limitPages && !this.pageLimitSaid) {
      this.pageLimitSaid = true;
      this.log('info', 'PAGE_LIMIT_REACHED', `page limit reached (${s.limitPages}): fetching what the captured pages still need (stylesheets, images, redirects), then finishing`);
    }
    // The URI count needs the frontier's counters (a query): only when that limit is set.
    if (s.limitUris > 0 && this.uriTotal(now) >= s.limitUris) {
      // Every fetch counts, robots.txt included: a limit of 1 on a site with robots.txt ends
      // before its first page. Say so rather than leave an empty crawl unexplained.
      const noPage = t.pages === 0 ? ` before any page was captured: every fetch counts, robots.txt included, so a crawl that reads robots.txt needs --limit-uris 2 or more` : '';
      hit('limit-uris', `URI limit reached (${s.limitUris})${noPage}`);
    } else if (s.limitBytes > 0 && t.bytes >= s.limitBytes) hit('limit-bytes', `byte limit reached (${s.limitBytes})`);
    else if (s.limitTimeS > 0 && runningS >= s.limitTimeS) hit('limit-time', `time limit reached (${s.limitTimeS} s of running time)`);
    else if (s.maxTotalWarcBytes > 0 && this.hooks.previousWarcBytes + this.ctx.writer.bytesWritten >= s.maxTotalWarcBytes)
      hit('limit-warc-bytes', `WARC size limit reached (${s.maxTotalWarcBytes} bytes)`);
  }

  /**
   * Pause for the disk: the reason goes into the snapshot's message at once (the progress line
   * shows it) and into the log; the WAL is checkpointed and truncated to give its disk back.
   */
  private diskPause(reason: string): void {
    this.lastDiskCheck = this.ctx.now();
    if (this.diskPaused) return;
    this.diskPaused = true;
    this.lastProbeError = null;
    this.message = `paused: ${reason}; free some disk space and the crawl resumes by itself`;
    this.log('warn', 'DISK_PAUSED', this.message);
    // What is in the open group commits (or is found lost) before the WAL is given back; until
    // the disk is back, writes commit one at a time.
    this.suspendGroup();
    this.guard.checkpoint();
    if (this._state === 'running') this.setState('pausing');
    this.emitSnapshot();
  }

  /**
   * Disk guard (disk-guard.ts): pause under --min-free-disk (plus the WAL's room to grow); while
   * paused, resume only when free space is back *and* a real write probe succeeds.
   */
  private checkDisk(now: number): void {
    if (now - this.lastDiskCheck < DISK_CHECK_MS) return;
    this.lastDiskCheck = now;
    const short = this.guard.shortfall();
    if (short) {
      const mib = (n: number) => (n / 1048576).toFixed(1);
      this.diskPause(
        `only ${mib(short.free)} MiB free on the disk holding ${this.ctx.paths.warcs} (the crawl keeps ${mib(short.needed)} MiB free: --min-free-disk ${mib(this.guard.minFreeBytes)} MiB and room for the database log)`,
      );
      return;
    }
    if (!this.diskPaused || this.reconciling || (this.needsReconcile && this.inflight.size > 0)) return;
    const failed = this.guard.probe();
    if (failed !== null) {
      if (failed !== this.lastProbeError) this.log('info', 'DISK_STILL_FULL', `disk still refuses writes (${failed}); staying paused`);
      this.lastProbeError = failed;
      return;
    }
    const resume = () => {
      this.diskPaused = false;
      this.message = null;
      this.log('info', 'DISK_BACK', 'a test write succeeded: disk space is back, resuming');
      this.ctx.group.recover();
      // Leases whose release the full disk refused would hold their queue's slots until the
      // frontier ran dry: with nothing in flight, put them back now (what a resume does).
      if (this.inflight.size === 0) {
        try {
          const n = this.ctx.frontier.recoverInFlight();
          if (n > 0) this.log('info', 'LEASES_REQUEUED', `${n} URIs left leased after a failed write were put back in the queue`);
        } catch (err) {
          this.log('warn', 'LEASES_REQUEUE_FAILED', `could not put leased URIs back yet: ${(err as Error).message}`);
        }
      }
      if (!this.pauseRequested) {
        this.ctx.group.open();
        this.setState('running');
      }
      this.poke();
    };
    if (!this.needsReconcile) return resume();
    // A lost group's URIs have all settled (needsReconcile waits for them): index its records.
    this.ctx.group.recover();
    this.reconciling = true;
    this.hooks
      .reconcile()
      .then((notes) => {
        this.needsReconcile = false;
        for (const n of notes) this.log('info', n.code, n.message);
        resume();
      })
      .catch((err) => this.log('warn', 'INDEX_RECONCILE_FAILED', `index check after disk full (tried again shortly): ${(err as Error).message}`))
      .finally(() => {
        this.reconciling = false;
      });
  }

  /** At the end, with nothing in flight: index the lost group's records and put its leases back. */
  private async settleLostGroup(): Promise<void> {
    try {
      const notes = await this.hooks.reconcile();
      this.needsReconcile = false;
      for (const n of notes) this.log('info', n.code, n.message);
      this.ctx.group.recover();
      const n = this.ctx.frontier.recoverInFlight();
      if (n > 0) this.log('info', 'LEASES_REQUEUED', `${n} URIs left leased after a failed write were put back in the queue`);
    } catch (err) {
      this.log('warn', 'INDEX_RECONCILE_FAILED', `index check after a lost group of writes (done when the crawl is resumed): ${(err as Error).message}`);
    }
  }

  /** Commit the open group now and group no more until `open`; a loss is said by groupLost. */
  private suspendGroup(): void {
    try {
      this.ctx.group.suspend();
    } catch {
      /* lost: groupLost has paused the crawl */
    }
  }

  /**
   * SQLite rolled back the open group (a refused COMMIT, or a statement failing on a full disk or
   * an I/O error): the claims and completions in it are gone, while their URIs' WARC records are
   * written. Pause as for a full disk; once the URIs in flight have settled and a write succeeds,
   * the records the index lacks are indexed (reconcile-index.ts) and the leases the group's
   * completions held are put back (recoverInFlight), so those URIs are fetched again; a claim
   * that was lost left its URI queued. Nothing is dropped, and no record is indexed twice.
   */
  private groupLost(err: unknown): void {
    this.needsReconcile = true;
    this.diskPause(`the database rolled back its last group of writes (${(err as Error)?.message ?? err})`);
  }

  private maybeSnapshot(now: number): void {
    if (now - this.lastSnapshot < SNAPSHOT_MS) return;
    this.lastSnapshot = now;
    this.takeExcludeRequests();
    try {
      this.hooks.persist();
    } catch {
      /* counters are advisory */
    }
    // A newly suspected crawler trap is said once in the log (the CLI prints it; the app shows it).
    for (const t of this.hooks.traps()) {
      const key = `${t.host} ${t.pattern}`;
      if (this.trapsSaid.has(key)) continue;
      this.trapsSaid.add(key);
      this.log('warn', 'TRAP_SUSPECTED', `possible crawler trap on ${t.host}: ${t.count}× ${t.pattern}${t.evidence ? ` (${t.evidence})` : ''} — consider --exclude '${t.suggestedExclude}'`);
    }
    this.emitSnapshot();
  }

  private emitSnapshot(): void {
    if (this.listeners.size > 0) this.emit({ type: 'snapshot', snapshot: this.snapshot() });
  }

  private poke(): void {
    this.wake?.();
  }

  private fail(err: unknown): void {
    this.reason = 'error';
    this.message = (err as Error)?.message ?? String(err);
    this.log('error', 'CRAWL_FAILED', `crawl failed: ${(err as Error)?.stack ?? err}`);
    this.setState('failed');
    this.hardAbort.abort();
  }

  private setState(state: CrawlState): void {
    if (this._state === state || this._state === 'failed') return;
    // Paused time (left out of the averages) runs from 'paused' until any other state.
    const now = this.ctx.now();
    if (state === 'paused' && this.pausedSince === null) this.pausedSince = now;
    else if (state !== 'paused' && this.pausedSince !== null) {
      this.pausedThisRun += now - this.pausedSince;
      this.pausedSince = null;
    }
    this._state = state;
    this.emit({ type: 'state', state, reason: this.reason, message: this.message });
  }

  private log(level: 'info' | 'warn' | 'error', code: CrawlLogCode, message: string): void {
    this.emit({ type: 'log', level, code, message });
  }

  private emit(e: CrawlEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        /* a listener's error is its own */
      }
    }
  }
}
