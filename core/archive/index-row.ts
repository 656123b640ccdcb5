/**
 * The one rule for a capture-index row: from a WARC record's head (its header fields) and, when
 * its block is an HTTP message, that message's head. A live crawl (crawl/capture-rows.ts, from
 * the fields the writer just wrote), an import and the recovery of an unindexed file
 * (archive/import-record-row.ts, from the fields read back) all build rows here, so a record is
 * indexed the same however it reached the archive.
 */
import { fieldValue } from '../formats/http-fields.ts';
import { mediaType } from '../formats/media-type.ts';
import { surtKey } from '../scope/surt.ts';
import type { HttpHead } from '../formats/http-head.ts';
import type { WarcRecordHead } from '../warc/read-record.ts';
import { unwrapTargetUri } from '../warc/read-headers.ts';
import type { RecordRow } from './capture-index.ts';
import { timestamp14 } from './archive-warc-date.ts';

/** What a row reads of a record's head. */
export type IndexedHead = Pick<WarcRecordHead, 'type' | 'targetUri' | 'date' | 'contentLength' | 'format' | 'get'>;

/** What a row reads of the HTTP head at the start of the block. */
export type IndexedHttp = Pick<HttpHead, 'kind' | 'status' | 'method' | 'headers'>;

export interface IndexRowInput {
  record: IndexedHead;
  fileId: number;
  /** Where the record starts in its file (the gzip member), and its bytes there. */
  offset: number;
  length: number;
  /** The block's HTTP head, or null when the block is not HTTP (or was not read). */
  http: IndexedHttp | null;
  /** Set for an HTML 200 response listed as a page, with its title. */
  page: { title: string | null } | null;
}

/**
 * The media type a row carries: the HTTP Content-Type for responses and revisits (`warc/revisit`
 * for a revisit without one, as pywb's CDX writes it), the Payload-Type an ARC names, else the
 * record's own Content-Type. Parameters cut, lower-cased (formats/media-type.ts).
 */
export function rowMediaType(record: IndexedHead, http: IndexedHttp | null): string | null {
  const httpType = http ? mediaType(fieldValue(http.headers, 'content-type')) : null;
  if (record.type === 'revisit') return httpType ?? 'warc/revisit';
  if (record.type === 'response' && http) return httpType;
  if (record.type === 'response' && record.format === 'arc') return mediaType(record.get('WARC-Identified-Payload-Type'));
  return mediaType(record.get('Content-Type'));
}

export function indexRow(input: IndexRowInput): RecordRow {
  const { record, http } = input;
  const type = record.type || 'unknown';
  const targetUri = record.targetUri;
  const method = http?.kind === 'request' ? (http.method ?? null) : null;
  return {
    fileId: input.fileId,
    offset: input.offset,
    length: input.length,
    recordType: type,
    recordId: record.get('WARC-Record-ID'),
    targetUri,
    urlkey: targetUri ? surtKey(targetUri, method ? { method } : {}) : null,
    ts: timestamp14(record.date),
    date: record.date,
    mime: rowMediaType(record, http),
    status: http?.kind === 'response' ? (http.status ?? null) : null,
    payloadDigest: record.get('WARC-Payload-Digest'),
    refersTo: record.get('WARC-Refers-To'),
    refersToUri: unwrapTargetUri(record.get('WARC-Refers-To-Target-URI')),
    refersToDate: record.get('WARC-Refers-To-Date'),
    concurrentTo: record.get('WARC-Concurrent-To'),
    method,
    contentLength: record.contentLength,
    truncated: record.get('WARC-Truncated'),
    title: input.page?.title ?? null,
    page: input.page !== null,
  };
}
