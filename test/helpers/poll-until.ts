/**
 * Waiting in tests for state that other processes or the crawl loop change: a probe polled a
 * bounded number of times (never a wall-clock deadline), failing with what was awaited and,
 * if given, what was seen instead.
 */
export interface PollOptions {
  /** How many times the probe is asked before giving up. */
  attempts: number;
  /** The pause between two asks (ms). */
  everyMs: number;
  /** What was seen, for the failure message. */
  seen?: () => string;
}

export async function pollUntil(what: string, probe: () => boolean, opts: PollOptions): Promise<void> {
  for (let i = 0; i < opts.attempts; i++) {
    if (probe()) return;
    await new Promise((r) => setTimeout(r, opts.everyMs));
  }
  throw new Error(`gave up waiting for ${what}${opts.seen ? `; saw:\n${opts.seen()}` : ''}`);
}
