/**
 * Indexing one stored file (a WARC/ARC given to the import, or a WARC inside a WACZ) and
 * accounting for it in the import report. Shared by import-warc.ts and import-wacz.ts.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { databaseOf, WARCS_FOLDER } from './archive-dir.ts';
import type { Archive } from './archive-dir.ts';
import type { ImportedFile, ImportProgress, ImportReport } from '../api/archive-types.ts';
import { sealFile } from './file-fixity.ts';
import { indexArchiveFile } from './import-file-records.ts';
import { recompressWarc } from './import-recompress.ts';
import type { ImportStaging } from './import-staging.ts';

export interface ImportOptions {
  /** Copy files into the archive's `warcs/` folder instead of indexing them in place. */
  copy?: boolean;
  /** Called as records are indexed (at most every 100 ms, and once at the end of each file). */
  onProgress?: (p: ImportProgress) => void;
  /** Aborting it stops the import (CANCELLED) and leaves the library as it was (import-staging.ts). */
  signal?: AbortSignal;
  /**
   * Called once when another import into the same archive (another process, or another worker of
   * this one) holds it: this import waits for it to finish, with this message to show.
   */
  onWait?: (message: string) => void;
}

/** State shared by the steps of one import run. */
export interface ImportRun {
  archive: Archive;
  staging: ImportStaging;
  opts: ImportOptions;
  report: ImportReport;
}

/** Where a file's records are read from and how it is registered. */
export interface StoredFile {
  /** Shown in the report (the path given, or `x.wacz!/archive/y.warc`). */
  source: string;
  /** The file the reader reads. */
  readPath: string;
  /** Added to the reader's offsets to get offsets in the stored file. */
  offsetBase: number;
  /** warc_files.path. */
  storedPath: string;
  name: string;
  size: number;
  byReference: boolean;
  kind: 'warc' | 'wacz-entry';
  /** File name stem for a recompressed copy. */
  stem: string;
  /** The file holding the bytes for good, when `readPath` is a temporary copy (a WACZ entry): hashed for fixity. */
  holder?: string;
}

/** `a.warc.gz` → `a`; `b.arc` → `b`. */
export function fileStem(name: string): string {
  return name.replace(/\.(w?arc)(\.gz)?$/i, '').replace(/\.(gz|wacz)$/i, '') || name;
}

/**
 * A free `warcs/NAME` for a copy: the same name when it is free or already holds an earlier
 * import of the same name (which is then replaced), else `STEM-1.EXT`, `STEM-2.EXT` …
 */
export function warcsSlot(archive: Archive, name: string): string {
  const ext = /(\.(w?arc|wacz)(\.gz)?|\.gz)$/i.exec(name)?.[0] ?? '';
  const stem = ext ? name.slice(0, -ext.length) : name;
  for (let n = 0; ; n++) {
    const rel = `${WARCS_FOLDER}/${n === 0 ? name : `${stem}-${n}${ext}`}`;
    const reg = archive.index.fileByPath(rel);
    // A copied WACZ is registered through its entries (`warcs/x.wacz!/archive/…`).
    const waczEntries = archive.index.files().some((f) => f.path.startsWith(`${rel}!/`));
    if (reg ? reg.source === 'import' : waczEntries || !fs.existsSync(path.join(archive.dir, rel))) return rel;
  }
}

/** Path to register for a file imported in place: relative when it lies inside the archive. */
export function referencePath(archive: Archive, abs: string): string {
  const rel = path.relative(archive.dir, abs);
  if (rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)) return rel.split(path.sep).join('/');
  return abs;
}

/**
 * Index one stored file (a WARC/ARC, or a WARC inside a WACZ) and add it to the report. When it
 * turns out not to be readable at record offsets, index a recompressed copy in `warcs/` instead.
 */
export async function indexStoredFile(run: ImportRun, f: StoredFile): Promise<void> {
  const { archive, report } = run;
  // The earlier import of this path stays whole until the run commits (import-staging.ts).
  const existing = archive.index.fileByPath(f.storedPath);
  const register = () => run.staging.register({ path: f.storedPath, name: f.name, size: f.size, source: 'import', byReference: f.byReference });
  const progress = progressReporter(run, f.source, f.size);
  const first = await indexArchiveFile(archive, {
    readPath: f.readPath,
    offsetBase: f.offsetBase,
    register,
    stopIfNotRandomAccess: true,
    onRecord: progress,
    ...(run.opts.signal ? { signal: run.opts.signal } : {}),
  });
  let result = first;
  let stored = f.storedPath;
  let recompressed = false;
  let sealAt = { path: f.holder ?? f.readPath, start: f.holder ? f.offsetBase : 0, size: f.size };
  if (first.stopped) {
    stored = warcsSlot(archive, `${f.stem}.warc.gz`);
    const dest = path.join(archive.dir, stored);
    await fsp.mkdir(path.dirname(dest), { recursive: true });
    run.staging.writing(dest);
    const copy = await recompressWarc(f.readPath, dest, run.opts.signal);
    const size = (await fsp.stat(dest)).size;
    result = await indexArchiveFile(archive, {
      readPath: dest,
      offsetBase: 0,
      register: () => run.staging.register({ path: stored, name: path.basename(stored), size, source: 'import', byReference: false }),
      stopIfNotRandomAccess: false,
      onRecord: progress,
      ...(run.opts.signal ? { signal: run.opts.signal } : {}),
    });
    sealAt = { path: dest, start: 0, size };
    result.warnings += first.warnings;
    if (copy.error) result.error ??= copy.error;
    recompressed = true;
    if (f.readPath !== f.storedPath && !f.byReference && f.kind === 'warc' && path.resolve(f.readPath) !== path.resolve(dest)) {
      // The plain copy made for --copy is superseded by the recompressed one.
      await fsp.rm(f.readPath, { force: true });
    }
  } else if (first.notRandomAccess) {
    report.problems.push({
      file: f.source,
      code: 'IMPORT_NOT_RANDOM_ACCESS',
      message: `${f.source}: some records do not sit in their own gzip member; replay of those records may fail (re-import to recompress)`,
    });
  }
  progress.done(result.records);
  if (result.error) report.problems.push({ file: f.source, ...result.error });
  if (result.fileId === null && result.records === 0 && !existing) {
    if (!result.error) report.problems.push({ file: f.source, code: 'IMPORT_NO_RECORDS', message: `${f.source} holds no WARC or ARC records` });
    return;
  }
  // A re-imported file that now holds no records still replaces the earlier import.
  if (result.fileId === null && existing) result.fileId = register();
  // Fixity as imported, for exports (file-fixity.ts).
  if (result.fileId !== null) {
    await sealFile(databaseOf(archive), result.fileId, sealAt.path, sealAt.start, sealAt.size, run.opts.signal);
    run.staging.complete(result.fileId);
  }
  const entry: ImportedFile = {
    source: f.source,
    storedAs: stored,
    kind: f.kind === 'wacz-entry' ? 'wacz-entry' : result.format === 'arc' ? 'arc' : 'warc',
    records: result.records,
    pages: result.pages,
    bytes: f.size,
    replaced: existing !== null,
    warnings: result.warnings,
  };
  if (recompressed) entry.recompressed = true;
  report.files.push(entry);
  report.records += result.records;
  report.pages += result.pages;
}

type ProgressFn = ((records: number, offset: number) => void) & { done(records: number): void };

function progressReporter(run: ImportRun, file: string, total: number): ProgressFn {
  const base = run.report.records;
  let lastAt = 0;
  const emit = (records: number, offset: number) => run.opts.onProgress?.({ file, bytes: Math.min(offset, total), total, records: base + records });
  const fn = ((records: number, offset: number) => {
    if (!run.opts.onProgress) return;
    const now = Date.now();
    if (now - lastAt < 100) return;
    lastAt = now;
    emit(records, offset);
  }) as ProgressFn;
  fn.done = (records: number) => emit(records, total);
  return fn;
}
