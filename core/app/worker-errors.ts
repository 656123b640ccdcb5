/** An error as data that survives postMessage: the stable code when there is one. */
import type { AppError } from '../api/result.ts';

export function toAppError(err: unknown): AppError {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(e.code) ? e.code : 'INTERNAL';
  const message = typeof e?.message === 'string' ? e.message : String(err);
  return { code, message };
}
