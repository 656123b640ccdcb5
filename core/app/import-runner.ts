/**
 * Imports run in worker threads (import-worker.ts), as crawls and exports do, with a small young
 * generation (an import allocates fast; V8 would otherwise grow it to 100 MB and more).
 */
import { Worker } from 'node:worker_threads';
import type { ImportProgress, ImportReport } from '../archive/archive-types.ts';
import { TroveError } from '../errors.ts';
import type { ImportUp, ImportWorkerData } from './import-worker.ts';

export class ImportRunner {
  private running = new Set<Worker>();
  private workerUrl: URL | undefined;

  constructor(opts: { workerUrl?: URL } = {}) {
    this.workerUrl = opts.workerUrl;
  }

  /** Import `files` into the archive in `dir`; progress goes to `onProgress`. */
  run(dir: string, files: string[], copy: boolean, onProgress: (p: ImportProgress) => void): Promise<ImportReport> {
    const data: ImportWorkerData = { dir, files, ...(copy ? { copy: true } : {}) };
    const worker = new Worker(this.workerUrl ?? new URL('./import-worker.ts', import.meta.url), {
      workerData: data,
      name: 'import',
      resourceLimits: { maxYoungGenerationSizeMb: 12 },
    });
    this.running.add(worker);
    return new Promise<ImportReport>((resolve, reject) => {
      let settled = false;
      let failure: string | null = null;
      worker.on('error', (err) => (failure = err.message));
      worker.on('message', (m: ImportUp) => {
        if (m.type === 'progress') onProgress(m.progress);
        else if (m.type === 'done') {
          settled = true;
          resolve(m.report);
        } else {
          settled = true;
          reject(new TroveError(m.error.code, m.error.message));
        }
      });
      worker.once('exit', (code) => {
        this.running.delete(worker);
        if (!settled) reject(new TroveError('IMPORT_FAILED', failure ?? `the import worker stopped (code ${code})`));
      });
    });
  }

  async close(): Promise<void> {
    await Promise.all([...this.running].map((w) => w.terminate()));
    this.running.clear();
  }
}
