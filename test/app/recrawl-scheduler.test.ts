/**
 * The recrawl scheduler on an injected clock: a run starts when it falls due (not before), a run
 * that fell due while the app was closed starts once at the next start and the others are
 * recorded as missed, a run that falls due while the last still runs (or one started by hand) is
 * recorded as an overlap and not started twice, and a run that fails is recorded. Schedules live
 * in the library's schedules.json (a real file).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RecrawlScheduler, type SchedulerClock, type StartedRun } from '../../core/app/recrawl-scheduler.ts';
import { ScheduleStore } from '../../core/app/schedule-store.ts';
import { cronOfSchedule, nextRunAfter } from '../../core/crawl/recrawl-schedule.ts';
import { isTroveError, TroveError } from '../../core/errors.ts';

/** A clock tests move by hand: timers fire, in order, as time passes them. */
class FakeClock implements SchedulerClock {
  t: number;
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private ids = 0;
  constructor(t: number) {
    this.t = t;
  }
  now = () => this.t;
  setTimeout = (fn: () => void, ms: number) => {
    const id = ++this.ids;
    this.timers.push({ at: this.t + ms, fn, id });
    return id;
  };
  clearTimeout = (h: unknown) => {
    this.timers = this.timers.filter((x) => x.id !== h);
  };
  async advanceTo(t: number): Promise<void> {
    for (;;) {
      // What the code under test awaits (a run's end) settles before time moves on.
      await new Promise((r) => setImmediate(r));
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers[0];
      if (!next || next.at > t) break;
      this.timers.shift();
      this.t = next.at;
      next.fn();
      await new Promise((r) => setImmediate(r));
    }
    this.t = t;
    await new Promise((r) => setImmediate(r));
  }
}

const EVERY_10_MIN = '*/10 * * * *';

describe('RecrawlScheduler', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });
  const setup = (t0: number) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-sched-'));
    dirs.push(dir);
    const clock = new FakeClock(t0);
    const store = new ScheduleStore(dir);
    const started: { id: string; at: number; finish: (end: 'finished' | 'failed') => void }[] = [];
    let n = 0;
    const start = (id: string): Promise<StartedRun> => {
      let finish!: (end: 'finished' | 'failed') => void;
      const done = new Promise<'finished' | 'failed'>((r) => (finish = r));
      started.push({ id, at: clock.now(), finish });
      return Promise.resolve({ runId: `${id}-run${++n}`, done });
    };
    const make = () => new RecrawlScheduler({ clock, store, start });
    return { dir, clock, store, started, make };
  };
  // 00:03 on a whole 10 minutes boundary's day, in local time as croner reads the expression.
  const t0 = new Date(2026, 11, 5, 0, 3, 0).getTime();
  const at = (h: number, m: number) => new Date(2026, 11, 5, h, m, 0).getTime();

  it('starts runs when they fall due, not before', async () => {
    const { clock, started, make } = setup(t0);
    const s = make();
    s.start();
    expect(s.set('site', EVERY_10_MIN)!.next).toBe(at(0, 10));
    await clock.advanceTo(at(0, 10) - 1);
    expect(started).toEqual([]);
    await clock.advanceTo(at(0, 10));
    expect(started.map((r) => [r.id, r.at])).toEqual([['site', at(0, 10)]]);
    started[0]!.finish('finished');
    await clock.advanceTo(at(0, 20));
    expect(started.map((r) => r.at)).toEqual([at(0, 10), at(0, 20)]);
    s.stop();
  });

  it('starts a run missed while the app was closed once at the next start, and records the others as missed', async () => {
    const { clock, store, started, make } = setup(t0);
    const first = make();
    first.start();
    first.set('site', EVERY_10_MIN);
    first.stop(); // the app closes at 00:03
    await clock.advanceTo(at(0, 45)); // 00:10, 00:20, 00:30, 00:40 pass
    expect(started).toEqual([]);
    const again = make();
    again.start();
    await clock.advanceTo(at(0, 45) + 1);
    expect(started.map((r) => r.at)).toEqual([at(0, 45)]);
    const events = store.events('site');
    expect(events.map((e) => e.kind)).toEqual(['started', 'missed']);
    expect(events[1]!.note).toMatch(/^3 runs missed/);
    expect(events[0]!.due).toBe(at(0, 40));
    expect(events[0]!.note).toMatch(/started late/);
    // A third start does not run it again.
    again.stop();
    const third = make();
    third.start();
    await clock.advanceTo(at(0, 49));
    expect(started).toHaveLength(1);
    third.stop();
  });

  it('does not start a run twice when the last is still running, and says so', async () => {
    const { clock, store, started, make } = setup(t0);
    const s = make();
    s.start();
    s.set('site', EVERY_10_MIN);
    await clock.advanceTo(at(0, 10));
    await clock.advanceTo(at(0, 30)); // 00:20 falls due while the 00:10 run goes on
    expect(started).toHaveLength(1);
    expect(s.isRunning('site')).toBe(true);
    expect(store.events('site').filter((e) => e.kind === 'overlap').map((e) => [e.due, e.runId])).toEqual([
      [at(0, 30), 'site-run1'],
      [at(0, 20), 'site-run1'],
    ]);
    started[0]!.finish('failed');
    await clock.advanceTo(at(0, 40));
    expect(started).toHaveLength(2);
    // Newest first.
    expect(store.events('site').map((e) => e.kind)).toEqual(['started', 'failed', 'overlap', 'overlap', 'started']);
    s.stop();
  });

  it('records a run that falls due while a crawl of the series started by hand still runs as an overlap, and starts the next', async () => {
    const { clock, store } = setup(t0);
    const started: number[] = [];
    let byHand = true;
    const start = (id: string): Promise<StartedRun> => {
      if (byHand) return Promise.reject(new TroveError('CRAWL_RUNNING', `${id}-2 of this series is still running: crawl again once it is done`, { id: `${id}-2` }));
      started.push(clock.now());
      return Promise.resolve({ runId: `${id}-3`, done: new Promise(() => {}) });
    };
    const s = new RecrawlScheduler({ clock, store, start });
    s.start();
    s.set('site', EVERY_10_MIN);
    await clock.advanceTo(at(0, 10));
    expect(store.events('site').map((e) => [e.kind, e.due, e.runId])).toEqual([['overlap', at(0, 10), 'site-2']]);
    expect(s.isRunning('site')).toBe(false);
    byHand = false;
    await clock.advanceTo(at(0, 20));
    expect(started).toEqual([at(0, 20)]);
    expect(store.events('site').map((e) => e.kind)).toEqual(['started', 'overlap']);
    s.stop();
  });

  it('reads daily, weekly and cron expressions with croner, and refuses others', () => {
    expect(cronOfSchedule('daily')).toBe('0 3 * * *');
    expect(cronOfSchedule('weekly')).toBe('0 3 * * 1');
    expect(nextRunAfter('weekly', new Date(2026, 11, 5, 12).getTime())).toBe(new Date(2026, 11, 7, 3).getTime());
    for (const bad of ['every tuesday', '61 * * * *', '* * * *']) {
      let err: unknown;
      try {
        cronOfSchedule(bad);
      } catch (e) {
        err = e;
      }
      expect(isTroveError(err, 'SCHEDULE_INVALID'), bad).toBe(true);
    }
  });
});
