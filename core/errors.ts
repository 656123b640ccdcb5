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
