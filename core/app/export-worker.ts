/**
 * One export in a worker thread: WACZ packaging, CDXJ sorting and WARC subsetting hash, gzip and
 * sort gigabytes, which must not stall the process that draws the UI. The worker opens the
 * archive itself (its own SQLite connection), runs the core exporter and posts throttled
 * progress, then the result.
 */
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import type { ExportFormat, ExportFilter, ExportProgressInfo } from '../api/app-types.ts';
import type { AppError } from '../api/result.ts';
import { openArchive } from '../archive/archive-dir.ts';
import { curveName, loadSigningKey } from '../archive/wacz-sign.ts';
import { exportCdxj } from '../export/export-cdxj.ts';
import { exportMirror } from '../export/export-mirror.ts';
import { exportReport } from '../export/export-report.ts';
import { exportWacz } from '../export/export-wacz.ts';
import { exportWarcSubset } from '../export/export-warc-subset.ts';
import { toAppError } from './worker-errors.ts';

export interface ExportWorkerData {
  dir: string;
  format: ExportFormat;
  /** File (wacz, cdxj, warc) or folder (mirror, report) to write. */
  out: string;
  title?: string;
  description?: string;
  pageText?: boolean;
  /** WACZ: sign with the private key in this PEM file. */
  signingKeyFile?: string;
  filter?: ExportFilter;
  /** WACZ, WARC: request records get a marker for their credentials. */
  redactCredentials?: boolean;
}

export type ExportUp =
  | { type: 'progress'; progress: ExportProgressInfo }
  | { type: 'done'; bytes: number; summary: Record<string, string | number | boolean>; warning?: string }
  | { type: 'failed'; error: AppError };

/** What the runner may send the worker: cancel (the export stops and removes what it wrote). */
export type ExportDown = { type: 'cancel' };

async function run(d: ExportWorkerData, onProgress: (p: ExportProgressInfo) => void, signal: AbortSignal): Promise<Extract<ExportUp, { type: 'done' }>> {
  const archive = openArchive(d.dir, { create: false });
  try {
    switch (d.format) {
      case 'wacz': {
        const signingKey = d.signingKeyFile !== undefined ? loadSigningKey(fs.readFileSync(d.signingKeyFile)) : undefined;
        const r = await exportWacz(archive, d.out, { title: d.title, description: d.description, pageText: d.pageText, ...(signingKey ? { signingKey } : {}), ...(d.redactCredentials ? { redactCredentials: true } : {}), onProgress, signal });
        return { type: 'done', bytes: r.bytes, ...(r.signingWarning ? { warning: r.signingWarning } : {}), summary: {
            warcs: r.warcs,
            captures: r.captures,
            pages: r.pages,
            index: r.index,
            // "P-384 signature".
            ...(signingKey ? { signature: curveName(signingKey) } : {}),
            // Shown as "value key" in the export dialog.
            'WARCs with their fixity from capture': r.fixity.recorded,
            'WARCs hashed now': r.fixity.hashed,
            ...(d.redactCredentials ? { 'request records redacted': r.redacted } : {}),
            ...(r.changedSinceRecorded.length > 0 ? { 'changed since written (hashed as they are now)': r.changedSinceRecorded.join(', ') } : {}),
          },
        };
      }
      case 'cdxj': {
        const r = await exportCdxj(archive, d.out, { onProgress, signal });
        return { type: 'done', bytes: r.bytes, summary: { lines: r.lines } };
      }
      case 'warc': {
        const r = await exportWarcSubset(archive, d.out, { ...(d.filter ?? {}), ...(d.redactCredentials ? { redactCredentials: true } : {}), onProgress, signal });
        return { type: 'done', bytes: r.bytes, summary: { records: r.records, captures: r.captures, materialized: r.materialized, ...(d.redactCredentials ? { 'request records redacted': r.redacted } : {}) } };
      }
      case 'mirror': {
        const r = await exportMirror(archive, d.out, { onProgress, signal });
        return { type: 'done', bytes: r.bytes, summary: { files: r.files, rewritten: r.rewritten, placeholders: r.placeholders } };
      }
      case 'report': {
        const r = await exportReport(archive, d.out, { onProgress, signal });
        return { type: 'done', bytes: 0, summary: { files: r.files.length } };
      }
    }
  } finally {
    archive.close();
  }
}

const port = parentPort;
if (port) {
  const post = (m: ExportUp) => port.postMessage(m);
  const cancel = new AbortController();
  port.on('message', (m: ExportDown) => {
    if (m.type === 'cancel') cancel.abort();
  });
  run(workerData as ExportWorkerData, (progress) => post({ type: 'progress', progress: { ...progress } }), cancel.signal)
    .then((done) => post(done))
    .catch((err) => post({ type: 'failed', error: toAppError(err) }))
    .finally(() => port.close());
}
