/**
 * A recrawl schedule as the user gives it (`daily`, `weekly`, or a cron expression) and when it
 * next falls due. Cron expressions are read by croner (a well-kept parser: ranges, steps, names,
 * `L`, time zones), not by hand. The app's scheduler (core/app/recrawl-scheduler.ts) and
 * `trove recrawl --print-cron` read the same spec, so a schedule means the same in both.
 */
import { Cron } from 'croner';
import { TroveError } from '../errors.ts';

/** The cron lines `daily` and `weekly` stand for: 03:00 local time, weekly on Mondays. */
export const SCHEDULE_PRESETS: Readonly<Record<string, string>> = { daily: '0 3 * * *', weekly: '0 3 * * 1' };

/** The 5-field cron expression of a schedule spec; SCHEDULE_INVALID when croner cannot read it. */
export function cronOfSchedule(spec: string): string {
  const given = spec.trim();
  const expr = SCHEDULE_PRESETS[given.toLowerCase()] ?? given;
  if (expr.split(/\s+/).length !== 5) {
    throw new TroveError('SCHEDULE_INVALID', `schedule ${JSON.stringify(spec)}: give daily, weekly or a cron expression of 5 fields (minute hour day month weekday)`, { spec });
  }
  try {
    new Cron(expr, { paused: true }).stop();
  } catch (err) {
    throw new TroveError('SCHEDULE_INVALID', `schedule ${JSON.stringify(spec)}: ${(err as Error).message}`, { spec }, { cause: err });
  }
  return expr;
}

/** The first time the schedule falls due strictly after `after` (ms), or null when it never does again. */
export function nextRunAfter(spec: string, after: number): number | null {
  const next = new Cron(cronOfSchedule(spec), { paused: true }).nextRun(new Date(after));
  return next ? next.getTime() : null;
}

/** The crontab line that runs the same recrawl headless: each run recrawls the latest of the series. */
export function crontabLine(spec: string, trove: string, crawlDir: string): string {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return `${cronOfSchedule(spec)} ${q(trove)} recrawl ${q(crawlDir)} --latest >> ${q(crawlDir + '.recrawl.log')} 2>&1`;
}
