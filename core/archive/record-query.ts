/**
 * What the desktop WARC browser asks of an archive: filtered record lists (keyset-paged), one
 * URL's captures over time, full-text search and the page list. Results are plain data
 * (archive-types.ts). The record detail view (which reads WARC bytes) is in
 * record-query-detail.ts.
 */
import type Database from 'better-sqlite3';
import { surtKey } from '../scope/surt.ts';
import { TroveError } from '../errors.ts';
import { databaseOf } from './archive-dir.ts';
import type { Archive } from './archive-dir.ts';
import type { CaptureDbRow } from './capture-statements.ts';
import type { CaptureSummary, PageList, PageRequest, RecordFilter, RecordPage, SearchHit } from '../api/archive-types.ts';
import { filterClause, filterSql, indexWalk, joinConditions, pickPage, recordMatch, recordSummary, SELECT_RECORD, withScheme } from './record-query-sql.ts';
import type { Condition, WhereClause } from './record-query-sql.ts';
import { RECORD_FROM } from './capture-statements.ts';
import { tsSql } from './capture-ts-key.ts';
import { FOLD_REACH } from './capture-folds.ts';

export const MAX_PAGE_LIMIT = 1000;

// Prepared statements per connection and SQL text; filters combine into a bounded set of shapes.
const statementCache = new WeakMap<Database.Database, Map<string, Database.Statement>>();

function prepared(db: Database.Database, sql: string): Database.Statement {
  let m = statementCache.get(db);
  if (!m) {
    m = new Map();
    statementCache.set(db, m);
  }
  let st = m.get(sql);
  if (!st) {
    if (m.size >= 128) m.clear();
    st = db.prepare(sql);
    m.set(sql, st);
  }
  return st;
}

function checkLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1) throw new TroveError('QUERY_BAD_PAGE', `limit must be a positive integer, not ${limit}`, { limit });
  return Math.min(limit, MAX_PAGE_LIMIT);
}

function checkAfter(after: number | undefined): number {
  if (after === undefined) return 0;
  if (!Number.isInteger(after) || after < 0) throw new TroveError('QUERY_BAD_PAGE', `after must be a record id, not ${after}`, { after });
  return after;
}

/** Matches counted at most, for `total` (an unindexed filter must not scan a whole archive). */
export const TOTAL_CAP = 10_000;
/** A condition matching at most this many records is walked through its index. */
const SPARSE = 5_000;

/**
 * Records matching `filter`, in index order (records.id), `page.limit` at a time. `total` is
 * counted on the first page only (exact when nothing is filtered; otherwise up to TOTAL_CAP,
 * with `totalCapped` when there are more), so paging on stays cheap.
 */
export function queryRecords(archive: Archive, filter: RecordFilter, page: PageRequest): RecordPage {
  const limit = checkLimit(page.limit);
  const after = checkAfter(page.after);
  const f = filterSql(filter, archive.index.textMatchSql());
  const rest = joinConditions(f.conds);
  const match = recordMatch(filter, archive.index.textMatchSql());
  let rows: CaptureDbRow[];
  let access: Access = { from: 'records r', walk: { sql: '1', params: [] } };
  if (match.children) {
    // Folded children may match (capture-folds.ts): rows in id order from just before the cursor,
    // each with flags for the records it stands for. Only a walk of a condition children share
    // with their capture finds their rows (a type or status index holds no folded child).
    access = accessPath(archive, f.conds.filter((c) => c.shared));
    const select = SELECT_RECORD.replace(' FROM ', `, ${match.flags.sql} FROM `).replace('FROM records r', `FROM ${access.from}`);
    const sql = `${select} WHERE r.id > ? AND ${access.walk.sql} AND ${match.any.sql} ORDER BY r.id LIMIT ?`;
    const found = prepared(databaseOf(archive), sql).all(
      ...match.flags.params, after - FOLD_REACH, ...access.walk.params, ...match.any.params, limit + 1 + FOLD_REACH,
    ) as (CaptureDbRow & Record<string, unknown>)[];
    rows = pickPage(found, match, after, limit + 1);
  } else if (f.split) {
    // One walk per value of the list, each already in id order; merge the heads.
    const col = `r.${f.split.column}`;
    const sub = `SELECT * FROM (SELECT r.id FROM ${RECORD_FROM} WHERE r.id > ? AND ${col} = ? AND ${rest.sql} ORDER BY r.id LIMIT ?)`;
    const sql = `${SELECT_RECORD} WHERE r.id IN (SELECT id FROM (${f.split.values.map(() => sub).join(' UNION ALL ')}) ORDER BY id LIMIT ?) ORDER BY r.id`;
    const params = f.split.values.flatMap((v) => [after, v, ...rest.params, limit + 1]);
    rows = prepared(databaseOf(archive), sql).all(...params, limit + 1) as CaptureDbRow[];
  } else {
    access = accessPath(archive, f.conds);
    const sql = `${SELECT_RECORD.replace('FROM records r', `FROM ${access.from}`)} WHERE r.id > ? AND ${access.walk.sql} AND ${rest.sql} ORDER BY r.id LIMIT ?`;
    rows = prepared(databaseOf(archive), sql).all(after, ...access.walk.params, ...rest.params, limit + 1) as CaptureDbRow[];
  }
  const more = rows.length > limit;
  if (more) rows.length = limit;
  const result: RecordPage = { rows: rows.map(recordSummary), next: more ? rows.at(-1)!.id : null };
  if (page.after === undefined) {
    if (!more) result.total = rows.length;
    else if (f.empty) result.total = (prepared(databaseOf(archive), 'SELECT COALESCE(SUM(records), 0) AS n FROM warc_files').get() as { n: number }).n;
    else if (match.children) {
      const from = RECORD_FROM.replace('records r', access.from);
      const n = (
        prepared(
          databaseOf(archive),
          `SELECT COALESCE(SUM(n), 0) AS n FROM (SELECT ${match.count.sql} AS n FROM ${from} WHERE ${access.walk.sql} AND ${match.any.sql} LIMIT ${TOTAL_CAP + 1})`,
        ).get(...match.count.params, ...access.walk.params, ...match.any.params) as { n: number }
      ).n;
      result.total = Math.min(n, TOTAL_CAP);
      if (n > TOTAL_CAP) result.totalCapped = true;
    } else {
      const where = filterClause(filter, archive.index.textMatchSql());
      const from = RECORD_FROM.replace('records r', access.from);
      const n = (
        prepared(databaseOf(archive), `SELECT COUNT(*) AS n FROM (SELECT 1 FROM ${from} WHERE ${access.walk.sql} AND ${where.sql} LIMIT ${TOTAL_CAP + 1})`).get(
          ...access.walk.params,
          ...where.params,
        ) as { n: number }
      ).n;
      result.total = Math.min(n, TOTAL_CAP);
      if (n > TOTAL_CAP) result.totalCapped = true;
    }
  }
  return result;
}

/** How `records r` is read (`from`) and the ids an index walk limits it to (`walk`, else `1`). */
interface Access {
  from: string;
  walk: WhereClause;
}

/**
 * How to read `records` for several indexed conditions. SQLite has no statistics on a fresh
 * archive (ANALYZE of a million rows takes over a second), and guesses badly between, say, a
 * common status and a rare host. So each indexed condition's matches are counted up to SPARSE
 * (full rows the index holds; their compact rows come with them): the sparsest one under that
 * is walked through its index (then sorted by id, cheap for few rows); when every one is dense,
 * records are read in id order and filtered, which finds a page quickly. A lone equality (type,
 * status) is left to SQLite: its index is already in id order within one value, the best walk
 * whatever the density.
 */
function accessPath(archive: Archive, conds: readonly Condition[]): Access {
  const all: Access = { from: 'records r', walk: { sql: '1', params: [] } };
  const indexed = conds.filter((c) => c.index !== undefined);
  if (indexed.length === 0) return all;
  if (indexed.length === 1 && (indexed[0]!.index === 'records_status' || indexed[0]!.index === 'records_type')) return all;
  let best: { c: Condition; n: number } | null = null;
  for (const c of indexed) {
    const n = (prepared(databaseOf(archive), `SELECT COUNT(*) AS n FROM (SELECT 1 FROM records x INDEXED BY ${c.index} WHERE ${c.indexSql} LIMIT ${SPARSE + 1})`).get(...c.params) as { n: number }).n;
    if (n <= SPARSE && (!best || n < best.n)) best = { c, n };
  }
  return best ? { from: 'records r', walk: indexWalk(best.c) } : { from: 'records r NOT INDEXED', walk: all.walk };
}

/** Every capture (response, revisit, resource) of one URL, oldest first; http and https alike. */
export function timeline(archive: Archive, url: string): CaptureSummary[] {
  const out: CaptureSummary[] = [];
  for (const c of archive.index.findCaptures(surtKey(withScheme(url.trim())))) {
    if (c.ts === null) continue;
    out.push({
      id: c.id,
      ts: c.ts,
      url: c.targetUri ?? url,
      type: c.recordType,
      status: c.status,
      mime: c.mime,
      payloadDigest: c.payloadDigest,
      length: c.length,
    });
  }
  return out;
}

// Control characters cannot occur in indexed text, so they mark matches safely until escaping.
const OPEN = '\u0002';
const CLOSE = '\u0003';

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Full-text search over page titles and text, best first (bm25; when many pages match, best of
 * the newest SEARCH_CANDIDATES matches, and each hit says so in `rankedAmong`: capture-index.ts).
 * Each hit's `snippet` is HTML: the text escaped, matches in `<mark>`.
 */
export function searchText(archive: Archive, q: string, limit = 20): SearchHit[] {
  const n = checkLimit(limit);
  return archive.index.searchText(q, n, { mark: [OPEN, CLOSE] }).map((h) => ({
    id: h.recordId,
    url: h.targetUri,
    ts: h.ts,
    title: h.title,
    snippet: escapeHtml(h.snippet).replaceAll(OPEN, '<mark>').replaceAll(CLOSE, '</mark>'),
    rank: h.rank,
    ...(h.rankedAmong !== undefined ? { rankedAmong: h.rankedAmong } : {}),
  }));
}

/** HTML 200 pages with their titles, in index order, keyset-paged by record id. */
export function listPages(archive: Archive, limit: number, after?: number): PageList {
  const n = checkLimit(limit);
  const rows = prepared(
    databaseOf(archive),
    `SELECT id, target_uri, ${tsSql('ts')} AS ts, title, mime FROM records WHERE page = 1 AND id > ? ORDER BY id LIMIT ?`,
  ).all(checkAfter(after), n + 1) as { id: number; target_uri: string | null; ts: string | null; title: string | null; mime: string | null }[];
  const more = rows.length > n;
  if (more) rows.length = n;
  return {
    rows: rows.map((r) => ({ id: r.id, url: r.target_uri ?? '', ts: r.ts ?? '', title: r.title, mime: r.mime })),
    next: more ? rows.at(-1)!.id : null,
  };
}

export type PageSort = 'ts' | 'url' | 'title';
// records.ts, the stored column: a bare `ts` would name the output column (text, which no index orders).
/**
 * Each sort as the Pages view's indexes hold it (storage/migrations.ts, pagesViewOrder), so the
 * first screen walks an index instead of sorting every page: the text sorts case-insensitive, time
 * as stored (a number, which has no case).
 */
const PAGE_ORDER: Record<PageSort, string> = { ts: 'records.ts', url: 'target_uri COLLATE NOCASE', title: "COALESCE(NULLIF(title, ''), target_uri) COLLATE NOCASE" };

/** The Pages view's query for one sort (exported for the test that it walks an index). */
export function sortedPagesSql(sort: PageSort, desc: boolean, where = 'page = 1'): string {
  const dir = desc ? 'DESC' : 'ASC';
  return `SELECT id, target_uri, ${tsSql('ts')} AS ts, title, mime FROM records WHERE ${where} ORDER BY ${PAGE_ORDER[sort]} ${dir}, id ${dir} LIMIT ? OFFSET ?`;
}

/**
 * The Pages view (as ReplayWeb.page's): HTML 200 pages, sorted by time, URL or title (either
 * way), narrowed to those whose title or URL contains `q` (case-insensitive), `limit` at a time
 * from `offset`, with the total matching. Offset paging: a sorted list has no stable keyset.
 */
export function sortedPages(archive: Archive, opts: { sort: PageSort; desc?: boolean; q?: string; limit: number; offset?: number }): PageList & { total: number; offset: number } {
  const n = checkLimit(opts.limit);
  const offset = opts.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0) throw new TroveError('QUERY_BAD_PAGE', `offset must be a whole number, not ${offset}`, { offset });
  const order = PAGE_ORDER[opts.sort];
  if (!order) throw new TroveError('QUERY_BAD_PAGE', `pages sort by ts, url or title, not ${String(opts.sort)}`);
  const q = (opts.q ?? '').trim();
  // LIKE with the pattern characters escaped: the words are matched as typed.
  const where = q ? "page = 1 AND (title LIKE ? ESCAPE '\\' OR target_uri LIKE ? ESCAPE '\\')" : 'page = 1';
  const like = q ? [`%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`] : [];
  const params = q ? [like[0], like[0]] : [];
  const rows = prepared(databaseOf(archive), sortedPagesSql(opts.sort, opts.desc === true, where)).all(
    ...params,
    n,
    offset,
  ) as { id: number; target_uri: string | null; ts: string | null; title: string | null; mime: string | null }[];
  const total = (prepared(databaseOf(archive), `SELECT COUNT(*) AS n FROM records WHERE ${where}`).get(...params) as { n: number }).n;
  return {
    rows: rows.map((r) => ({ id: r.id, url: r.target_uri ?? '', ts: r.ts ?? '', title: r.title, mime: r.mime })),
    next: offset + rows.length < total ? offset + rows.length : null,
    total,
    offset,
  };
}
