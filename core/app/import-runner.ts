/**
 * Imports run in worker threads (import-worker.ts), as crawls and exports do, with a small young
 * generation (an import allocates fast; V8 would otherwise grow it to 100 MB and more).
 */
import { Worker } from 'node:worker_threads';
import type { ImportProgress, ImportReport } from '../api/archive-types.ts';
import type { ImportUp, ImportWorkerData } from './import-worker.ts';
import { workerResult } from './worker-result.ts';

export class ImportRunner {
  private running = new Set<Worker>();
  private workerUrl: URL | undefined;

  constructor(opts: { workerUrl?: URL } = {}) {
    this.workerUrl = opts.workerUrl;
  }

  /** Import `files` into the archive in `dir`; progress goes to `onProgress`. */
  async run(dir: string, files: string[], copy: boolean, onProgress: (p: ImportProgress) => void): Promise<ImportReport> {
    const data: ImportWorkerData = { dir, files, ...(copy ? { copy: true } : {}) };
    const worker = new Worker(this.workerUrl ?? new URL('./import-worker.ts', import.meta.url), {
      workerData: data,
      name: 'import',
      resourceLimits: { maxYoungGenerationSizeMb: 12 },
    });
    this.running.add(worker);
    worker.once('exit', () => this.running.delete(worker));
    const done = await workerResult<ImportProgress, Extract<ImportUp, { type: 'done' }>>(worker, onProgress, 'import', 'IMPORT_FAILED');
    return done.report;
  }

  async close(): Promise<void> {
    await Promise.all([...this.running].map((w) => w.terminate()));
    this.running.clear();
  }
}
