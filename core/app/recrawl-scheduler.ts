/**
 * Crawls that run again on a schedule while the app runs (issue 38): daily, weekly or a cron
 * expression (core/crawl/recrawl-schedule.ts, read by croner). Each run is a recrawl of the
 * series' latest crawl, started through `start` (the app's "Crawl again"). Nothing is skipped
 * in silence: a run that fell due while the app was closed starts once at the next start (the
 * others are recorded as missed), a run that falls due while the last is still going is
 * recorded as an overlap and not started twice (so is one that falls due while a crawl of the
 * series started by hand still runs), and a run that fails is recorded as failed.
 *
 * The clock is injected (now and timers), so a test moves time and reads what started when.
 */
import { nextRunAfter } from '../crawl/recrawl-schedule.ts';
import { isTroveError } from '../errors.ts';
import type { ScheduleEvent, ScheduleState } from '../api/series-types.ts';

export interface SchedulerClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const SYSTEM_CLOCK: SchedulerClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** Where schedules and what happened to their runs are kept (core/app/schedule-store.ts). */
export interface ScheduleStoreLike {
  load(): ScheduleState[];
  save(states: ScheduleState[]): void;
  addEvent(e: ScheduleEvent): void;
}

/** A run started: its crawl id, and its end. */
export interface StartedRun {
  runId: string;
  done: Promise<'finished' | 'failed'>;
}

export interface SchedulerOptions {
  clock?: SchedulerClock;
  store: ScheduleStoreLike;
  /** Start a recrawl of the series `id` (its latest crawl); rejects when it cannot start. */
  start: (id: string) => Promise<StartedRun>;
}

/** A timer never waits longer than this: a clock that jumped (a laptop asleep) is looked at again within the hour. */
const MAX_WAIT_MS = 3_600_000;
/** Due times counted at most when telling how many runs were missed. */
const MAX_COUNTED = 10_000;

export class RecrawlScheduler {
  private readonly clock: SchedulerClock;
  private readonly store: ScheduleStoreLike;
  private readonly startRun: SchedulerOptions['start'];
  private states: ScheduleState[] = [];
  private readonly running = new Map<string, string>();
  private timer: unknown = null;
  private stopped = true;

  constructor(opts: SchedulerOptions) {
    this.clock = opts.clock ?? SYSTEM_CLOCK;
    this.store = opts.store;
    this.startRun = opts.start;
  }

  /** Load the schedules and run what fell due while the app was closed (once each); then wait for the next. */
  start(): void {
    this.stopped = false;
    this.states = this.store.load();
    this.tick();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  list(): ScheduleState[] {
    return this.states.map((s) => ({ ...s }));
  }

  get(id: string): ScheduleState | null {
    const s = this.states.find((x) => x.id === id);
    return s ? { ...s } : null;
  }

  /** Set (or with null, remove) the schedule of a series; the spec is checked first (SCHEDULE_INVALID). */
  set(id: string, spec: string | null): ScheduleState | null {
    this.states = this.states.filter((s) => s.id !== id);
    let state: ScheduleState | null = null;
    if (spec !== null) {
      const now = this.clock.now();
      state = { id, spec, since: now, lastDue: null, next: nextRunAfter(spec, now) };
      this.states.push(state);
    }
    this.store.save(this.states);
    if (!this.stopped) this.arm();
    return state ? { ...state } : null;
  }

  /** Whether a scheduled run of this series is going on. */
  isRunning(id: string): boolean {
    return this.running.has(id);
  }

  /** Look at every schedule against the clock: start what is due, record what cannot start. */
  tick(): void {
    if (this.stopped) return;
    const now = this.clock.now();
    let changed = false;
    for (const s of this.states) {
      const first = nextRunAfter(s.spec, s.lastDue ?? s.since);
      if (first === null || first > now) continue;
      // Every due time up to now is handled here, once: the latest one runs, earlier ones are missed.
      let latest = first;
      let count = 1;
      for (let t = nextRunAfter(s.spec, first); t !== null && t <= now && count < MAX_COUNTED; t = nextRunAfter(s.spec, t)) {
        latest = t;
        count++;
      }
      if (count > 1) this.store.addEvent({ id: s.id, kind: 'missed', due: first, at: now, note: `${count - 1} run${count === 2 ? '' : 's'} missed (from ${new Date(first).toISOString()}) while the app was not running` });
      s.lastDue = latest;
      changed = true;
      this.due(s.id, latest, now);
    }
    for (const s of this.states) s.next = nextRunAfter(s.spec, Math.max(now, s.lastDue ?? s.since));
    if (changed) this.store.save(this.states);
    this.arm();
  }

  private due(id: string, due: number, now: number): void {
    const current = this.running.get(id);
    if (current !== undefined) {
      this.store.addEvent({ id, kind: 'overlap', due, at: now, runId: current, note: `the run due then was not started: ${current} was still running` });
      return;
    }
    const late = now - due > 60_000;
    this.running.set(id, '');
    this.startRun(id).then(
      (run) => {
        this.running.set(id, run.runId);
        this.store.addEvent({ id, kind: 'started', due, at: this.clock.now(), runId: run.runId, ...(late ? { note: 'started late: it fell due while the app was not running' } : {}) });
        void run.done.then(
          (end) => this.ended(id, due, run.runId, end, null),
          (err: unknown) => this.ended(id, due, run.runId, 'failed', (err as Error).message),
        );
      },
      (err: unknown) => {
        // A crawl of the series started by hand ("Crawl again") still runs: an overlap, not a failure.
        if (!isTroveError(err, 'CRAWL_RUNNING')) return this.ended(id, due, null, 'failed', `could not start: ${(err as Error).message}`);
        this.running.delete(id);
        const runId = err.details.id;
        this.store.addEvent({ id, kind: 'overlap', due, at: this.clock.now(), ...(typeof runId === 'string' ? { runId } : {}), note: `the run due then was not started: ${err.message}` });
      },
    );
  }

  private ended(id: string, due: number, runId: string | null, end: 'finished' | 'failed', note: string | null): void {
    this.running.delete(id);
    this.store.addEvent({ id, kind: end, due, at: this.clock.now(), ...(runId ? { runId } : {}), ...(note ? { note } : {}) });
  }

  private arm(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    const now = this.clock.now();
    const next = Math.min(...this.states.map((s) => s.next ?? Infinity));
    if (!Number.isFinite(next)) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      this.tick();
    }, Math.min(Math.max(0, next - now), MAX_WAIT_MS));
  }
}
