/**
 * Turning a RecordFilter into SQL over `records`. Every condition is on an indexed column or a
 * range of one (URL filters become SURT-key ranges over `records_urlkey_ts`), and pages are cut
 * by keyset (`id > after`), never OFFSET, so page 1,000 costs what page 1 costs.
 */
import { TroveError } from '../errors.ts';
import { surtKey } from '../scope/surt.ts';
import { toFtsQuery } from './capture-text-search.ts';
import type { CaptureDbRow } from './capture-statements.ts';
import type { CaptureRow } from './capture-index.ts';
import type { RecordFilter, RecordSummary } from './archive-types.ts';

export interface WhereClause {
  sql: string;
  params: (string | number)[];
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
export function filterClause(f: RecordFilter): WhereClause {
  const parts: string[] = [];
  const params: (string | number)[] = [];
  if (f.type && f.type.length > 0) {
    parts.push(`r.record_type IN (${f.type.map(() => '?').join(', ')})`);
    params.push(...f.type.map((t) => t.toLowerCase()));
  }
  if (f.url) {
    parts.push('r.urlkey = ?');
    params.push(surtKey(withScheme(f.url.trim())));
  }
  if (f.urlPrefix) {
    const key = surtKey(withScheme(f.urlPrefix.trim()));
    parts.push('r.urlkey >= ? AND r.urlkey < ?');
    params.push(key, prefixEnd(key));
  }
  if (f.host) {
    const h = surtHost(f.host.trim().toLowerCase());
    // `com,example)` and `com,example:8080)`: the host on any port.
    parts.push('((r.urlkey >= ? AND r.urlkey < ?) OR (r.urlkey >= ? AND r.urlkey < ?))');
    params.push(`${h})`, prefixEnd(`${h})`), `${h}:`, prefixEnd(`${h}:`));
  }
  if (f.mime) {
    const m = f.mime.trim().toLowerCase();
    if (m.endsWith('/')) {
      parts.push(`r.mime LIKE ? ESCAPE '\\'`);
      params.push(`${likeEscape(m)}%`);
    } else {
      parts.push(`(r.mime = ? OR r.mime LIKE ? ESCAPE '\\')`);
      params.push(m, `${likeEscape(m)};%`);
    }
  }
  if (f.status && f.status.length > 0) {
    for (const s of f.status) {
      if (!Number.isInteger(s)) throw new TroveError('QUERY_BAD_FILTER', `status must be integers, not ${s}`, { status: s });
    }
    parts.push(`r.status IN (${f.status.map(() => '?').join(', ')})`);
    params.push(...f.status);
  }
  if (f.from) {
    checkTs('from', f.from);
    parts.push('r.ts >= ?');
    params.push(f.from + '00000101000000'.slice(f.from.length));
  }
  if (f.to) {
    checkTs('to', f.to);
    parts.push('r.ts <= ?');
    // Inclusive: `2024` means up to the end of 2024 (day 31 is safe: ts never has day 32).
    params.push(f.to + '99123123595999'.slice(f.to.length, 14));
  }
  if (f.text !== undefined && f.text.trim() !== '') {
    const match = toFtsQuery(f.text);
    if (match === '') {
      parts.push('0');
    } else {
      parts.push('r.id IN (SELECT rowid FROM page_text WHERE page_text MATCH ?)');
      params.push(match);
    }
  }
  return { sql: parts.length > 0 ? parts.join(' AND ') : '1', params };
}

/** A `records` row (joined with its file) as the browser shows it. */
export function recordSummary(r: CaptureDbRow): RecordSummary {
  return {
    id: r.id,
    type: r.record_type,
    recordId: r.record_id,
    url: r.target_uri,
    ts: r.ts,
    date: r.date,
    mime: r.mime,
    status: r.status,
    method: r.method,
    length: r.length,
    contentLength: r.content_length,
    payloadDigest: r.payload_digest,
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

export const SELECT_RECORD = 'SELECT r.*, f.path AS file_path, f.name AS file_name FROM records r JOIN warc_files f ON f.id = r.file_id';

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
