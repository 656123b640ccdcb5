/**
 * The capture index read the way exports, replay's fuzzy matching, reports and crash recovery
 * read it: keyset-paged scans over `records` (`id > after`, never OFFSET, so a crawl with
 * millions of records streams in flat memory), counts, and narrow lookups. They live here, with
 * the table, so no other module holds SQL over it; callers get plain rows.
 *
 * Statements are prepared on first use: a crawl or a library listing that opens the index never
 * pays for the export scans it does not run. `+?` is a parameter SQLite must not compile against
 * (storage/open-database.ts says why).
 */
import type Database from 'better-sqlite3';
import { digestFromKey } from '../formats/digest.ts';
import { dateFromKey } from './capture-date-key.ts';
import type { CaptureRow } from './capture-row-types.ts';
import { CAPTURE_TYPE_LIST, RECORD_FROM, SHARED_COLUMNS } from './capture-statements.ts';
import { prefixEnd } from './record-query-sql.ts';
import { recordIdSql } from './record-id-key.ts';
import { recordTypeCode, recordTypeList, recordTypeSql } from './record-type-key.ts';
import { tsSql } from './capture-ts-key.ts';
import { createTextShards } from './text-shards.ts';
import type { TextMatchSql, TextShards } from './text-shards.ts';
import { CHILD_TYPE_MIME, childPlaces, FOLD_REACH, recordsOfRowSql } from './capture-folds.ts';

/** A page (an HTML 200 capture) as pages.jsonl and the WACZ main page need it. */
export interface PageRow {
  id: number;
  recordId: string | null;
  targetUri: string | null;
  ts: string | null;
  date: string | null;
  title: string | null;
}

/** What a CDXJ line is made of (archive/cdxj.ts), without re-reading the WARC. */
export type CdxjSourceRow = Pick<
  CaptureRow,
  'id' | 'fileId' | 'offset' | 'length' | 'recordType' | 'targetUri' | 'urlkey' | 'ts' | 'mime' | 'status' | 'payloadDigest' | 'method'
>;

/** The latest 200 GET capture of one URL key (the offline mirror's file for it). */
export interface LatestCaptureRow {
  urlkey: string;
  ts: string;
  targetUri: string;
  mime: string | null;
}

/** A capture as a crawl report counts it. */
export interface ReportCaptureRow {
  id: number;
  recordType: string;
  targetUri: string | null;
  ts: string | null;
  status: number | null;
  mime: string | null;
  contentLength: number | null;
}

/** A capture that may answer a URL fuzzily (same URL up to `?`). */
export interface FuzzyCandidate {
  id: number;
  urlkey: string;
  ts: string | null;
  url: string | null;
}

export interface CaptureScans {
  countPages(): number;
  /** Pages with records.id > `after`, in id order. */
  pagesAfter(after: number, limit: number): PageRow[];
  /** The indexed visible text of a page, or null. */
  pageText(recordId: number): string | null;
  /** SQL that selects the ids of the records whose text matches an FTS5 query (record-query-sql.ts). */
  textMatchSql(): TextMatchSql;
  /** The earliest page with this URL key, or the earliest page of all when no key is given. */
  firstPage(urlkey?: string): PageRow | null;
  /** Rows a CDXJ index is built from (response, revisit, resource, metadata): how many, and a page of them by id. */
  countCdxjRows(): number;
  cdxjRows(after: number, limit: number): CdxjSourceRow[];
  /** The latest 200 capture (GET only) of each URL key > `afterKey`, in key order. */
  latestOkCaptures(afterKey: string, limit: number): LatestCaptureRow[];
  /** Captures (response, revisit, resource) with records.id > `after`, in id order. */
  reportCaptures(after: number, limit: number): ReportCaptureRow[];
  /**
   * Replayable captures keyed exactly `baseKey` (a URL without its query) and then up to `limit`
   * keyed `baseKey?…`: two range reads on (urlkey, ts).
   */
  fuzzyCandidates(baseKey: string, limit: number): FuzzyCandidate[];
  /** Up to `limit` pages whose URL key lies in [from, to) (one host's pages). */
  pagesInKeyRange(from: string, to: string, limit: number): { url: string | null; ts: string | null }[];
  /** Target URIs of response and revisit records, in index order (a scan: a regex cannot use an index). */
  responseUris(): IterableIterator<string>;
  /** Offsets of the indexed records of one file. */
  recordOffsets(fileId: number): number[];
  /** Where the request records of one file are (folded ones included), in file order: what an export that redacts credentials rewrites. */
  requestPlaces(fileId: number): { offset: number; length: number }[];
  /** Drop the rows of a file at or past `offset` (they point past its end); returns how many. */
  deleteRecordsFrom(fileId: number, offset: number): number;
  /** Run `fn` in one transaction (a savepoint inside the caller's). */
  transaction<T>(fn: () => T): T;
}

// Replayable captures: `+` keeps SQLite on the urlkey index rather than the type or ts one.
const REPLAYABLE = `+record_type IN ${CAPTURE_TYPE_LIST}`;
const PAGE_COLS = `id, ${recordIdSql('record_id')} AS recordId, target_uri AS targetUri, ${tsSql('records.ts')} AS ts, date, title`;
const CDXJ_TYPE_NAMES: ReadonlySet<string> = new Set(['response', 'revisit', 'resource', 'metadata']);
const CDXJ_TYPES = `record_type IN ${recordTypeList(CDXJ_TYPE_NAMES)}`;

function statements(db: Database.Database) {
  return {
    countPages: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM records WHERE page = 1'),
    pagesAfter: db.prepare<[number, number], PageRow>(`SELECT ${PAGE_COLS} FROM records WHERE page = 1 AND id > ? ORDER BY id LIMIT ?`),
    firstPageOf: db.prepare<[string], PageRow>(`SELECT ${PAGE_COLS} FROM records WHERE urlkey = +? AND page = 1 ORDER BY records.ts, id LIMIT 1`),
    firstPage: db.prepare<[], PageRow>(`SELECT ${PAGE_COLS} FROM records WHERE page = 1 ORDER BY records.ts, id LIMIT 1`),
    // Folded metadata records count too (capture-folds.ts).
    countCdxjRows: db.prepare<[], { n: number }>(`SELECT (SELECT COUNT(*) FROM records WHERE ${CDXJ_TYPES}) + (SELECT COUNT(meta_len) FROM records) AS n`),
    cdxjRows: db.prepare<[number, number], CdxjDbRow>(
      // Metadata rows may be compact (migration 7): their URL and time come from their parent, their media type from their type.
      // A row with a folded metadata record is read whatever its type, and from up to two ids before `after`: its children come after it.
      `SELECT r.id, r.file_id AS fileId, r.offset, r.length, ${recordTypeSql('r.record_type')} AS recordType, ${SHARED_COLUMNS.target_uri} AS targetUri,
              ${SHARED_COLUMNS.urlkey} AS urlkey, ${tsSql(SHARED_COLUMNS.ts)} AS ts, ${SHARED_COLUMNS.mime} AS mime, r.status, r.payload_digest AS payloadDigest, r.method,
              r.req_len, r.meta_len
       FROM ${RECORD_FROM} WHERE r.id > ? - ${FOLD_REACH} AND (r.${CDXJ_TYPES} OR r.meta_len IS NOT NULL) ORDER BY r.id LIMIT ?`,
    ),
    latestOk: db.prepare<[string, number], LatestCaptureRow>(
      // MAX() alone in its query, so target_uri and mime are the latest row's (SQLite's bare columns); ts read as text outside.
      `SELECT urlkey, ${tsSql('ts')} AS ts, targetUri, mime FROM (SELECT urlkey, MAX(ts) AS ts, target_uri AS targetUri, mime FROM records
       WHERE urlkey > ? AND record_type IN ${CAPTURE_TYPE_LIST} AND ts IS NOT NULL AND target_uri IS NOT NULL
         AND (status = 200 OR (record_type = ${recordTypeCode('resource')} AND status IS NULL)) AND (method IS NULL OR upper(method) = 'GET')
       GROUP BY urlkey ORDER BY urlkey LIMIT ?) ORDER BY urlkey`,
    ),
    reportCaptures: db.prepare<[number, number], ReportCaptureRow>(
      `SELECT id, ${recordTypeSql('record_type')} AS recordType, target_uri AS targetUri, ${tsSql('records.ts')} AS ts, status, mime, content_length AS contentLength FROM records
       WHERE id > ? AND record_type IN ${CAPTURE_TYPE_LIST} ORDER BY id LIMIT ?`,
    ),
    fuzzy: db.prepare<[string, string, string, number], FuzzyCandidate>(
      `SELECT id, urlkey, ${tsSql('records.ts')} AS ts, target_uri AS url FROM records
       WHERE urlkey = ? AND ${REPLAYABLE}
       UNION ALL
       SELECT * FROM (SELECT id, urlkey, ${tsSql('records.ts')} AS ts, target_uri AS url FROM records
         WHERE urlkey >= ? AND urlkey < ? AND ${REPLAYABLE} LIMIT ?)`,
    ),
    pagesInKeyRange: db.prepare<[string, string, number], { url: string | null; ts: string | null }>(
      `SELECT target_uri AS url, ${tsSql('records.ts')} AS ts FROM records WHERE urlkey >= ? AND urlkey < ? AND +page = 1 LIMIT ?`,
    ),
    responseUris: db
      .prepare<[], string>(`SELECT target_uri FROM records WHERE record_type IN ${recordTypeList(['response', 'revisit'])} AND target_uri IS NOT NULL ORDER BY id`)
      .pluck(),
    recordOffsets: db.prepare<[number], { id: number; offset: number; length: number; req_len: number | null; meta_len: number | null }>(
      'SELECT id, offset, length, req_len, meta_len FROM records WHERE file_id = ?',
    ),
    requestPlaces: db.prepare<[number], { id: number; offset: number; length: number; record_type: string; req_len: number | null; meta_len: number | null }>(
      `SELECT id, offset, length, ${recordTypeSql('record_type')} AS record_type, req_len, meta_len FROM records
       WHERE file_id = ? AND (record_type = ${recordTypeCode('request')} OR req_len IS NOT NULL)`,
    ),
    countFrom: db.prepare<[number, number], { n: number }>(`SELECT COALESCE(SUM(${recordsOfRowSql('r')}), 0) AS n FROM records r WHERE r.file_id = ? AND r.offset >= ?`),
    deleteFrom: db.prepare<[number, number]>('DELETE FROM records WHERE file_id = ? AND offset >= ?'),
    // Folded children at or past the cut, of a row before it: the metadata record (the last), then the request with whatever follows it.
    cutMeta: db.prepare<[number, number]>(
      'UPDATE records SET meta_len = NULL, meta_clen = NULL WHERE file_id = ? AND meta_len IS NOT NULL AND offset + length + COALESCE(req_len, 0) >= ?',
    ),
    cutReq: db.prepare<[number, number]>('UPDATE records SET req_len = NULL, req_clen = NULL WHERE file_id = ? AND req_len IS NOT NULL AND offset + length >= ?'),
  };
}

/** A cdxjRows row as read: a row's own columns and what it says of its folded children. */
type CdxjDbRow = CdxjSourceRow & { req_len: number | null; meta_len: number | null };

/** The records a cdxjRows row stands for, as CDXJ source rows (a folded metadata record as its row would read), pushed to `out`. */
function pushCdxj(r: CdxjDbRow, after: number, limit: number, out: CdxjSourceRow[]): void {
  const own: CdxjSourceRow = {
    id: r.id, fileId: r.fileId, offset: r.offset, length: r.length, recordType: r.recordType, targetUri: r.targetUri, urlkey: r.urlkey, ts: r.ts,
    mime: r.mime, status: r.status, payloadDigest: digestFromKey(r.payloadDigest as string | Buffer | null), method: r.method,
  };
  if (r.id > after && CDXJ_TYPE_NAMES.has(r.recordType) && out.length < limit) out.push(own);
  if (r.meta_len === null) return;
  for (const c of childPlaces(r)) {
    if (c.type !== 'metadata' || c.id <= after || out.length >= limit) continue;
    out.push({ ...own, id: c.id, offset: c.offset, length: c.length, recordType: c.type, mime: CHILD_TYPE_MIME.get(c.type)!, status: null, payloadDigest: null, method: null });
  }
}

/** A page row with its date as text (stored as capture-date-key.ts says). */
function pageRow<R extends PageRow | null>(r: R): R {
  return r === null ? r : { ...r, date: dateFromKey(r.date as string | Buffer | null, r.ts) };
}

/** `text`: the index's page text, when the caller has it open already. */
export function createCaptureScans(db: Database.Database, text: TextShards = createTextShards(db)): CaptureScans {
  let prepared: ReturnType<typeof statements> | null = null;
  const st = () => (prepared ??= statements(db));
  return {
    countPages: () => st().countPages.get()!.n,
    pagesAfter: (after, limit) => st().pagesAfter.all(after, limit).map(pageRow),
    pageText: (recordId) => text.text(recordId),
    textMatchSql: () => text.matchSql(),
    firstPage: (urlkey) => pageRow((urlkey === undefined ? st().firstPage.get() : st().firstPageOf.get(urlkey)) ?? null),
    countCdxjRows: () => st().countCdxjRows.get()!.n,
    cdxjRows: (after, limit) => {
      // Rows from two ids before `after` (their folded children may be past it); each stands for at least one CDXJ row past it.
      const out: CdxjSourceRow[] = [];
      // Read as far as the page needs: with folded metadata records a row stands for two.
      for (const row of st().cdxjRows.iterate(after, FOLD_REACH + limit)) {
        if (out.length >= limit) break;
        pushCdxj(row, after, limit, out);
      }
      return out;
    },
    latestOkCaptures: (afterKey, limit) => st().latestOk.all(afterKey, limit),
    reportCaptures: (after, limit) => st().reportCaptures.all(after, limit),
    fuzzyCandidates: (baseKey, limit) => st().fuzzy.all(baseKey, `${baseKey}?`, prefixEnd(`${baseKey}?`), limit),
    pagesInKeyRange: (from, to, limit) => st().pagesInKeyRange.all(from, to, limit),
    responseUris: () => st().responseUris.iterate(),
    recordOffsets: (fileId) => st().recordOffsets.all(fileId).flatMap((r) => [r.offset, ...childPlaces(r).map((c) => c.offset)]),
    requestPlaces: (fileId) =>
      st()
        .requestPlaces.all(fileId)
        .flatMap((r) => [...(r.record_type === 'request' ? [{ offset: r.offset, length: r.length }] : []), ...childPlaces(r).filter((c) => c.type === 'request')])
        .map(({ offset, length }) => ({ offset, length }))
        .sort((a, b) => a.offset - b.offset),
    deleteRecordsFrom: (fileId, offset) => {
      const n = st().countFrom.get(fileId, offset)!.n;
      st().deleteFrom.run(fileId, offset);
      // The rows left start before the cut; the metadata record first (its offset reads req_len).
      return n + st().cutMeta.run(fileId, offset).changes + st().cutReq.run(fileId, offset).changes;
    },
    transaction: <T>(fn: () => T): T => db.transaction(fn)(),
  };
}

