/**
 * Exports run in worker threads (export-worker.ts) and write into the library entry's own
 * `exports/` folder, where the user finds them next to the archive ("Show in folder"), or into a
 * folder the user picked in the host's native dialog (`export.runTo`). Either way the renderer
 * never names a path to write: only the host passes `outDir`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { ExportFile, ExportFormat, ExportProgressInfo, ExportRequest, ExportResult } from '../api/app-types.ts';
import { TroveError } from '../errors.ts';
import { timestamp14 } from '../formats/timestamp.ts';
import type { ExportDown, ExportUp, ExportWorkerData } from './export-worker.ts';
import { directorySize } from './library.ts';
import { workerResult } from './worker-result.ts';

export const EXPORTS_FOLDER = 'exports';

const EXTENSION: Record<ExportFormat, string | null> = { wacz: '.wacz', cdxj: '.cdxj', warc: '.warc.gz', mirror: null, report: null };

/**
 * An export's file name before its extension: the entry's id in safe characters, one `-` between
 * words however many separators the name had ("Python 3.11 - docs", not "Python-3.11---docs"),
 * and the time.
 */
export function exportBaseName(id: string, at: Date): string {
  const safe = id.replace(/[^A-Za-z0-9._]+/g, '-').replace(/^-+|-+$/g, '') || 'export';
  return `${safe}-${timestamp14(at)}`;
}

export class ExportRunner {
  private running = new Map<string, Worker>();
  private workerUrl: URL | undefined;
  private signingKeyFile: (() => string) | undefined;

  /** `signingKeyFile`: the key a signed WACZ export uses (made when missing); without it `sign` is refused. */
  constructor(opts: { workerUrl?: URL; signingKeyFile?: () => string } = {}) {
    this.workerUrl = opts.workerUrl;
    this.signingKeyFile = opts.signingKeyFile;
  }

  /**
   * Export the archive in `dir` (library entry `id`) into `outDir` (default: its `exports/`
   * folder), never over an existing file; progress goes to `onProgress`.
   */
  async run(id: string, dir: string, req: ExportRequest, onProgress: (exportId: string, p: ExportProgressInfo) => void, outDir?: string): Promise<ExportResult> {
    const exportsDir = outDir ?? path.join(dir, EXPORTS_FOLDER);
    fs.mkdirSync(exportsDir, { recursive: true });
    const base = exportBaseName(id, new Date());
    const ext = EXTENSION[req.format];
    let name = ext ? `${base}${ext}` : `${req.format}-${base}`;
    for (let n = 2; fs.existsSync(path.join(exportsDir, name)); n++) name = ext ? `${base}-${n}${ext}` : `${req.format}-${base}-${n}`;
    const out = path.join(exportsDir, name);
    const exportId = randomUUID();
    const data: ExportWorkerData = {
      dir,
      format: req.format,
      out,
      ...(req.title !== undefined ? { title: req.title } : {}),
      ...(req.description !== undefined ? { description: req.description } : {}),
      ...(req.pageText !== undefined ? { pageText: req.pageText } : {}),
      ...(req.sign && req.format === 'wacz' ? { signingKeyFile: this.keyFile() } : {}),
      ...(req.filter !== undefined ? { filter: req.filter } : {}),
      ...(req.redactCredentials && (req.format === 'wacz' || req.format === 'warc') ? { redactCredentials: true } : {}),
    };
    const worker = new Worker(this.workerUrl ?? new URL('./export-worker.ts', import.meta.url), { workerData: data, name: `export ${req.format} ${id}` });
    this.running.set(exportId, worker);
    worker.once('exit', () => this.running.delete(exportId));
    // The export's id reaches the app at once, so Cancel works from the start: the worker's first
    // report may come only after a hash of every WARC (their fixity is checked first).
    onProgress(exportId, { phase: 'starting', done: 0, total: 0, bytes: 0 });
    const done = await workerResult<ExportProgressInfo, Extract<ExportUp, { type: 'done' }>>(worker, (p) => onProgress(exportId, p), 'export', 'EXPORT_FAILED', { format: req.format });
    const bytes = req.format === 'mirror' || req.format === 'report' ? directorySize(out).bytes : done.bytes;
    return { exportId, format: req.format, path: out, name, bytes, summary: done.summary, ...(done.warning ? { warning: done.warning } : {}) };
  }

  /** Cancel a running export: it stops and removes what it wrote (CANCELLED). False when it is not running. */
  cancel(exportId: string): boolean {
    const worker = this.running.get(exportId);
    if (!worker) return false;
    const m: ExportDown = { type: 'cancel' };
    worker.postMessage(m);
    return true;
  }

  private keyFile(): string {
    if (!this.signingKeyFile) throw new TroveError('NOT_AVAILABLE', 'signing is not available here: no signing key');
    return this.signingKeyFile();
  }

  list(dir: string): ExportFile[] {
    const exportsDir = path.join(dir, EXPORTS_FOLDER);
    let names: string[];
    try {
      names = fs.readdirSync(exportsDir);
    } catch {
      return [];
    }
    return names
      .filter((n) => !n.endsWith('.part') && !n.startsWith('.'))
      .map((name) => {
        const p = path.join(exportsDir, name);
        const st = fs.statSync(p);
        return st.isDirectory()
          ? { name, kind: 'folder' as const, bytes: directorySize(p).bytes, modifiedAt: Math.round(st.mtimeMs) }
          : { name, kind: 'file' as const, bytes: st.size, modifiedAt: Math.round(st.mtimeMs) };
      })
      .sort((a, b) => b.modifiedAt - a.modifiedAt);
  }

  async close(): Promise<void> {
    await Promise.all([...this.running.values()].map((w) => w.terminate()));
    this.running.clear();
  }
}
