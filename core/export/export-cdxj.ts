/**
 * `trove export --cdxj FILE`: a CDXJ index of every capture in the archive, sorted bytewise, for
 * pywb, OutbackCDX or any CDXJ-reading tool. `filename` is each WARC's base name and `offset` is
 * relative to that WARC (for a WARC kept inside an imported .wacz, relative to the entry), the
 * same lines a WACZ export of the archive would hold.
 *
 * Sorted with external-sort.ts: in memory up to 64 MiB of lines (~128,000 captures, as it
 * counts a line's cost), in runs merged from temporary files beyond that. The file is written
 * as `FILE.part` and renamed.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type { Archive } from '../archive/archive-dir.ts';
import { TroveError } from '../errors.ts';
import { archiveWarcs } from './archive-warcs.ts';
import { captureCdxjLines, countCaptureRows } from './capture-cdxj.ts';
import { sortLines } from './external-sort.ts';
import { ProgressThrottle } from './export-types.ts';
import type { ProgressFn } from './export-types.ts';

export interface CdxjExportOptions {
  onProgress?: ProgressFn;
  /** Memory per sort run (see external-sort.ts). */
  maxRunBytes?: number;
  /** Folder for sort runs (default: beside the output). */
  tmpDir?: string;
  /** Aborting it stops the export (CANCELLED) and removes the partial file. */
  signal?: AbortSignal;
}

export interface CdxjExportResult {
  path: string;
  lines: number;
  bytes: number;
}

export async function exportCdxj(archive: Archive, out: string, opts: CdxjExportOptions = {}): Promise<CdxjExportResult> {
  const progress = new ProgressThrottle(opts.onProgress, opts.signal);
  const warcs = archiveWarcs(archive);
  const total = countCaptureRows(archive);
  let read = 0;
  const lines = captureCdxjLines(archive, warcs, () => progress.report('read', ++read, total, 0));
  const part = `${out}.part`;
  const stream = fs.createWriteStream(part);
  let count = 0;
  let bytes = 0;
  try {
    let batch = '';
    const sorted = sortLines(lines, { tmpDir: opts.tmpDir ?? `${out}.sort-tmp`, ...(opts.maxRunBytes ? { maxRunBytes: opts.maxRunBytes } : {}) });
    for await (const line of sorted) {
      batch += line + '\n';
      count++;
      if (batch.length >= 1 << 20) {
        bytes += Buffer.byteLength(batch);
        if (!stream.write(batch)) await once(stream, 'drain');
        batch = '';
      }
      if ((count & 1023) === 0) progress.report('write', count, read, bytes);
    }
    bytes += Buffer.byteLength(batch);
    stream.end(batch);
    await once(stream, 'finish');
    await fsp.rename(part, out);
  } catch (err) {
    // The part file is opened asynchronously: once the stream has closed (its open done) the
    // file is there to remove; removed before that, it would be created again after the rm.
    stream.destroy();
    await finished(stream).catch(() => {});
    await fsp.rm(part, { force: true });
    if (err instanceof TroveError) throw err;
    throw new TroveError('EXPORT_WRITE_FAILED', `cannot write ${out}: ${(err as Error).message}`, { path: out }, { cause: err });
  }
  progress.done('write', count, count, bytes);
  return { path: out, lines: count, bytes };
}
