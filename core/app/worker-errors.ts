/**
 * An error as data that survives postMessage: its code when it is one of the catalogue's,
 * otherwise INTERNAL with the message kept (what the IPC gate does with an error it did not expect).
 */
import type { AppError } from '../api/result.ts';
import { isErrorCode } from '../api/error-codes.ts';

export function toAppError(err: unknown): AppError {
  const e = err as { code?: unknown; message?: unknown };
  const code = isErrorCode(e?.code) ? e.code : 'INTERNAL';
  const message = typeof e?.message === 'string' ? e.message : String(err);
  return { code, message };
}
