/**
 * CDXJ index of a WARC/ARC file, as pywb and `warcio cdx-index` build it: one line per
 * response, revisit, resource and metadata record (not warcinfo, request, or metadata/resource
 * holding `application/warc-fields`), keyed by python-surt; a non-GET capture is keyed with
 * `__wb_method=…` and its request body, taken from the request record next to it.
 *
 * Where pywb and warcio.js disagree, the choice made here:
 * - status is given for revisits too (warcio.js, cdxj-indexer; old pywb wrote `-`);
 * - digest drops only a `sha1:` label (pywb; warcio.js drops any label, losing `sha-256:`);
 * - mime is cut before `;` for every record type, and is `unk` for an HTTP message with no
 *   Content-Type (pywb);
 * - a truncated WARC-Date (`2019-08-15T01:02`) is padded to 14 digits;
 * - records with no WARC-Target-URI or date are left out (warcio.js writes `undefined` keys);
 * - ARC files are indexed (warcio.js cannot read them); a record with no payload digest (ARC,
 *   some resources) gets a computed sha1.
 *
 * Fast by reading little: only the HTTP head of a block is looked at (a view, not a copy), the
 * rest is skipped without copying (in an uncompressed file, without reading), and nothing is
 * hashed unless a record lacks WARC-Payload-Digest.
 */
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import { isTroveError } from '../errors.ts';
import { surtKey } from '../scope/surt.ts';
import { base32 } from '../formats/digest.ts';
import { fieldValue } from '../formats/http-fields.ts';
import { mediaType } from '../formats/media-type.ts';
import { parseHttpHead } from '../formats/http-head.ts';
import { blockIsHttp } from '../warc/http-block.ts';
import type { HttpHead } from '../formats/http-head.ts';
import type { FileRange } from '../warc/file-range.ts';
import type { WarningHandler } from '../warc/read-errors.ts';
import { openArchiveFile } from '../warc/read-records.ts';
import type { WarcRecord, WarcRecordHead } from '../warc/read-record.ts';
import { timestamp14 } from './archive-warc-date.ts';
import type { CdxjEntry } from './cdxj.ts';
import { keyQuery, postQuery } from './cdxj-post-query.ts';

export interface IndexOptions {
  /** `filename` in each line (default: the file's base name). */
  filename?: string;
  onWarning?: WarningHandler;
  /** Index only these bytes of `file`, as a file of their own (a WARC stored in a WACZ); offsets are within them. */
  range?: FileRange;
}

/** Bytes of a block read to find its HTTP head. */
const HEAD_BYTES = 64 << 10;
/** Bytes of a request body read to build its key. */
const BODY_BYTES = 64 << 10;

/** What the indexer keeps of a record until the next one has been read. */
interface Seen {
  record: WarcRecordHead;
  http: HttpHead | null;
  /** Payload digest computed here (the record had none). */
  digest?: string;
  /** Request records: the query built from a non-GET body. */
  method?: string;
  body?: string;
}

/**
 * The CDXJ entries of one file, in file order (sort the formatted lines for a CDXJ file). Reading
 * stops with the reader's WarcReadError at a broken point; entries before it have been yielded.
 */
export async function* indexFile(file: string, opts: IndexOptions = {}): AsyncGenerator<CdxjEntry> {
  const filename = opts.filename ?? path.basename(file);
  // A record waits here until the next one has been read: only then is its gzip length final,
  // and only then is it known whether a request record next to it gives it a POST key.
  let pending: { seen: Seen; req: Seen | null; paired: boolean } | null = null;
  const release = (): CdxjEntry | null => {
    const p = pending;
    pending = null;
    return p ? entryOf(p.seen, p.req, filename) : null;
  };
  const records = openArchiveFile(file, { onWarning: opts.onWarning, ...(opts.range ? { range: opts.range } : {}) })[Symbol.asyncIterator]();
  try {
    for (;;) {
      let seen: Seen | null;
      try {
        const next = await records.next();
        seen = next.done ? null : await look(next.value);
      } catch (err) {
        // The file breaks off after the waiting record: that record is whole, so it is indexed.
        const offset = isTroveError(err) ? err.details.offset : undefined;
        if (pending && typeof offset === 'number' && offset > pending.seen.record.offset) {
          const e = release();
          if (e) yield e;
        }
        throw err;
      }
      if (!seen) break;
      if (pending && !pending.paired && pairs(pending.seen, seen)) {
        if (seen.record.type === 'request') {
          pending.req = seen;
          const e = release();
          if (e) yield e;
        } else {
          pending = { seen, req: pending.seen, paired: true };
        }
        continue;
      }
      const e = release();
      if (e) yield e;
      pending = { seen, req: null, paired: false };
    }
    const e = release();
    if (e) yield e;
  } finally {
    await records.return?.();
  }
}

const INDEXED = new Set(['response', 'revisit', 'resource', 'metadata']);

/** Request and response (or revisit) for the same URL, next to each other, pair up (pywb, warcio). */
function pairs(a: Seen, b: Seen): boolean {
  if (a.record.targetUri !== b.record.targetUri) return false;
  const t = [a.record.type, b.record.type];
  return (t[0] === 'request' && (t[1] === 'response' || t[1] === 'revisit')) || (t[1] === 'request' && (t[0] === 'response' || t[0] === 'revisit'));
}

/** Read what the index needs from a record: its HTTP head, a request's body, a missing digest. */
async function look(record: WarcRecord): Promise<Seen> {
  const seen: Seen = { record, http: null };
  const type = record.type;
  const httpish = blockIsHttp(record);
  if (type === 'request') {
    if (!httpish) return seen;
    const { bytes, truncated } = await record.readBlock(Math.min(record.contentLength, HEAD_BYTES + BODY_BYTES));
    seen.http = parseHttpHead(bytes, { blockEnd: !truncated });
    const method = seen.http?.method;
    if (method && method.toUpperCase() !== 'GET') {
      seen.method = method.toUpperCase();
      seen.body = postQuery(fieldValue(seen.http!.headers, 'content-type'), bytes.subarray(seen.http!.headLength));
    }
    return seen;
  }
  if (!INDEXED.has(type) || !record.targetUri) return seen;
  let hash: Hash | null = null;
  const needDigest = record.get('WARC-Payload-Digest') === null && type !== 'revisit' && !blockDigestIsPayload(record);
  if (httpish) {
    const { bytes, truncated } = await record.readBlock(Math.min(record.contentLength, HEAD_BYTES));
    seen.http = parseHttpHead(bytes, { blockEnd: !truncated });
    if (needDigest) {
      hash = createHash('sha1').update(bytes.subarray(seen.http?.headLength ?? 0));
      if (truncated) for await (const chunk of record.block()) hash.update(chunk);
    }
  } else if (needDigest) {
    hash = createHash('sha1');
    for await (const chunk of record.block()) hash.update(chunk);
  }
  if (hash) seen.digest = base32(hash.digest());
  return seen;
}

/** When the block is not an HTTP message it is the payload: a sha1 block digest will do. */
function blockDigestIsPayload(r: WarcRecordHead): boolean {
  return r.type !== 'revisit' && !blockIsHttp(r) && /^sha-?1:/i.test(r.get('WARC-Block-Digest') ?? '');
}

function entryOf(main: Seen, req: Seen | null, filename: string): CdxjEntry | null {
  const r = main.record;
  if (!INDEXED.has(r.type) || !r.targetUri) return null;
  const ct = r.get('Content-Type');
  if ((r.type === 'metadata' || r.type === 'resource') && mediaType(ct) === 'application/warc-fields') return null;
  const timestamp = timestamp14(r.date);
  if (!timestamp || !(r.length > 0)) return null;

  let mime: string | undefined;
  if (r.type === 'revisit') mime = 'warc/revisit';
  else if (r.format === 'arc') mime = r.get('WARC-Identified-Payload-Type') ?? undefined;
  else if (main.http) mime = mediaType(fieldValue(main.http.headers, 'content-type')) ?? 'unk';
  else mime = mediaType(ct) ?? undefined;

  const status = main.http?.status !== undefined && (r.type === 'response' || r.type === 'revisit') ? String(main.http.status) : undefined;
  const payloadDigest = r.get('WARC-Payload-Digest') ?? (blockDigestIsPayload(r) ? r.get('WARC-Block-Digest') : null);
  const digest = payloadDigest !== null ? payloadDigest.replace(/^sha-?1:/i, '') : main.digest;

  const e: CdxjEntry = { urlkey: '', timestamp, url: r.targetUri, length: r.length, offset: r.offset, filename };
  if (mime !== undefined) e.mime = mime;
  if (status !== undefined) e.status = status;
  if (digest !== undefined) e.digest = digest;
  if (req?.method) {
    e.method = req.method;
    e.requestBody = req.body ?? '';
    e.urlkey = surtKey(r.targetUri, { method: req.method, postQuery: keyQuery(e.requestBody) });
  } else {
    e.urlkey = surtKey(r.targetUri);
  }
  return e;
}
