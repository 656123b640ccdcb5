/**
 * Request and metadata records folded into their capture's row (schema version 10, issue 20:
 * database bytes per URI). A crawl writes a response, its request and its metadata record one
 * after the other; the two children repeat the capture's URL, time and file, and their record ids
 * derive from the capture's (warc/child-record-id.ts). Folded, the capture row carries each
 * child's length and content length, and the child has no row, no record id and no index entry
 * of its own (207 bytes per URI less).
 *
 * The rule (foldable) takes only what reads back exactly: a child of the type and place expected,
 * directly after the record before it in the same file, with the derived id and every other
 * column what its capture or its type implies. Anything else keeps a row of its own (full, or
 * compact as version 7 made them), so an imported WARC is indexed as before.
 *
 * Readers that list every record select a row's fold columns (FOLD_COLUMNS) and expand it here
 * (children), so each of them gives a folded child exactly as the row it replaced: its id is the
 * capture's plus its place (the capture took its id with room after it), its offset the end of
 * the record before it.
 */
import { CHILD_PLACE, childRecordId } from '../warc/child-record-id.ts';
import type { ChildRecordType } from '../warc/child-record-id.ts';
import type { CaptureDbRow, RecordRow } from './capture-row-types.ts';

/** The media type a child of each type carries (what index-row.ts gives a crawl's request and metadata records). */
export const CHILD_TYPE_MIME: ReadonlyMap<ChildRecordType, string> = new Map([
  ['request', 'application/http'],
  ['metadata', 'application/warc-fields'],
]);

/** The fold columns of a `records` row, as stored. */
export interface FoldDbColumns {
  req_len: number | null;
  req_clen: number | null;
  meta_len: number | null;
  meta_clen: number | null;
}

/** The fold columns of `records r`, for a reader's column list. */
export const FOLD_COLUMNS = 'r.req_len, r.req_clen, r.meta_len, r.meta_clen';

/** Per child type: its length column, its content length column, and where it sits in the file. */
export const CHILD_COLUMNS: Readonly<Record<ChildRecordType, { len: string; clen: string }>> = {
  request: { len: 'req_len', clen: 'req_clen' },
  metadata: { len: 'meta_len', clen: 'meta_clen' },
};

/** Folded children in file order (the order a crawl writes them, and their places). */
export const CHILD_TYPES: readonly ChildRecordType[] = (Object.keys(CHILD_PLACE) as ChildRecordType[]).sort((a, b) => CHILD_PLACE[a] - CHILD_PLACE[b]);

/**
 * How many ids before a keyset cursor or an id rows are read from: a row's folded children have
 * the ids after its own, so a row just before the cursor may stand for records past it.
 */
export const FOLD_REACH = CHILD_TYPES.length;

/** SQL: how many records a row of `records` (alias `a`) stands for (itself and its folded children). */
export function recordsOfRowSql(a: string): string {
  return `(1 + (${a}.req_len IS NOT NULL) + (${a}.meta_len IS NOT NULL))`;
}

/** What a capture row carries for its folded children (all null: none folded). */
export interface Folded {
  req_len: number | null;
  req_clen: number | null;
  meta_len: number | null;
  meta_clen: number | null;
  /** How many of the rows after the capture were folded. */
  count: number;
}

const NONE: Folded = { req_len: null, req_clen: null, meta_len: null, meta_clen: null, count: 0 };

/** Whether `c` reads back exactly as a folded child of type `type` of capture `p`, starting at `offset`. */
function foldable(p: RecordRow, c: RecordRow, type: ChildRecordType, offset: number): boolean {
  return (
    c.recordType === type &&
    c.fileId === p.fileId &&
    c.offset === offset &&
    c.recordId !== null &&
    c.recordId === childRecordId(p.recordId, type) &&
    c.targetUri === p.targetUri &&
    c.urlkey === p.urlkey &&
    c.ts === p.ts &&
    c.date === p.date &&
    c.mime === CHILD_TYPE_MIME.get(type) &&
    (c.concurrentTo ?? null) === p.recordId &&
    c.status === null &&
    c.payloadDigest === null &&
    (c.refersTo ?? null) === null &&
    (c.refersToUri ?? null) === null &&
    (c.refersToDate ?? null) === null &&
    (c.truncated ?? null) === null &&
    (c.title ?? null) === null &&
    !c.page &&
    (c.method ?? null) === (type === 'request' ? (p.method ?? null) : null) &&
    (c.contentLength === undefined || c.contentLength === null || Number.isSafeInteger(c.contentLength))
  );
}

/**
 * The children of `rows[at]` (a capture) that fold into its row: the rows right after it, a
 * request and then a metadata record, each optional, as foldable says. Only a capture's own
 * columns are compared, so a crawl's rows fold and anything unusual keeps its row.
 */
export function foldsOf(rows: readonly RecordRow[], at: number, isCapture: boolean): Folded {
  const p = rows[at]!;
  if (!isCapture || p.recordId === null || p.targetUri === null) return NONE;
  const out = { ...NONE };
  let end = p.offset + p.length;
  let next = at + 1;
  for (const type of CHILD_TYPES) {
    const c = rows[next];
    if (!c || !foldable(p, c, type, end)) continue;
    const cols = CHILD_COLUMNS[type];
    out[cols.len as 'req_len' | 'meta_len'] = c.length;
    out[cols.clen as 'req_clen' | 'meta_clen'] = c.contentLength ?? null;
    out.count++;
    end += c.length;
    next++;
  }
  return out;
}

/** A row as read with FOLD_COLUMNS. */
export type FoldedDbRow = CaptureDbRow & Partial<FoldDbColumns>;

/** Where a folded child sits: its type, id, offset and length, and its content length. */
export interface ChildPlace {
  type: ChildRecordType;
  id: number;
  offset: number;
  length: number;
  contentLength: number | null;
}

/** The folded children of a row (its id, offset, length and fold columns), in file and id order. */
export function childPlaces(r: { id: number; offset: number; length: number } & Partial<FoldDbColumns>): ChildPlace[] {
  const out: ChildPlace[] = [];
  let offset = r.offset + r.length;
  for (const type of CHILD_TYPES) {
    const cols = CHILD_COLUMNS[type];
    const length = r[cols.len as 'req_len' | 'meta_len'] ?? null;
    if (length === null) continue;
    out.push({ type, id: r.id + out.length + 1, offset, length, contentLength: r[cols.clen as 'req_clen' | 'meta_clen'] ?? null });
    offset += length;
  }
  return out;
}

/** The folded children of a row read with FOLD_COLUMNS, as the rows they replaced would read. */
export function children(r: FoldedDbRow): CaptureDbRow[] {
  return childPlaces(r).map((c) => ({
    id: c.id,
    file_id: r.file_id,
    file_path: r.file_path,
    file_name: r.file_name,
    offset: c.offset,
    length: c.length,
    record_type: c.type,
    record_id: childRecordId(r.record_id, c.type),
    target_uri: r.target_uri,
    urlkey: r.urlkey,
    ts: r.ts,
    date: r.date,
    mime: CHILD_TYPE_MIME.get(c.type)!,
    status: null,
    payload_digest: null,
    refers_to: null,
    refers_to_uri: null,
    refers_to_date: null,
    concurrent_to: r.record_id,
    method: c.type === 'request' ? r.method : null,
    content_length: c.contentLength,
    truncated: null,
    title: null,
    page: 0,
  }));
}

/** A row read with FOLD_COLUMNS (or more) as the record it is itself: the columns of a CaptureDbRow alone. */
export function ownRecord(r: FoldedDbRow): CaptureDbRow {
  const own: Record<string, unknown> = {};
  for (const k of RECORD_KEYS) own[k] = r[k];
  return own as unknown as CaptureDbRow;
}

// The keys of a CaptureDbRow, in its column order (capture-statements.ts RECORD_COLUMNS, then the file's).
const RECORD_KEYS: readonly (keyof CaptureDbRow)[] = [
  'id', 'file_id', 'offset', 'length', 'record_type', 'record_id', 'target_uri', 'urlkey', 'ts', 'date', 'mime', 'status', 'payload_digest',
  'refers_to', 'refers_to_uri', 'refers_to_date', 'concurrent_to', 'method', 'content_length', 'truncated', 'title', 'page', 'file_path', 'file_name',
];

/** Every record a row stands for, in id order: the row, then its folded children. */
export function expand(r: FoldedDbRow): CaptureDbRow[] {
  return [ownRecord(r), ...children(r)];
}
