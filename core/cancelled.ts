/**
 * Cancelling a long operation (import, check, CDXJ and WACZ export): the caller holds an
 * AbortController (the CLI aborts it on SIGINT/SIGTERM), the operation checks its signal where
 * it already reports progress and throws CANCELLED, and each operation's own error path removes
 * what it had begun to write. One check, so every operation stops the same way.
 */
import { isTroveError, TroveError } from './errors.ts';

/** Throws CANCELLED once `signal` is aborted. Cheap: a property read. */
export function throwIfCancelled(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted) throw new TroveError('CANCELLED', `${what} cancelled`, {});
}

export function isCancelled(err: unknown): boolean {
  return isTroveError(err, 'CANCELLED');
}
