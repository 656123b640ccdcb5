/**
 * Time for the browser behaviors: how long the network has been quiet, how much of a budget is
 * left. Injectable so tests can drive it instead of depending on how fast a shared machine runs.
 */
import { setTimeout as delay } from 'node:timers/promises';

export interface BrowserClock {
  now(): number;
  /** Resolves after `ms` (or rejects with the signal's reason once it aborts). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const realClock: BrowserClock = {
  now: () => Date.now(),
  sleep: (ms, signal) => delay(ms, undefined, signal ? { signal } : undefined),
};
