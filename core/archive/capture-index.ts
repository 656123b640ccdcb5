/**
 * The capture index: one row per WARC record, located by file + offset + length, in the crawl's
 * database. A crawl writes it as records are written; an import writes the same tables, so
 * crawled and imported archives are browsed, searched and replayed alike. Replay and export read
 * only this index and the WARC files, never the frontier.
 *
 * Every method runs in (or joins) a transaction (`atomic`, storage/group-commit.ts), so a crawl
 * loop can commit `frontier.complete(...)` and `addRecords(...)` together in one; a method checks
 * what it is given before it writes.
 */
import type Database from 'better-sqlite3';
import { TroveError } from '../errors.ts';
import { atomic } from '../storage/group-commit.ts';
import { digestFromKey, digestKey } from '../formats/digest.ts';
import { createCaptureScans } from './capture-scans.ts';
import { recordedFixity } from './file-fixity.ts';
import type { RecordedFixity } from './file-fixity.ts';
import type { CaptureScans } from './capture-scans.ts';
import { CAPTURE_TYPE_NAMES, COMPACT_TYPE_MIME, COMPACT_WINDOW, prepareCaptureStatements } from './capture-statements.ts';
import type { CaptureDbRow, CaptureStatements, FileDbRow, ParentDbRow } from './capture-statements.ts';
import { toFtsQuery } from './capture-text-search.ts';
import { createTextShards } from './text-shards.ts';
import type { TextShards } from './text-shards.ts';
import { expand, foldsOf } from './capture-folds.ts';
import type { FoldedDbRow } from './capture-folds.ts';
import { captureIdsOfChild } from '../warc/child-record-id.ts';
import { recordIdKey } from './record-id-key.ts';
import { recordTypeKey } from './record-type-key.ts';
import { tsKey } from './capture-ts-key.ts';
import { dateFromKey, dateKey } from './capture-date-key.ts';
import { isTimestamp14, padTimestamp, timestampSeconds } from './capture-timestamp.ts';
import type { CaptureRow, RecordRow } from './capture-row-types.ts';

export type { CaptureRow, RecordRow } from './capture-row-types.ts';

export interface WarcFileInfo {
  id: number;
  path: string;
  name: string;
  size: number | null;
  /** Records indexed from this file (kept by addRecords / deleteFileRecords, or set by updateFile). */
  records: number;
  /** ms since epoch. */
  createdAt: number;
  source: 'crawl' | 'import';
  byReference: boolean;
}

export interface NewWarcFile {
  path: string;
  name: string;
  size?: number;
  source: 'crawl' | 'import';
  /** Imported in place: the WARC stays where it is and `path` is absolute. */
  byReference?: boolean;
  createdAt?: number;
}

export interface TextHit {
  recordId: number;
  title: string | null;
  /** Matching text with the matched words between the `mark` strings. */
  snippet: string;
  /** bm25: lower is better. */
  rank: number;
  targetUri: string | null;
  ts: string | null;
  /**
   * Set when more pages matched than search ranks (SEARCH_CANDIDATES): the hits are the best of
   * the matches among this many pages added last, not of every match.
   */
  rankedAmong?: number;
}

export interface SearchOptions {
  /** Pass the query to FTS5 as written (AND/OR/NEAR, quotes, prefixes). */
  raw?: boolean;
  /** Strings put around matches in the snippet. Default `[` and `]`. */
  mark?: readonly [string, string];
  /** How many of the newest matches are ranked (default SEARCH_CANDIDATES; tests and the search bench pass others). */
  candidates?: number;
}

/** The index's writes and lookups, and the scans exports, replay and reports read it with (capture-scans.ts). */
export interface CaptureIndex extends CaptureScans {
  /** Register a WARC file. Throws CAPTURE_FILE_EXISTS when its path is already indexed. */
  addFile(f: NewWarcFile): number;
  updateFile(id: number, change: { size?: number; records?: number }): void;
  /** Give a registered file another path and name (an import's staged registration taking its place). */
  renameFile(id: number, path: string, name: string): void;
  /** Forget a file: its records, their text, its row (and, by cascade, its fixity). */
  deleteFile(id: number): void;
  fileById(id: number): WarcFileInfo | null;
  fileByPath(path: string): WarcFileInfo | null;
  files(): WarcFileInfo[];
  /** The fixity recorded for a file when its bytes were final (file-fixity.ts), or null. */
  fixity(fileId: number): RecordedFixity | null;
  /**
   * Index records; returns their ids in the same order. A request or metadata record that
   * follows its capture is folded into its row (capture-folds.ts) or stored compact
   * (capture-statements.ts); every read gives it in full.
   */
  addRecords(rows: readonly RecordRow[]): number[];
  /** Replayable captures (response, revisit, resource) of one URL key, oldest first. */
  findCaptures(urlkey: string): CaptureRow[];
  /** The capture closest in time to `ts14` (partial timestamps allowed); the latest when omitted. Ties go to the later one. */
  closest(urlkey: string, ts14?: string): CaptureRow | null;
  /** The earliest response (not revisit) with this payload digest: for dedup and revisit resolution. */
  byDigest(payloadDigest: string): CaptureRow | null;
  /** The earliest whole response (not revisit, not WARC-Truncated) with this payload digest: what a new revisit may refer to. */
  originalByDigest(payloadDigest: string): CaptureRow | null;
  byRecordId(recordId: string): CaptureRow | null;
  byId(id: number): CaptureRow | null;
  /** Records marked as pages, oldest first. */
  pages(limit?: number, offset?: number): CaptureRow[];
  count(): number;
  /** Drop a file's records and their page text (before re-importing it). Returns how many. */
  deleteFileRecords(fileId: number): number;
  /** Store (or replace) the searchable text of a record; a non-empty title also becomes the record's title. */
  addPageText(recordId: number, title: string | null, text: string): void;
  /** addPageText for many records in one transaction (all or none). */
  addPageTexts(pages: readonly PageText[]): void;
  searchText(query: string, limit?: number, opts?: SearchOptions): TextHit[];
}

/** A record's searchable text, for addPageTexts. */
export interface PageText {
  recordId: number;
  title: string | null;
  text: string;
}

export interface CaptureIndexOptions {
  /** Text per full-text shard (text-shards.ts SHARD_CHARS); tests pass less. */
  textShardChars?: number;
}

export function createCaptureIndex(db: Database.Database, opts: CaptureIndexOptions = {}): CaptureIndex {
  const st = prepareCaptureStatements(db);
  const text = createTextShards(db, opts.textShardChars);
  const { addFile, addRecords, deleteFileRecords } = recordWrites(db, st, text);
  const { addPageText, addPageTexts } = pageTextWrites(db, st, text);

  return {
    ...createCaptureScans(db, text),
    addFile: (f) => addFile(f),
    updateFile: (id, change) => {
      st.updateFile.run(change.size ?? null, change.records ?? null, id);
    },
    renameFile: (id, path, name) => {
      st.renameFile.run(path, name, id);
    },
    deleteFile: atomic(db, (id: number): void => {
      deleteFileRecords(id);
      st.deleteFileRow.run(id);
    }),
    fileById: (id) => fileInfo(st.fileById.get(id)),
    fileByPath: (p) => fileInfo(st.fileByPath.get(p)),
    files: () => st.files.all().map((r) => fileInfo(r)!),
    fixity: (fileId) => recordedFixity(db, fileId),
    addRecords: (rows) => (rows.length === 0 ? [] : addRecords(rows)),
    findCaptures: (urlkey) => st.findCaptures.all(urlkey).map((r) => capture(r)!),
    closest: (urlkey, ts14) => closest(st, urlkey, ts14),
    byDigest: (d) => {
      const hit = st.idByDigest.get(digestKey(d));
      return hit ? capture(st.captureById.get(hit.id)) : null;
    },
    originalByDigest: (d) => {
      const hit = st.originalIdByDigest.get(digestKey(d));
      return hit ? capture(st.captureById.get(hit.id)) : null;
    },
    // A derived id is most likely folded: asked through its capture first.
    byRecordId: (rid) => capture(foldedByRecordId(st, rid) ?? st.byRecordId.get(recordIdKey(rid))),
    byId: (id) => capture(recordById(st, id)),
    pages: (limit = 100, offset = 0) => st.pages.all(limit, offset).map((r) => capture(r)!),
    count: () => st.count.get()!.n,
    deleteFileRecords: (fileId) => deleteFileRecords(fileId),
    addPageText: (recordId, title, text) => addPageText(recordId, title, text),
    addPageTexts: (pages) => (pages.length === 0 ? undefined : addPageTexts(pages)),
    searchText: (query, limit, opts) => searchText(text, query, limit, opts),
  };
}

/** The index's writes of files and records, each in (or joining) one transaction. */
function recordWrites(db: Database.Database, st: CaptureStatements, text: TextShards) {
  const addFile = atomic(db, (f: NewWarcFile): number => {
    if (st.fileByPath.get(f.path)) {
      throw new TroveError('CAPTURE_FILE_EXISTS', `WARC file already indexed: ${f.path}`, { path: f.path });
    }
    if (f.source !== 'crawl' && f.source !== 'import') {
      throw new TroveError('CAPTURE_BAD_FILE', `source must be 'crawl' or 'import'`, { source: f.source });
    }
    const row = st.insertFile.get(f.path, f.name, f.size ?? null, f.createdAt ?? Date.now(), f.source, f.byReference ? 1 : 0)!;
    return row.id;
  });

  /**
   * The capture row a record may be stored compact under (migration 7's rule): a request or
   * metadata record with its type's media type, Concurrent-To a full capture row of the same
   * file, earlier in it and at most COMPACT_WINDOW rows back, that has exactly its target URI,
   * URL key, timestamp and date.
   */
  const parentOf = (r: RecordRow, id: number, batch: ReadonlyMap<string, ParentDbRow>): number | null => {
    if (!r.concurrentTo || r.mime === null || COMPACT_TYPE_MIME.get(r.recordType) !== r.mime) return null;
    const p = batch.get(r.concurrentTo) ?? st.parentCandidate.get(recordIdKey(r.concurrentTo));
    if (!p || p.file_id !== r.fileId || p.offset >= r.offset) return null;
    if (p.target_uri !== r.targetUri || p.urlkey !== r.urlkey || p.ts !== r.ts || dateFromKey(p.date, p.ts) !== r.date) return null;
    return id - p.id > COMPACT_WINDOW ? null : p.id;
  };

  const addRecords = atomic(db, (rows: readonly RecordRow[]): number[] => {
    const ids: number[] = [];
    const perFile = new Map<number, number>();
    // Captures of this batch by record id (their children usually follow them in the same batch).
    const batch = new Map<string, ParentDbRow>();
    // Every row is checked before the first is written (see atomic()).
    for (const r of rows) {
      checkRecord(r);
      if (!perFile.has(r.fileId)) {
        if (!st.fileById.get(r.fileId)) throw new TroveError('CAPTURE_NO_FILE', `no WARC file with id ${r.fileId}`, { fileId: r.fileId });
        perFile.set(r.fileId, 0);
      }
    }
    // Every row names its id (the next after the last taken, folded children included), so a
    // capture with folded children leaves their ids free after it (capture-folds.ts).
    let next = (st.lastId.get()?.n ?? 0) + 1;
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      const id = next;
      const isCapture = CAPTURE_TYPE_NAMES.has(r.recordType);
      const fold = foldsOf(rows, i, isCapture);
      const parent = fold.count > 0 ? null : parentOf(r, id, batch);
      const full = parent === null;
      st.insertRecord.run(
        id, r.fileId, r.offset, r.length, recordTypeKey(r.recordType), recordIdKey(r.recordId), full ? r.targetUri : null, full ? r.urlkey : null, full ? tsKey(r.ts) : null,
        full ? dateKey(r.date, r.ts) : null, full ? r.mime : null, r.status, digestKey(r.payloadDigest), r.refersTo ?? null, r.refersToUri ?? null, r.refersToDate ?? null,
        full ? (r.concurrentTo ?? null) : null, r.method ?? null, r.contentLength ?? null, r.truncated ?? null, r.title ?? null,
        r.page ? 1 : 0, parent, fold.req_len, fold.req_clen, fold.meta_len, fold.meta_clen,
      );
      if (r.recordId && isCapture) {
        batch.set(r.recordId, { id, file_id: r.fileId, offset: r.offset, target_uri: r.targetUri, urlkey: r.urlkey, ts: r.ts, date: r.date });
      }
      // The capture and its folded children: ids in a row, counted in their file.
      for (let k = 0; k <= fold.count; k++) ids.push(id + k);
      perFile.set(r.fileId, (perFile.get(r.fileId) ?? 0) + 1 + fold.count);
      next = id + 1 + fold.count;
      i += fold.count;
    }
    for (const [fileId, n] of perFile) st.addFileRecords.run(n, fileId);
    return ids;
  });

  const deleteFileRecords = atomic(db, (fileId: number): number => {
    text.deleteFile(fileId);
    const n = st.fileRecordCount.get(fileId)!.n;
    st.deleteFileRecords.run(fileId);
    st.resetFileRecords.run(fileId);
    return n;
  });

  return { addFile, addRecords, deleteFileRecords };
}

/** The searchable text of records, written in savepoints of its own (see below). */
function pageTextWrites(db: Database.Database, st: CaptureStatements, shards: TextShards) {
  const checkRecordExists = (recordId: number): void => {
    if (!st.recordExists.get(recordId)) {
      throw new TroveError('CAPTURE_NO_RECORD', `no indexed record with id ${recordId}`, { recordId });
    }
  };
  const writePageText = (recordId: number, title: string | null, text: string): void => {
    shards.write(recordId, title ?? '', text);
    if (title) st.setTitle.run(title, recordId);
  };
  // Page text is derived data, and its writers may drop a batch the database refuses
  // (page-text-buffer.ts): these keep a savepoint of their own even inside a group-commit unit,
  // so a refused batch leaves nothing behind.
  const addPageText = db.transaction((recordId: number, title: string | null, text: string): void => {
    checkRecordExists(recordId);
    writePageText(recordId, title, text);
  });
  // A batch in one transaction without a savepoint per page: inside a transaction where FTS5 has
  // written, each SAVEPOINT makes FTS5 flush its pending terms and totals (page-text-buffer.ts).
  const addPageTexts = db.transaction((pages: readonly PageText[]): void => {
    for (const p of pages) checkRecordExists(p.recordId); // all before the first write
    for (const p of pages) writePageText(p.recordId, p.title, p.text);
  });

  return { addPageText, addPageTexts };
}

/** The record with this id: a row, or a folded child of a capture just before it. */
function recordById(st: CaptureStatements, id: number): CaptureDbRow | undefined {
  for (const row of st.rowsAround.all(id, id)) {
    for (const r of expand(row)) if (r.id === id) return r;
  }
  return undefined;
}

/** A folded child by its record id: found through the capture its id derives from (warc/child-record-id.ts). */
function foldedByRecordId(st: CaptureStatements, rid: string): CaptureDbRow | undefined {
  for (const { captureId, type } of captureIdsOfChild(rid)) {
    const row: FoldedDbRow | undefined = st.byRecordId.get(recordIdKey(captureId));
    const child = row ? expand(row).find((r) => r.record_type === type && r.record_id === rid) : undefined;
    if (child) return child;
  }
  return undefined;
}

/** The capture closest in time to `ts14` (CaptureIndex.closest). */
function closest(st: CaptureStatements, urlkey: string, ts14?: string): CaptureRow | null {
  if (ts14 === undefined) return capture(st.latest.get(urlkey));
  const ts = padTimestamp(ts14);
  const after = st.atOrAfter.get(urlkey, tsKey(ts));
  const before = st.before.get(urlkey, tsKey(ts));
  if (!after || !before) return capture(after ?? before);
  const t = timestampSeconds(ts);
  const dAfter = timestampSeconds(after.ts!) - t;
  const dBefore = t - timestampSeconds(before.ts!);
  return capture(dAfter <= dBefore ? after : before);
}

/**
 * Search ranks at most this many matches: those of the pages added last (the highest record
 * ids: the latest crawled or imported). bm25 reads every match it ranks, so ranking all of them
 * costs in proportion to the pages holding a word: 512 ms p50 on 22,050 pages of the big-archive
 * bench, seconds at a million. Bounded, and with bm25 counting a word within one text shard
 * (text-shards.ts), a search costs about the same at any size (issue 39:
 * target p50 < 100 ms over 1M pages, bench/search-bench.ts). The trade-off: when more pages
 * match, the best hits are the best of these, and the hits say so (TextHit.rankedAmong).
 */
export const SEARCH_CANDIDATES = 5000;

function searchText(shards: TextShards, query: string, limit = 20, opts: SearchOptions = {}): TextHit[] {
  const match = opts.raw ? query : toFtsQuery(query);
  if (match.trim() === '') return [];
  const [open, close] = opts.mark ?? ['[', ']'];
  try {
    const candidates = opts.candidates ?? SEARCH_CANDIDATES;
    const { rows, bounded } = shards.search(match, { limit, candidates, open, close });
    return rows.map((r) => ({
      recordId: r.record_id,
      title: r.title === '' ? null : r.title,
      snippet: r.snippet,
      rank: r.rank,
      targetUri: r.target_uri,
      ts: r.ts,
      ...(bounded ? { rankedAmong: candidates } : {}),
    }));
  } catch (err) {
    // The statements are fixed; an SQLITE_ERROR at run time comes from the MATCH expression.
    if ((err as { code?: string }).code === 'SQLITE_ERROR') {
      throw new TroveError('SEARCH_QUERY_INVALID', `cannot search for ${query}: ${(err as Error).message}`, { query }, { cause: err });
    }
    throw err;
  }
}

function checkRecord(r: RecordRow): void {
  const bad = (why: string) => new TroveError('CAPTURE_BAD_RECORD', `cannot index record: ${why}`, { recordId: r.recordId, offset: r.offset });
  if (!Number.isSafeInteger(r.offset) || r.offset < 0) throw bad('offset must be an integer >= 0');
  if (!Number.isSafeInteger(r.length) || r.length <= 0) throw bad('length must be an integer > 0');
  if (typeof r.recordType !== 'string' || r.recordType === '') throw bad('recordType is required');
  if (r.ts !== null && !isTimestamp14(r.ts)) throw bad(`ts must be 14 digits, not ${r.ts}`);
}

function fileInfo(r: FileDbRow | undefined): WarcFileInfo | null {
  if (!r) return null;
  return {
    id: r.id,
    path: r.path,
    name: r.name,
    size: r.size,
    records: r.records,
    createdAt: r.created_at,
    source: r.source,
    byReference: r.by_reference === 1,
  };
}

function capture(r: CaptureDbRow | undefined): CaptureRow | null {
  if (!r) return null;
  return {
    id: r.id,
    fileId: r.file_id,
    filePath: r.file_path,
    fileName: r.file_name,
    offset: r.offset,
    length: r.length,
    recordType: r.record_type,
    recordId: r.record_id,
    targetUri: r.target_uri,
    urlkey: r.urlkey,
    ts: r.ts,
    date: dateFromKey(r.date, r.ts),
    mime: r.mime,
    status: r.status,
    payloadDigest: digestFromKey(r.payload_digest),
    refersTo: r.refers_to,
    refersToUri: r.refers_to_uri,
    refersToDate: r.refers_to_date,
    concurrentTo: r.concurrent_to,
    method: r.method,
    contentLength: r.content_length,
    truncated: r.truncated,
    title: r.title,
    page: r.page === 1,
  };
}
