/**
 * The renderer's only way out: `window.trove`, built by the preload (Electron) or the e2e
 * harness from the command table. State classes take a TroveApi so tests can pass a fake.
 */
import type { TroveApi } from '../../../core/api/channels.ts';
import type { AppError, Result } from '../../../core/api/result.ts';

declare global {
  interface Window {
    trove: TroveApi;
  }
}

export type { TroveApi };

export function getTrove(): TroveApi {
  if (!window.trove) throw new Error('window.trove is missing: the preload (or the test harness) did not run');
  return window.trove;
}

/** An AppError as a thrown Error, for code paths that only show the message. */
export class CommandError extends Error {
  readonly code: string;
  constructor(error: AppError) {
    super(error.message);
    this.name = 'CommandError';
    this.code = error.code;
  }
}

/** The value of a Result, or throw its error as a CommandError. */
export async function unwrap<T>(p: Promise<Result<T>>): Promise<T> {
  const r = await p;
  if (!r.ok) throw new CommandError(r.error);
  return r.value;
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
