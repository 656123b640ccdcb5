/**
 * Indexing the records of one WARC/ARC file into the capture index, streaming: records are read
 * in sequence, only HTTP heads (and HTML page bodies, and POST request bodies, up to caps) are
 * read, and rows go to SQLite in batches, so memory stays flat whatever the file size.
 *
 * A row is written one record late: the reader knows a gzip record's exact on-disk length only
 * once it has moved past the record. POST lookup keys need the request record, which usually
 * follows its response; the last few rows stay unflushed so their keys can still be fixed.
 */
import { isCancelled, isTroveError, throwIfCancelled } from '../errors.ts';
import { openArchiveFile } from '../warc/read-records.ts';
import type { WarcRecord } from '../warc/read-record.ts';
import { databaseOf } from './archive-dir.ts';
import type { Archive } from './archive-dir.ts';
import { importedRow } from './import-record-row.ts';
import type { ImportedRow } from './import-record-row.ts';
import { RequestLinks } from './request-links.ts';

/** Rows written per transaction. */
const BATCH = 500;
/** Rows kept back so a following request record can still fix its response's key. */
const HOLD_BACK = 16;
/** Page text held before a flush is forced. */
const MAX_PENDING_TEXT = 1 << 20;

export interface IndexFileOptions {
  /** The file to read. */
  readPath: string;
  /** Added to every record offset (the file is a copy of a range starting there in the stored file). */
  offsetBase: number;
  /** Register the file in warc_files (called once, at the first write); returns its id. */
  register: () => number;
  /**
   * Give up (before anything is written) when the file cannot be read at record offsets: a
   * whole-file gzip, or gzip members that split records. The caller then recompresses it.
   */
  stopIfNotRandomAccess: boolean;
  /** After each record: records so far, and the offset reached in the read file. */
  onRecord?: (records: number, offset: number) => void;
  /** Aborting it stops the indexing with CANCELLED (the caller drops the staged file). */
  signal?: AbortSignal;
}

export interface IndexFileResult {
  fileId: number | null;
  records: number;
  pages: number;
  warnings: number;
  format: 'warc' | 'arc' | null;
  /** True when the reader said records are not at their own gzip members. */
  notRandomAccess: boolean;
  /** True when `stopIfNotRandomAccess` stopped the import before any row was written. */
  stopped: boolean;
  /** The typed error that ended reading early; every record before it is indexed. */
  error?: { code: string; message: string; offset?: number };
}

export async function indexArchiveFile(archive: Archive, opts: IndexFileOptions): Promise<IndexFileResult> {
  const result: IndexFileResult = { fileId: null, records: 0, pages: 0, warnings: 0, format: null, notRandomAccess: false, stopped: false };
  const pending: ImportedRow[] = [];
  let pendingText = 0;
  const links = new RequestLinks();
  let last: { record: WarcRecord; row: ImportedRow } | null = null;

  const flush = (keep: number): void => {
    const n = pending.length - keep;
    if (n <= 0) return;
    const batch = pending.splice(0, n);
    // IMMEDIATE: the write lock is taken up front, so another writer (a crawl in this directory,
    // another process) makes this wait its busy_timeout instead of failing at once, as a deferred
    // transaction that reads before it writes would.
    databaseOf(archive).transaction(() => {
      result.fileId ??= opts.register();
      const fileId = result.fileId;
      const ids = archive.index.addRecords(batch.map((b) => ({ ...b.row, fileId })));
      batch.forEach((b, i) => {
        if (b.text) {
          archive.index.addPageText(ids[i]!, b.text.title, b.text.text);
          pendingText -= b.text.text.length;
        }
      });
    }).immediate();
    result.records += batch.length;
    result.pages += batch.filter((b) => b.row.page).length;
  };

  // The previous record is complete once the reader has moved on: its length is final.
  const settle = (errorOffset: number | null): void => {
    if (!last) return;
    const { record, row } = last;
    last = null;
    if (errorOffset !== null && errorOffset <= record.offset) return; // the broken record itself
    if (!(record.length > 0)) return; // cut short before its end was known
    row.row.length = record.length;
    pending.push(row);
    if (row.text) pendingText += row.text.text.length;
    if (pending.length >= BATCH || pendingText > MAX_PENDING_TEXT) flush(HOLD_BACK);
  };

  const stopNow = () => opts.stopIfNotRandomAccess && result.notRandomAccess && result.fileId === null;

  try {
    const records = openArchiveFile(opts.readPath, {
      onWarning: (w) => {
        result.warnings++;
        if (w.code === 'WARC_NOT_RANDOM_ACCESS') result.notRandomAccess = true;
      },
    });
    for await (const record of records) {
      throwIfCancelled(opts.signal, 'import');
      settle(null);
      if (stopNow()) {
        result.stopped = true;
        return result;
      }
      result.format ??= record.format;
      const row = await importedRow(record, 0, opts.offsetBase);
      links.add(row);
      last = { record, row };
      opts.onRecord?.(result.records + pending.length + 1, record.offset);
    }
    settle(null);
    if (stopNow()) {
      result.stopped = true;
      return result;
    }
  } catch (err) {
    if (!isTroveError(err) || isCancelled(err)) throw err;
    const offset = typeof err.details.offset === 'number' ? err.details.offset : undefined;
    settle(offset ?? null);
    result.error = { code: err.code, message: err.message, ...(offset !== undefined ? { offset: opts.offsetBase + offset } : {}) };
    if (stopNow()) {
      result.stopped = true;
      return result;
    }
  }
  flush(0);
  return result;
}
