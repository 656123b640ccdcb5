/**
 * One record in full, for the WARC browser's detail pane: its WARC headers, its HTTP head, a
 * preview of its (decoded) body, the records written with it (WARC-Concurrent-To group) and,
 * for a revisit, the record holding its payload. Reads the record with one positioned read;
 * the preview is capped, so a 2 GB video costs what a small page costs.
 */
import { TroveError } from '../errors.ts';
import { canonicalEncoding, charsetParam, sniffHtmlCharset } from '../extract/html-charset.ts';
import { fieldValue } from '../formats/http-fields.ts';
import type { HttpHead } from '../formats/http-head.ts';
import { readRecordAt } from '../warc/read-records.ts';
import { databaseOf } from './archive-dir.ts';
import type { Archive } from './archive-dir.ts';
import { isHtmlType, mediaType } from '../formats/media-type.ts';
import { decodePayload, readStoredPayload } from './archive-payload.ts';
import { resolveRevisitInChain } from './archive-revisit.ts';
import type { BodyPreview, RecordDetail, RecordSummary } from '../api/archive-types.ts';
import type { CaptureDbRow } from './capture-statements.ts';
import { recordSummary, SELECT_RECORD, summaryOfCapture } from './record-query-sql.ts';
import { expand, FOLD_REACH } from './capture-folds.ts';
import type { FoldedDbRow } from './capture-folds.ts';

/** Text shown at most (decoded bytes). */
export const PREVIEW_TEXT_BYTES = 64 << 10;
/** Images shown up to this size (decoded bytes); larger ones are cut (and marked truncated). */
export const PREVIEW_IMAGE_BYTES = 4 << 20;
/** Head of a binary body, for a hex view. */
export const PREVIEW_BINARY_BYTES = 4 << 10;
/** Stored bytes read for a preview: compressed bodies need more input than they give output. */
const PREVIEW_STORED_FACTOR = 4;
/** Records around this one searched for its WARC-Concurrent-To group (written together). */
const SIBLING_WINDOW = 16;

const TEXT_TYPES = /^(text\/|application\/(json|(x-)?javascript|ecmascript|xml|xhtml\+xml|rss\+xml|atom\+xml|ld\+json|manifest\+json|warc-fields|x-www-form-urlencoded|http)|image\/svg\+xml)|\+json$|\+xml$/;

export async function recordDetail(archive: Archive, id: number): Promise<RecordDetail> {
  // The row, or the capture just before it that this record is folded into (capture-folds.ts).
  const around = databaseOf(archive).prepare(`${SELECT_RECORD} WHERE r.id BETWEEN ? AND ? ORDER BY r.id`).all(id - FOLD_REACH, id) as FoldedDbRow[];
  const dbRow = around.flatMap(expand).find((r) => r.id === id);
  if (!dbRow) throw new TroveError('QUERY_NO_RECORD', `no record with id ${id} in this archive`, { id });
  const row = recordSummary(dbRow);
  const record = await readRecordAt(archive.resolveFile({ path: dbRow.file_path }), dbRow.offset, dbRow.length);

  const image = (row.mime ?? '').startsWith('image/') && row.mime !== 'image/svg+xml';
  const decodedCap = image ? PREVIEW_IMAGE_BYTES : PREVIEW_TEXT_BYTES;
  const p = await readStoredPayload(record, decodedCap * PREVIEW_STORED_FACTOR);
  const http = p.http;
  const decoded = decodePayload(p.stored, http, decodedCap, p.cut);
  const type = mediaType(http ? fieldValue(http.headers, 'content-type') : record.get('Content-Type'));
  const contentType = http ? fieldValue(http.headers, 'content-type') : record.get('Content-Type');

  const detail: RecordDetail = {
    row,
    warcHeaders: record.headers.map(([k, v]) => [k, v] as [string, string]),
    httpHeaders: http ? http.headers.map(([k, v]) => [k, v] as [string, string]) : [],
    httpStatusLine: http ? statusLine(http) : null,
    bodyPreview: preview(decoded.body, decoded.truncated, type, contentType, decoded.note),
    siblings: siblings(archive, dbRow),
  };
  if (row.type === 'revisit') {
    const self = archive.index.byId(id);
    const original = self ? resolveRevisitInChain(archive, self) : null;
    if (original) detail.original = summaryOfCapture(original);
  }
  return detail;
}

function statusLine(h: HttpHead): string {
  if (h.kind === 'request') return `${h.method} ${h.requestTarget} HTTP/${h.httpVersion}`;
  return `HTTP/${h.httpVersion} ${h.status}${h.statusText ? ` ${h.statusText}` : ''}`;
}

function preview(body: Buffer, truncated: boolean, type: string | null, contentType: string | null, note: string | undefined): BodyPreview {
  const base = { bytes: body.length, truncated, ...(note !== undefined ? { note } : {}) };
  if (type?.startsWith('image/') && type !== 'image/svg+xml') return { kind: 'image', base64: body.toString('base64'), ...base };
  if ((type !== null && TEXT_TYPES.test(type)) || (type === null && looksLikeText(body))) {
    return { kind: 'text', text: decodeText(body, type, contentType), ...base };
  }
  return { kind: 'binary', base64: body.subarray(0, PREVIEW_BINARY_BYTES).toString('base64'), ...base };
}

function looksLikeText(body: Buffer): boolean {
  const head = body.subarray(0, 1024);
  if (head.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, Math.max(0, head.length - 4)));
    return true;
  } catch {
    return false;
  }
}

function decodeText(body: Buffer, type: string | null, contentType: string | null): string {
  let encoding = 'utf-8';
  if (isHtmlType(type)) encoding = sniffHtmlCharset(body, contentType ?? undefined).encoding;
  else {
    const label = charsetParam(contentType ?? undefined);
    encoding = (label && canonicalEncoding(label)) || 'utf-8';
  }
  return new TextDecoder(encoding, { fatal: false }).decode(body);
}

/**
 * The other records of this record's WARC-Concurrent-To group. Writers put a group's records
 * next to each other, so the records just around this one are searched (by the file/offset
 * index), plus the group's head record by id wherever it is.
 */
function siblings(archive: Archive, r: CaptureDbRow): RecordSummary[] {
  const group = new Set<string>();
  if (r.record_id) group.add(r.record_id);
  if (r.concurrent_to) group.add(r.concurrent_to);
  if (group.size === 0) return [];
  const near = (
    databaseOf(archive)
      .prepare(`${SELECT_RECORD} WHERE r.file_id = ? AND r.id BETWEEN ? AND ? ORDER BY r.id`)
      .all(r.file_id, r.id - SIBLING_WINDOW - FOLD_REACH, r.id + SIBLING_WINDOW) as FoldedDbRow[]
  )
    .flatMap(expand)
    .filter((o) => o.id >= r.id - SIBLING_WINDOW && o.id <= r.id + SIBLING_WINDOW);
  const out = new Map<number, RecordSummary>();
  for (const o of near) {
    if (o.id === r.id) continue;
    if ((o.record_id && group.has(o.record_id)) || (o.concurrent_to && group.has(o.concurrent_to))) out.set(o.id, recordSummary(o));
  }
  if (r.concurrent_to) {
    const head = archive.index.byRecordId(r.concurrent_to);
    if (head && head.id !== r.id) out.set(head.id, summaryOfCapture(head));
  }
  return [...out.values()].sort((a, b) => a.id - b.id);
}
