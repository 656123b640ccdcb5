/**
 * What every command answers, across the IPC gate and in tests: a value or an error with a
 * stable code. Errors are data, never thrown across the bridge, so the renderer always gets the
 * code and message the core meant (Electron would otherwise wrap a thrown error's message in
 * "Error invoking remote method …" and drop its code).
 */

import type { ErrorCode } from './error-codes.ts';

export interface AppError {
  /** Stable, from the catalogue (error-codes.ts), e.g. `PAYLOAD_INVALID`, `SETTINGS_INVALID`, `INTERNAL`. */
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: AppError };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function fail<T = never>(code: ErrorCode, message: string, details?: Record<string, unknown>): Result<T> {
  return { ok: false, error: details === undefined ? { code, message } : { code, message, details } };
}
