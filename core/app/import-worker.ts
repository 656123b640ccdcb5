/**
 * One import in a worker thread: indexing WARCs inflates, parses and writes the search index for
 * gigabytes, which must not stall the process that draws the UI. The worker opens the archive
 * itself (its own SQLite connection), runs the core importer and posts its progress (the
 * importer already throttles it), then the report.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { AppError } from '../api/result.ts';
import { openArchive } from '../archive/archive-dir.ts';
import type { ImportProgress, ImportReport } from '../api/archive-types.ts';
import { importIntoArchive } from '../archive/import-warc.ts';
import { toAppError } from './worker-errors.ts';

export interface ImportWorkerData {
  dir: string;
  files: string[];
  copy?: boolean;
}

export type ImportUp =
  | { type: 'progress'; progress: ImportProgress }
  | { type: 'done'; report: ImportReport }
  | { type: 'failed'; error: AppError };

/** What the runner may send the worker: cancel (the archive is left as it was, import-staging.ts). */
export type ImportDown = { type: 'cancel' };

async function run(d: ImportWorkerData, onProgress: (p: ImportProgress) => void, signal: AbortSignal): Promise<ImportReport> {
  const archive = openArchive(d.dir);
  try {
    return await importIntoArchive(archive, d.files, { ...(d.copy ? { copy: true } : {}), onProgress, signal });
  } finally {
    archive.close();
  }
}

const port = parentPort;
if (port) {
  const post = (m: ImportUp) => port.postMessage(m);
  const cancel = new AbortController();
  port.on('message', (m: ImportDown) => {
    if (m.type === 'cancel') cancel.abort();
  });
  run(workerData as ImportWorkerData, (progress) => post({ type: 'progress', progress: { ...progress } }), cancel.signal)
    .then((report) => post({ type: 'done', report }))
    .catch((err) => post({ type: 'failed', error: toAppError(err) }))
    .finally(() => port.close());
}
