/**
 * What the long archive commands (import, check, export) show while they run and how they stop:
 * a bar with an ETA on a terminal, like the crawl's; when stderr is not a terminal, a plain line
 * every `--progress-every` seconds (a log or a script sees how far it got). The first Ctrl-C
 * (SIGINT, or SIGTERM) cancels: the operation stops where it next reports progress and removes
 * what it had begun to write; a second one exits at once.
 */
import { InvalidArgumentError } from 'commander';
import { formatBytes } from '../formats/byte-size.ts';
import { formatElapsed } from './crawl-progress.ts';
import { newProgressBar, type ProgressBar } from './progress-bar.ts';

export interface ProgressIo {
  stderr: { write(chunk: string): unknown; isTTY?: boolean };
}

/** Plain lines' default interval when stderr is not a terminal. */
export const PLAIN_EVERY_S = 5;

/** One reading of a long operation: units done of total (bytes, records…), and a note. */
export interface OperationReading {
  done: number;
  total: number;
  /** Done and total are bytes (shown as MiB/GiB). */
  bytes: boolean;
  /** What else to say: the phase, records so far, the file. */
  note: string;
}

/** Seconds left at the rate so far, or null before there is a rate. */
export function etaSeconds(done: number, total: number, elapsedMs: number): number | null {
  if (done <= 0 || total <= done || elapsedMs <= 0) return total > 0 && done >= total ? 0 : null;
  return ((total - done) * elapsedMs) / done / 1000;
}

export class OperationProgress {
  readonly #name: string;
  readonly #io: ProgressIo;
  readonly #bar: ProgressBar | null;
  readonly #everyMs: number | null;
  readonly #now: () => number;
  readonly #start: number;
  #lastLine: number;
  #phaseStart: number;
  #phase = '';

  /** `every`: seconds between plain lines (null: none). `now`: the clock (tests inject one). */
  constructor(name: string, io: ProgressIo, opts: { enabled: boolean; every?: number; now?: () => number }) {
    this.#name = name;
    this.#io = io;
    this.#now = opts.now ?? Date.now;
    this.#start = this.#now();
    this.#lastLine = this.#start;
    this.#phaseStart = this.#start;
    const tty = io.stderr.isTTY === true;
    this.#bar = opts.enabled && tty ? newProgressBar({ format: ` ${name} {bar} {percentage}% | {amount} | ETA {eta} | {note}`, barsize: 24, hideCursor: true, stream: process.stderr }) : null;
    this.#bar?.start(1, 0, { amount: '', eta: '?', note: 'starting' });
    this.#everyMs = opts.enabled && !tty ? (opts.every ?? PLAIN_EVERY_S) * 1000 : null;
  }

  /** `phase`: a new phase restarts the ETA's clock (each phase has its own rate). */
  update(r: OperationReading, phase = ''): void {
    const now = this.#now();
    if (phase !== this.#phase) {
      this.#phase = phase;
      this.#phaseStart = now;
    }
    const eta = etaSeconds(r.done, r.total, now - this.#phaseStart);
    const etaText = eta === null ? '?' : formatElapsed(eta * 1000);
    const amount = r.bytes ? `${formatBytes(r.done)} of ${formatBytes(r.total)}` : `${r.done.toLocaleString('en')} of ${r.total > 0 ? r.total.toLocaleString('en') : '?'}`;
    if (this.#bar) {
      this.#bar.setTotal(Math.max(1, r.total));
      this.#bar.update(Math.min(r.done, Math.max(1, r.total)), { amount, eta: etaText, note: r.note });
      return;
    }
    if (this.#everyMs === null || now - this.#lastLine < this.#everyMs) return;
    this.#lastLine = now;
    const pct = r.total > 0 ? `${Math.min(100, Math.floor((100 * r.done) / r.total))}% ` : '';
    this.#io.stderr.write(`trove ${this.#name}: ${pct}${amount}, ETA ${etaText}, ${formatElapsed(now - this.#start)} elapsed${r.note ? ` | ${r.note}` : ''}\n`);
  }

  /** A line of its own (the bar is drawn again after it). */
  message(text: string): void {
    if (this.#bar) this.#bar.stop();
    this.#io.stderr.write(`${text}\n`);
  }

  stop(): void {
    this.#bar?.stop();
  }
}

/**
 * An AbortSignal the first SIGINT or SIGTERM aborts (saying so on stderr); the second exits at
 * once with 130. `dispose()` removes the handlers.
 */
export function cancelOnSignals(name: string, io: ProgressIo): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const onSignal = (): void => {
    if (controller.signal.aborted) process.exit(130);
    io.stderr.write(`\ntrove ${name}: cancelling: removing what was begun (Ctrl-C again to stop at once)…\n`);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/** The exit status of a cancelled command, as a shell gives one stopped by SIGINT. */
export const CANCELLED_EXIT = 130;

/** `--progress-every` as commander parses it. */
export function parseEvery(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError(`seconds (0 or more), not ${value}`);
  return n;
}
