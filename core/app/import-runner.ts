/**
 * Imports run in worker threads (import-worker.ts), as crawls and exports do, with a small young
 * generation (an import allocates fast; V8 would otherwise grow it to 100 MB and more).
 */
import { Worker } from 'node:worker_threads';
import type { ImportProgress, ImportReport } from '../api/archive-types.ts';
import type { ImportDown, ImportUp, ImportWorkerData } from './import-worker.ts';
import { workerResult } from './worker-result.ts';

export class ImportRunner {
  private running = new Set<Worker>();
  /** The worker importing into each archive directory, to cancel it. */
  private byDir = new Map<string, Worker>();
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
    this.byDir.set(dir, worker);
    worker.once('exit', () => {
      this.running.delete(worker);
      if (this.byDir.get(dir) === worker) this.byDir.delete(dir);
    });
    const done = await workerResult<ImportProgress, Extract<ImportUp, { type: 'done' }>>(worker, onProgress, 'import', 'IMPORT_FAILED');
    return done.report;
  }

  /** Cancel the import into `dir`: it stops and leaves the archive as it was (CANCELLED). False when none runs. */
  cancel(dir: string): boolean {
    const worker = this.byDir.get(dir);
    if (!worker) return false;
    const m: ImportDown = { type: 'cancel' };
    worker.postMessage(m);
    return true;
  }

  async close(): Promise<void> {
    await Promise.all([...this.running].map((w) => w.terminate()));
    this.running.clear();
  }
}
