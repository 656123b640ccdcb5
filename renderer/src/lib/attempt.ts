/**
 * The state classes' one way to call the core: the call's value, or its error's message (never a
 * throw, so a screen never meets an unhandled rejection), with an optional `busy` flag raised
 * while it runs. Each class decides where the message goes (its `error`, `detailError`…) and
 * whether a late answer still counts.
 */
import type { Result } from '../../../core/api/result.ts';
import { messageOf, unwrap } from './bridge.ts';

export type Outcome<T> = { ok: true; value: T } | { ok: false; message: string };

/** `call` is a command's Result (unwrapped here) or a function doing several steps. */
export async function attempt<T>(call: Promise<Result<T>> | (() => Promise<T>), busy?: (on: boolean) => void): Promise<Outcome<T>> {
  busy?.(true);
  try {
    return { ok: true, value: typeof call === 'function' ? await call() : await unwrap(call) };
  } catch (err) {
    return { ok: false, message: messageOf(err) };
  } finally {
    busy?.(false);
  }
}
