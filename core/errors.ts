/**
 * Errors with stable codes. Every error Trove raises on purpose is a TroveError whose `code`
 * never changes between versions, so the CLI, the app and scripts can branch on it. The codes
 * are listed in the catalogue (api/error-codes.ts); a code not listed there does not compile.
 */
import type { ErrorCode } from './api/error-codes.ts';

export type { ErrorCode } from './api/error-codes.ts';

export class TroveError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TroveError';
    this.code = code;
    this.details = details;
  }
}

export function isTroveError(err: unknown, code?: ErrorCode): err is TroveError {
  return err instanceof TroveError && (code === undefined || err.code === code);
}

// Cancelling a long operation (import, check, CDXJ and WACZ export): the caller holds an
// AbortController (the CLI aborts it on SIGINT/SIGTERM), the operation checks its signal where it
// already reports progress and throws CANCELLED, and each operation's own error path removes what
// it had begun to write. One check, so every operation stops the same way.

/** Throws CANCELLED once `signal` is aborted. Cheap: a property read. */
export function throwIfCancelled(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted) throw new TroveError('CANCELLED', `${what} cancelled`, {});
}

export function isCancelled(err: unknown): boolean {
  return isTroveError(err, 'CANCELLED');
}
