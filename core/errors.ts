/**
 * Errors with stable codes. Every error Trove raises on purpose is a TroveError whose `code`
 * never changes between versions, so the CLI, the app and scripts can branch on it.
 */
export class TroveError extends Error {
  readonly code: string;
  readonly details: Record<string, unknown>;

  constructor(code: string, message: string, details: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TroveError';
    this.code = code;
    this.details = details;
  }
}

export function isTroveError(err: unknown, code?: string): err is TroveError {
  return err instanceof TroveError && (code === undefined || err.code === code);
}
