/**
 * What every export shares: the progress callback the CLI turns into a bar and the desktop app
 * into progress events, and the throttle that keeps a 50 GB export from calling it a million
 * times. Plain data only, so the shapes can cross IPC unchanged.
 */

import { throwIfCancelled } from '../errors.ts';

/** One progress report. `done`/`total` count the phase's units (records, bytes, files…). */
export interface ExportProgress {
  /** What is running now, e.g. `warcs`, `index`, `pages`, `records`, `files`. */
  phase: string;
  done: number;
  /** 0 when the total is not known yet. */
  total: number;
  /** Bytes written to the output so far. */
  bytes: number;
}

export type ProgressFn = (p: ExportProgress) => void;

/** How often a throttled reporter passes a report on (the last one of a phase always goes). */
export const PROGRESS_INTERVAL_MS = 100;

/**
 * A reporter that calls `fn` at most every PROGRESS_INTERVAL_MS, plus at every phase change and
 * on `flush()`. Calling it costs a clock read, so it can sit in a per-record loop. It is also
 * where an export notices it was cancelled: every loop that reports progress stops there
 * (CANCELLED, core/cancelled.ts), and the export's error path removes its `.part` file.
 */
export class ProgressThrottle {
  readonly #fn: ProgressFn | undefined;
  readonly #signal: AbortSignal | undefined;
  #last: ExportProgress | null = null;
  #lastAt = 0;
  #sentLast = true;

  constructor(fn: ProgressFn | undefined, signal?: AbortSignal) {
    this.#fn = fn;
    this.#signal = signal;
  }

  report(phase: string, done: number, total: number, bytes: number): void {
    throwIfCancelled(this.#signal, 'export');
    if (!this.#fn) return;
    const p = { phase, done, total, bytes };
    const phaseChanged = this.#last !== null && this.#last.phase !== phase;
    if (phaseChanged && !this.#sentLast) this.#fn(this.#last!);
    this.#last = p;
    const now = Date.now();
    if (phaseChanged || now - this.#lastAt >= PROGRESS_INTERVAL_MS) {
      this.#lastAt = now;
      this.#sentLast = true;
      this.#fn(p);
    } else {
      this.#sentLast = false;
    }
  }

  /**
   * The last report, once the output is complete (renamed into place): passed on at once and
   * never CANCELLED, since a cancel that comes after the rename has nothing left to undo.
   */
  done(phase: string, done: number, total: number, bytes: number): void {
    this.#last = { phase, done, total, bytes };
    this.#sentLast = false;
    this.flush();
  }

  /** Pass on the last report if the throttle held it back. */
  flush(): void {
    if (this.#fn && this.#last && !this.#sentLast) {
      this.#sentLast = true;
      this.#fn(this.#last);
    }
  }
}

/** `2026-11-21T09:00:00Z` (seconds precision, as WACZ and pages.jsonl write dates). */
export function isoSeconds(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

