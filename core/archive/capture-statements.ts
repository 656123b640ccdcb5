/**
 * The SQL behind the capture index (schema in storage/migrations.ts, versions 3, 7 and 10). Lookups
 * by URL go through (urlkey, ts); dedup and revisit resolution through (payload_digest, ts).
 * `+?` is a parameter SQLite must not compile against (storage/open-database.ts says why).
 *
 * A request or metadata record written right after its capture, with an id derived from the
 * capture's, has no row at all (version 10): the capture's row carries its length and content
 * length, and readers of every record read FOLD_COLUMNS and expand each row (capture-folds.ts).
 * Any other request or metadata row written with a capture is stored compact (version 7):
 * `parent_id` names the capture, and its target URI, URL key, timestamp, date, concurrent_to and
 * media type (the one its record type implies) are NULL. Every read of whole rows goes through
 * RECORD_FROM and RECORD_COLUMNS, which fill them in. `record_id` is stored as record-id-key.ts says (16
 * bytes for a UUID URN): read it through recordIdSql, look it up by recordIdKey. `payload_digest`
 * is stored as formats/digest.ts digestKey says (20 bytes for a sha1 in base32, version 8): the
 * row mappers read it through digestFromKey, lookups by digest pass digestKey's value. `date`
 * is stored as capture-date-key.ts says (the milliseconds alone when the rest is `ts`, version
 * 8): the row mappers read it through dateFromKey with the row's `ts`. `record_type` and `ts` are
 * stored as record-type-key.ts and capture-ts-key.ts say (integers, version 9): column lists
 * read them through recordTypeSql and tsSql, SQL that names a type spells its code
 * (recordTypeList), and a bound on `ts` is tsKey's value. ORDER BY and WHERE name the stored
 * column (`r.ts`), never the output alias, so the indexes still give the order.
 */
import type Database from 'better-sqlite3';
import { recordIdSql } from './record-id-key.ts';
import { recordTypeCode, recordTypeList, recordTypeSql } from './record-type-key.ts';
import { tsSql } from './capture-ts-key.ts';
import { CHILD_TYPE_MIME, FOLD_COLUMNS, FOLD_REACH, recordsOfRowSql } from './capture-folds.ts';
import type { FoldedDbRow } from './capture-folds.ts';
import type { CaptureDbRow } from './capture-row-types.ts';

export interface FileDbRow {
  id: number;
  path: string;
  name: string;
  size: number | null;
  records: number;
  created_at: number;
  source: 'crawl' | 'import';
  by_reference: number;
}

export type { CaptureDbRow } from './capture-row-types.ts';

/** A full row that may be the parent of a compact row: what the child must repeat exactly. */
export interface ParentDbRow {
  id: number;
  file_id: number;
  offset: number;
  target_uri: string | null;
  urlkey: string | null;
  ts: string | null;
  /** As stored (capture-date-key.ts) in a row from parentCandidate; the text in a row of this batch. */
  date: string | Buffer | null;
}

type RecordParams = [
  number, number, number, number, string | bigint, string | Buffer | null, string | null, string | null, string | bigint | null, string | Buffer | null, string | null,
  number | null, string | Buffer | null, string | null, string | null, string | null, string | null, string | null, number | null,
  string | null, string | null, number, number | null, number | null, number | null, number | null, number | null,
];

/** Replayable captures, what a URL lookup may return: the record types, and their codes as an SQL list. */
export const CAPTURE_TYPE_NAMES: ReadonlySet<string> = new Set(['response', 'revisit', 'resource']);
export const CAPTURE_TYPE_LIST = recordTypeList(CAPTURE_TYPE_NAMES);
const CAPTURE_TYPES = `r.record_type IN ${CAPTURE_TYPE_LIST}`;

/**
 * A compact row is at most this many rows after its parent (migration 7 spells the same 16), so
 * the records browser finds the compact rows of the parents an index walk met by a rowid range.
 */
export const COMPACT_WINDOW = 16;

/**
 * The record types a compact row may have, each with the media type it must carry: those a
 * folded child may have (capture-folds.ts); a compact row stores NULL for it.
 */
export const COMPACT_TYPE_MIME: ReadonlyMap<string, string> = CHILD_TYPE_MIME;

/** `records` as `r`, with the parent `p` a compact row takes its shared columns from. */
export const RECORD_FROM = 'records r LEFT JOIN records p ON p.id = r.parent_id';

/**
 * What a compact row `r` takes from its parent (or its type), filled in; a full row has no parent, so COALESCE keeps its own.
 * `ts` is the stored key (for conditions); a column list reads it through tsSql.
 */
export const SHARED_COLUMNS = {
  target_uri: 'COALESCE(r.target_uri, p.target_uri)',
  urlkey: 'COALESCE(r.urlkey, p.urlkey)',
  ts: 'COALESCE(r.ts, p.ts)',
  date: 'COALESCE(r.date, p.date)',
  concurrent_to: `COALESCE(r.concurrent_to, ${recordIdSql('p.record_id')})`,
  mime: `COALESCE(r.mime, CASE WHEN r.parent_id IS NOT NULL THEN CASE r.record_type ${[...COMPACT_TYPE_MIME]
    .map(([type, mime]) => `WHEN ${recordTypeCode(type)} THEN '${mime}'`)
    .join(' ')} END END)`,
} as const;

/** Every column of a CaptureDbRow but the file's, read through RECORD_FROM. */
export const RECORD_COLUMNS = `r.id, r.file_id, r.offset, r.length, ${recordTypeSql('r.record_type')} AS record_type, ${recordIdSql('r.record_id')} AS record_id,
  ${SHARED_COLUMNS.target_uri} AS target_uri, ${SHARED_COLUMNS.urlkey} AS urlkey, ${tsSql(SHARED_COLUMNS.ts)} AS ts, ${SHARED_COLUMNS.date} AS date,
  ${SHARED_COLUMNS.mime} AS mime, r.status, r.payload_digest, r.refers_to, r.refers_to_uri, r.refers_to_date, ${SHARED_COLUMNS.concurrent_to} AS concurrent_to,
  r.method, r.content_length, r.truncated, r.title, r.page`;

const SELECT_RECORD = `SELECT ${RECORD_COLUMNS}, ${FOLD_COLUMNS}, f.path AS file_path, f.name AS file_name FROM ${RECORD_FROM} JOIN warc_files f ON f.id = r.file_id`;

/**
 * The same for lookups that only return captures (and pages, which are responses): a capture is
 * never compact, so no parent is joined. Replay runs these on every request, and each column
 * expression costs on every execution, even one that finds nothing.
 */
const SELECT_CAPTURE = `SELECT r.id, r.file_id, r.offset, r.length, ${recordTypeSql('r.record_type')} AS record_type, ${recordIdSql('r.record_id')} AS record_id,
  r.target_uri, r.urlkey, ${tsSql('r.ts')} AS ts, r.date, r.mime, r.status, r.payload_digest, r.refers_to, r.refers_to_uri, r.refers_to_date,
  r.concurrent_to, r.method, r.content_length, r.truncated, r.title, r.page, f.path AS file_path, f.name AS file_name
  FROM records r JOIN warc_files f ON f.id = r.file_id`;

export function prepareCaptureStatements(db: Database.Database) {
  return {
    insertFile: db.prepare<[string, string, number | null, number, string, number], { id: number }>(
      'INSERT INTO warc_files (path, name, size, created_at, source, by_reference) VALUES (?, ?, ?, ?, ?, ?) RETURNING id',
    ),
    updateFile: db.prepare<[number | null, number | null, number]>(
      'UPDATE warc_files SET size = COALESCE(?, size), records = COALESCE(?, records) WHERE id = ?',
    ),
    addFileRecords: db.prepare<[number, number]>('UPDATE warc_files SET records = records + ? WHERE id = ?'),
    // An import's staged registration (import-staging.ts) takes its final path, or is dropped.
    renameFile: db.prepare<[string, string, number]>('UPDATE warc_files SET path = ?, name = ? WHERE id = ?'),
    deleteFileRow: db.prepare<[number]>('DELETE FROM warc_files WHERE id = ?'),
    fileById: db.prepare<[number], FileDbRow>('SELECT * FROM warc_files WHERE id = ?'),
    fileByPath: db.prepare<[string], FileDbRow>('SELECT * FROM warc_files WHERE path = ?'),
    files: db.prepare<[], FileDbRow>('SELECT * FROM warc_files ORDER BY id'),

    // Every row names its id: a capture with folded children (capture-folds.ts) leaves their ids free after it.
    insertRecord: db.prepare<RecordParams>(
      `INSERT INTO records (id, file_id, offset, length, record_type, record_id, target_uri, urlkey, ts, date, mime, status,
         payload_digest, refers_to, refers_to_uri, refers_to_date, concurrent_to, method, content_length, truncated, title, page, parent_id,
         req_len, req_clen, meta_len, meta_clen)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    // The latest full capture row with this record id: the parent a compact row may name.
    parentCandidate: db.prepare<[string | Buffer], ParentDbRow>(
      `SELECT id, file_id, offset, target_uri, urlkey, ${tsSql('r.ts')} AS ts, date FROM records r
       WHERE record_id = +? AND parent_id IS NULL AND ${CAPTURE_TYPES} ORDER BY id DESC LIMIT 1`,
    ),
    // The last id taken: the last row's, or its last folded child's (read from the end of the rowid B-tree).
    lastId: db.prepare<[], { n: number }>(`SELECT r.id + ${recordsOfRowSql('r')} - 1 AS n FROM records r ORDER BY r.id DESC LIMIT 1`),
    findCaptures: db.prepare<[string], CaptureDbRow>(`${SELECT_CAPTURE} WHERE r.urlkey = +? AND ${CAPTURE_TYPES} ORDER BY r.ts, r.id`),
    latest: db.prepare<[string], CaptureDbRow>(`${SELECT_CAPTURE} WHERE r.urlkey = +? AND ${CAPTURE_TYPES} ORDER BY r.ts DESC, r.id DESC LIMIT 1`),
    atOrAfter: db.prepare<[string, string | bigint], CaptureDbRow>(
      `${SELECT_CAPTURE} WHERE r.urlkey = +? AND r.ts >= +? AND ${CAPTURE_TYPES} ORDER BY r.ts, r.id LIMIT 1`,
    ),
    before: db.prepare<[string, string | bigint], CaptureDbRow>(
      `${SELECT_CAPTURE} WHERE r.urlkey = +? AND r.ts < +? AND ${CAPTURE_TYPES} ORDER BY r.ts DESC, r.id DESC LIMIT 1`,
    ),
    // The earliest response with a payload digest, as its id: the crawl asks this for every
    // response it dedups, and most answers are "none". Without the column list and the join with
    // warc_files a miss costs about a fifth of what it did; the row is
    // read by id on a hit (captureById).
    idByDigest: db.prepare<[string | Buffer], { id: number }>(
      `SELECT r.id FROM records r WHERE r.payload_digest = +? AND r.record_type = ${recordTypeCode('response')} ORDER BY r.ts, r.id LIMIT 1`,
    ),
    // The same, leaving out responses marked WARC-Truncated: a cut payload is no original for a
    // revisit (Heritrix never dedups against a truncated capture), nor a 206, which holds a part
    // of a resource (a browser's Range request of a video) even when its bytes are all of it.
    // Rows sharing a digest are few, so the extra conditions are read from those rows only.
    originalIdByDigest: db.prepare<[string | Buffer], { id: number }>(
      `SELECT r.id FROM records r WHERE r.payload_digest = +? AND r.record_type = ${recordTypeCode('response')} AND r.truncated IS NULL AND (r.status IS NULL OR r.status <> 206) ORDER BY r.ts, r.id LIMIT 1`,
    ),
    captureById: db.prepare<[number], CaptureDbRow>(`${SELECT_CAPTURE} WHERE r.id = ?`),
    // Whether a row exists (page text is added to a row the crawl has just indexed).
    recordExists: db.prepare<[number], { id: number }>('SELECT id FROM records WHERE id = ?'),
    byRecordId: db.prepare<[string | Buffer], FoldedDbRow>(`${SELECT_RECORD} WHERE r.record_id = +? ORDER BY r.id LIMIT 1`),
    // The rows that may stand for id ?: the row itself, or a capture up to two before it with folded children.
    rowsAround: db.prepare<[number, number], FoldedDbRow>(`${SELECT_RECORD} WHERE r.id BETWEEN ? - ${FOLD_REACH} AND ? ORDER BY r.id`),
    pages: db.prepare<[number, number], CaptureDbRow>(`${SELECT_CAPTURE} WHERE r.page = 1 ORDER BY r.ts, r.id LIMIT ? OFFSET ?`),
    count: db.prepare<[], { n: number }>(`SELECT COALESCE(SUM(${recordsOfRowSql('r')}), 0) AS n FROM records r`),
    // How many records a file's rows stand for (before they are deleted).
    fileRecordCount: db.prepare<[number], { n: number }>(`SELECT COALESCE(SUM(${recordsOfRowSql('r')}), 0) AS n FROM records r WHERE r.file_id = ?`),

    deleteFileRecords: db.prepare<[number]>('DELETE FROM records WHERE file_id = ?'),
    resetFileRecords: db.prepare<[number]>('UPDATE warc_files SET records = 0 WHERE id = ?'),

    setTitle: db.prepare<[string, number]>('UPDATE records SET title = ? WHERE id = ?'),
  };
}

export type CaptureStatements = ReturnType<typeof prepareCaptureStatements>;
