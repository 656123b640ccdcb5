/**
 * Turning a RecordFilter into SQL over `records`. Every condition is on an indexed column or a
 * range of one (URL filters become SURT-key ranges over `records_urlkey_ts`), and pages are cut
 * by keyset (`id > after`), never OFFSET, so page 1,000 costs what page 1 costs.
 *
 * A compact row (migration 7) takes its URL key and timestamp from its parent, so a condition on
 * them is written twice: over the filled-in value (`sql`, read through RECORD_FROM) and over the
 * index's own column (`indexSql`, alias `x`), which meets only full rows; the compact rows of
 * those are found by id (indexWalk). A folded child (capture-folds.ts, version 10) has no row:
 * recordMatch tests it on its capture's row (childClause), and readers expand the rows they read.
 */
import { TroveError } from '../errors.ts';
import { digestFromKey } from '../formats/digest.ts';
import { surtKey } from '../scope/surt.ts';
import { toFtsQuery } from './capture-text-search.ts';
import { dateFromKey } from './capture-date-key.ts';
import { recordTypeKey } from './record-type-key.ts';
import { tsKey } from './capture-ts-key.ts';
import { COMPACT_WINDOW, RECORD_COLUMNS, RECORD_FROM, SHARED_COLUMNS } from './capture-statements.ts';
import type { CaptureDbRow, CaptureRow } from './capture-row-types.ts';
import type { RecordFilter, RecordSummary } from '../api/archive-types.ts';
import { CHILD_COLUMNS, CHILD_TYPE_MIME, CHILD_TYPES, FOLD_COLUMNS, children, ownRecord } from './capture-folds.ts';
import type { FoldedDbRow } from './capture-folds.ts';
import type { ChildRecordType } from '../warc/child-record-id.ts';
import type { TextMatchSql } from './text-shards.ts';

export interface WhereClause {
  sql: string;
  params: (string | number | bigint)[];
}

/**
 * One condition; `index` names the index that can walk its matches (migrations, versions 3 and
 * 7), `indexSql` is the condition on that index's column of full rows (alias `x`, same params),
 * and `shared` says it is on a column compact rows take from their parent.
 */
export interface Condition extends WhereClause {
  index?: 'records_urlkey_ts' | 'records_ts' | 'records_status' | 'records_type';
  indexSql?: string;
  shared?: boolean;
}

/**
 * A filter as SQL: `conds` hold every condition but one multi-valued list (types or statuses),
 * kept apart in `split` so a page can be read as a merge of one index walk per value (each in
 * records.id order) instead of sorting every match.
 */
export interface FilterSql {
  conds: Condition[];
  split: { column: 'record_type' | 'status'; values: (string | number | bigint)[] } | null;
  /** True when nothing is filtered. */
  empty: boolean;
}

/** The conditions ANDed (`1` when there are none). */
export function joinConditions(conds: readonly WhereClause[]): WhereClause {
  return { sql: conds.length > 0 ? conds.map((c) => c.sql).join(' AND ') : '1', params: conds.flatMap((c) => c.params) };
}

const TS_PARTIAL = /^\d{4,14}$/;

/** The first string greater than every string starting with `prefix` (bytewise, as SQLite compares). */
export function prefixEnd(prefix: string): string {
  const last = prefix.charCodeAt(prefix.length - 1);
  return prefix.slice(0, -1) + String.fromCharCode(last + 1);
}

/** A URL the user typed, with `http://` added when it has no scheme. */
export function withScheme(url: string): string {
  return /^[a-z][a-z0-9+.-]*:/i.test(url) ? url : `http://${url}`;
}

/** The SURT host part (`com,example`) of a host name, `www.` dropped as in urlkeys. */
export function surtHost(host: string): string {
  const key = surtKey(`http://${host.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/[/?#].*$/, '')}/`);
  const close = key.indexOf(')');
  return close > 0 ? key.slice(0, close) : key;
}

function checkTs(name: string, ts: string): void {
  if (!TS_PARTIAL.test(ts)) throw new TroveError('QUERY_BAD_FILTER', `${name} must be 4 to 14 digits (YYYYMMDDhhmmss), not ${ts}`, { [name]: ts });
}

function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The WHERE clause (without `WHERE`) for a filter; `r` is the records alias. */
export function filterClause(f: RecordFilter, textMatch: TextMatchSql): WhereClause {
  const { conds, split } = filterSql(f, textMatch);
  if (!split) return joinConditions(conds);
  return joinConditions([{ sql: `r.${split.column} IN (${split.values.map(() => '?').join(', ')})`, params: split.values }, ...conds]);
}

/** `textMatch`: the page-text tables' `SELECT rowid … MATCH ?` (text-shards.ts), for a text filter. */
export function filterSql(f: RecordFilter, textMatch: TextMatchSql): FilterSql {
  const conds: Condition[] = [];
  let split: FilterSql['split'] = null;
  // Bound as stored (record-type-key.ts): a WARC 1.1 type's code, any other type as its text.
  const types = [...new Set((f.type ?? []).map((t) => recordTypeKey(t.toLowerCase())))];
  if (types.length === 1) conds.push({ sql: 'r.record_type = ?', params: [types[0]!], index: 'records_type', indexSql: 'x.record_type = ?' });
  else if (types.length > 1) split = { column: 'record_type', values: types };
  // On the URL key: `k` is the column; the partial index holds only rows with a key of their own.
  const onKey = (cond: (k: string) => string, params: string[]): Condition => ({
    sql: cond(SHARED_COLUMNS.urlkey),
    params,
    index: 'records_urlkey_ts',
    indexSql: `x.urlkey IS NOT NULL AND ${cond('x.urlkey')}`,
    shared: true,
  });
  if (f.url) conds.push(onKey((k) => `${k} = ?`, [surtKey(withScheme(f.url.trim()))]));
  if (f.urlPrefix) {
    const key = surtKey(withScheme(f.urlPrefix.trim()));
    conds.push(onKey((k) => `${k} >= ? AND ${k} < ?`, [key, prefixEnd(key)]));
  }
  if (f.host) {
    const h = surtHost(f.host.trim().toLowerCase());
    // `com,example)` and `com,example:8080)`: the host on any port.
    conds.push(onKey((k) => `((${k} >= ? AND ${k} < ?) OR (${k} >= ? AND ${k} < ?))`, [`${h})`, prefixEnd(`${h})`), `${h}:`, prefixEnd(`${h}:`)]));
  }
  if (f.mime) {
    const m = f.mime.trim().toLowerCase();
    const mime = SHARED_COLUMNS.mime;
    if (m.endsWith('/')) conds.push({ sql: `${mime} LIKE ? ESCAPE '\\'`, params: [`${likeEscape(m)}%`] });
    else conds.push({ sql: `(${mime} = ? OR ${mime} LIKE ? ESCAPE '\\')`, params: [m, `${likeEscape(m)};%`] });
  }
  if (f.status && f.status.length > 0) {
    for (const s of f.status) {
      if (!Number.isInteger(s)) throw new TroveError('QUERY_BAD_FILTER', `status must be integers, not ${s}`, { status: s });
    }
    const statuses = [...new Set(f.status)];
    if (statuses.length === 1) conds.push({ sql: 'r.status = ?', params: statuses, index: 'records_status', indexSql: 'x.status = ?' });
    else if (split) {
      const list = statuses.map(() => '?').join(', ');
      conds.push({ sql: `r.status IN (${list})`, params: statuses, index: 'records_status', indexSql: `x.status IN (${list})` });
    }
    else split = { column: 'status', values: statuses };
  }
  if (f.from || f.to) {
    const range: Condition = { sql: '', params: [], index: 'records_ts', shared: true };
    const parts: string[] = [];
    if (f.from) {
      checkTs('from', f.from);
      parts.push('# >= ?');
      range.params.push(tsKey(f.from + '00000101000000'.slice(f.from.length)));
    }
    if (f.to) {
      checkTs('to', f.to);
      parts.push('# <= ?');
      // Inclusive: `2024` means up to 2024-12-31 23:59:59.
      range.params.push(tsKey(f.to + '00001231235959'.slice(f.to.length)));
    }
    range.sql = parts.join(' AND ').replaceAll('#', SHARED_COLUMNS.ts);
    range.indexSql = `x.ts IS NOT NULL AND ${parts.join(' AND ').replaceAll('#', 'x.ts')}`;
    conds.push(range);
  }
  if (f.text !== undefined && f.text.trim() !== '') {
    const match = toFtsQuery(f.text);
    if (match === '') conds.push({ sql: '0', params: [] });
    else conds.push({ sql: `r.id IN (${textMatch.sql})`, params: Array<string>(textMatch.params).fill(match) });
  }
  return { conds, split, empty: conds.length === 0 && split === null };
}

/** A `records` row (joined with its file) as the browser shows it. */
export function recordSummary(r: CaptureDbRow): RecordSummary {
  return {
    id: r.id,
    type: r.record_type,
    recordId: r.record_id,
    url: r.target_uri,
    ts: r.ts,
    date: dateFromKey(r.date, r.ts),
    mime: r.mime,
    status: r.status,
    method: r.method,
    length: r.length,
    contentLength: r.content_length,
    payloadDigest: digestFromKey(r.payload_digest),
    title: r.title,
    page: r.page === 1,
    concurrentTo: r.concurrent_to,
    refersTo: r.refers_to,
    refersToUri: r.refers_to_uri,
    refersToDate: r.refers_to_date,
    truncated: r.truncated,
    fileId: r.file_id,
    file: r.file_name,
    offset: r.offset,
  };
}

// CROSS JOIN: SQLite keeps records as the outer loop, so pages are read in records.id order (an inner
// join may start from warc_files and then sort every matching record).
export const SELECT_RECORD = `SELECT ${RECORD_COLUMNS}, ${FOLD_COLUMNS}, f.path AS file_path, f.name AS file_name FROM ${RECORD_FROM} CROSS JOIN warc_files f ON f.id = r.file_id`;

/** The media type filter of a RecordFilter applied to one media type, as filterSql's SQL would (it lower-cases `f.mime`; LIKE ignores ASCII case). */
function mimeMatches(filter: string, mime: string): boolean {
  const m = filter.trim().toLowerCase();
  return m.endsWith('/') ? mime.startsWith(m) : mime === m || mime.startsWith(`${m};`);
}

/**
 * The condition a folded child of `type` meets, on its capture's row `r`, or null when no such
 * child can match: a child has its type, its type's media type, no status and no page text, and
 * takes everything else a filter names (URL, host, time) from its capture.
 */
export function childClause(f: RecordFilter, type: ChildRecordType, textMatch: TextMatchSql): WhereClause | null {
  const { conds } = filterSql(f, textMatch);
  if (f.type && f.type.length > 0 && !f.type.some((t) => t.toLowerCase() === type)) return null;
  if (f.status && f.status.length > 0) return null;
  if (f.mime && !mimeMatches(f.mime, CHILD_TYPE_MIME.get(type)!)) return null;
  if (f.text !== undefined && f.text.trim() !== '') return null;
  return joinConditions([{ sql: `r.${CHILD_COLUMNS[type].len} IS NOT NULL`, params: [] }, ...conds.filter((c) => c.shared)]);
}

/**
 * A filter over every record, folded children included: `flags` are select-list columns saying
 * which of the records a row stands for match (m_0 the row itself, m_<type> a folded child), `any`
 * the WHERE condition that a row stands for at least one match, and pick the matching records of
 * a row read with both (in id order). `children` is false when no folded child can match, so a
 * caller may keep its faster plans for rows alone.
 */
export interface RecordMatch {
  flags: WhereClause;
  any: WhereClause;
  /** The same as `any`'s sum: how many records a row stands for that match (SQL, params as `flags`). */
  count: WhereClause;
  children: boolean;
  pick(row: FoldedDbRow & Record<string, unknown>): CaptureDbRow[];
}

/** Up to `n` matching records with ids past `after`, from rows read in id order: expanded only as far as the page needs. */
export function pickPage(rows: readonly (FoldedDbRow & Record<string, unknown>)[], match: RecordMatch, after: number, n: number): CaptureDbRow[] {
  const out: CaptureDbRow[] = [];
  for (const row of rows) {
    for (const r of match.pick(row)) {
      if (r.id <= after) continue;
      out.push(r);
      if (out.length === n) return out;
    }
  }
  return out;
}

export function recordMatch(f: RecordFilter, textMatch: TextMatchSql): RecordMatch {
  const own = filterClause(f, textMatch);
  const kids = CHILD_TYPES.map((type) => ({ type, where: childClause(f, type, textMatch) })).filter((k): k is { type: ChildRecordType; where: WhereClause } => k.where !== null);
  const arms = [{ name: 'm_0', where: own }, ...kids.map((k) => ({ name: `m_${k.type}`, where: k.where }))];
  const live = new Set(kids.map((k) => k.type));
  return {
    flags: { sql: arms.map((a) => `COALESCE((${a.where.sql}), 0) AS ${a.name}`).join(', '), params: arms.flatMap((a) => a.where.params) },
    any: { sql: `(${arms.map((a) => `(${a.where.sql})`).join(' OR ')})`, params: arms.flatMap((a) => a.where.params) },
    count: { sql: arms.map((a) => `COALESCE((${a.where.sql}), 0)`).join(' + '), params: arms.flatMap((a) => a.where.params) },
    children: kids.length > 0,
    pick(row) {
      const out: CaptureDbRow[] = row.m_0 ? [ownRecord(row)] : [];
      for (const c of children(row)) if (live.has(c.record_type as ChildRecordType) && row[`m_${c.record_type}`]) out.push(c);
      return out;
    },
  };
}

/**
 * The ids a condition's index walk yields, as an `r.id IN (…)` clause: the full rows the index
 * holds and, for a condition on a shared column, the compact rows of those rows (each within
 * COMPACT_WINDOW ids after its parent, read by rowid range).
 */
export function indexWalk(c: Condition): WhereClause {
  const rows = `SELECT x.id FROM records x INDEXED BY ${c.index} WHERE ${c.indexSql}`;
  if (!c.shared) return { sql: `r.id IN (${rows})`, params: c.params };
  const children = `SELECT k.id FROM records x INDEXED BY ${c.index}
    JOIN records k ON k.id > x.id AND k.id <= x.id + ${COMPACT_WINDOW} AND k.parent_id = x.id WHERE ${c.indexSql}`;
  return { sql: `r.id IN (${rows} UNION ALL ${children})`, params: [...c.params, ...c.params] };
}

/** The same summary from a capture-index row. */
export function summaryOfCapture(c: CaptureRow): RecordSummary {
  return {
    id: c.id,
    type: c.recordType,
    recordId: c.recordId,
    url: c.targetUri,
    ts: c.ts,
    date: c.date,
    mime: c.mime,
    status: c.status,
    method: c.method,
    length: c.length,
    contentLength: c.contentLength,
    payloadDigest: c.payloadDigest,
    title: c.title,
    page: c.page,
    concurrentTo: c.concurrentTo,
    refersTo: c.refersTo,
    refersToUri: c.refersToUri,
    refersToDate: c.refersToDate,
    truncated: c.truncated,
    fileId: c.fileId,
    file: c.fileName,
    offset: c.offset,
  };
}
