/**
 * A one-shot job in a worker thread (an export, an import): the worker posts any number of
 * `progress` messages, then one `done` or `failed`. This turns that into a promise of the `done`
 * message, rejecting with the job's own error code, or with `failCode` if the worker dies first.
 */
import type { Worker } from 'node:worker_threads';
import type { AppError } from '../api/result.ts';
import { TroveError } from '../errors.ts';
import { isErrorCode, type ErrorCode } from '../api/error-codes.ts';

export type JobMessage<P, D extends { type: 'done' }> = { type: 'progress'; progress: P } | D | { type: 'failed'; error: AppError };

export function workerResult<P, D extends { type: 'done' }>(
  worker: Worker,
  onProgress: (p: P) => void,
  /** The job's name ('export', 'import') for the message when the worker dies. */
  what: string,
  failCode: ErrorCode,
  details: Record<string, unknown> = {},
): Promise<D> {
  return new Promise<D>((resolve, reject) => {
    let settled = false;
    let failure: string | null = null;
    worker.on('error', (err) => (failure = err.message));
    worker.on('message', (m: JobMessage<P, D>) => {
      if (m.type === 'progress') onProgress(m.progress);
      else if (m.type === 'done') {
        settled = true;
        resolve(m as D);
      } else {
        settled = true;
        reject(new TroveError(isErrorCode(m.error.code) ? m.error.code : failCode, m.error.message, details));
      }
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new TroveError(failCode, failure ?? `the ${what} worker stopped (code ${code})`, details));
    });
  });
}
