/**
 * Reading what a record carries: its HTTP head (for response, request and revisit records) and
 * its payload, in one pass over the block, with caps. The stored bytes are never changed; the
 * payload is de-chunked and content-decoded only in the copy handed to the caller (replay, the
 * record detail view, page text at import).
 */
import { decodeBody } from '../extract/decode-body.ts';
import { dechunk } from '../formats/chunked-coding.ts';
import { listFieldValue } from '../formats/http-fields.ts';
import { isChunked, parseHttpHead } from '../formats/http-head.ts';
import type { HttpHead } from '../formats/http-head.ts';
import type { WarcRecord } from '../warc/read-record.ts';

/** An HTTP head larger than this is not looked for (real ones are a few KB). */
const MAX_HTTP_HEAD = 256 << 10;

/** Record types whose block may start with an HTTP message. */
const HTTP_TYPES = new Set(['response', 'request', 'revisit']);

export interface StoredPayload {
  /** The HTTP head at the start of the block, or null (resource, metadata, dns:, or no head). */
  http: HttpHead | null;
  /** The payload as stored (after the HTTP head; the whole block when there is none), up to the cap. */
  stored: Buffer;
  /** True when the block held more than was read. */
  cut: boolean;
}

/**
 * Read a record's HTTP head and up to `payloadCap` bytes of its payload; 0 reads the head only.
 * `payloadCap` may be a function of the head, so a caller can decide from the status and
 * Content-Type whether the body is worth reading (a record's block can be read only once while
 * iterating a file). Copies what it keeps: the reader's chunks are views that do not survive
 * the next read.
 */
export async function readStoredPayload(
  record: WarcRecord,
  payloadCap: number | ((http: HttpHead | null) => number),
): Promise<StoredPayload> {
  const wantsHttp = HTTP_TYPES.has(record.type) && !/^text\/dns/i.test(record.get('Content-Type') ?? '');
  const capFor = (h: HttpHead | null) => Math.max(0, typeof payloadCap === 'number' ? payloadCap : payloadCap(h));
  let kept: Buffer[] = [];
  let have = 0; // bytes in `kept`
  let http: HttpHead | null = null;
  let skip = 0; // bytes of the HTTP head at the start of `kept`
  let maxPayload = -1;
  let ended = false;
  const it = record.block()[Symbol.asyncIterator]();
  try {
    // The head: parse it from the reader's view when it fits in the first chunk (the usual
    // case) and copy only what is kept; gather chunks only for a head split across them.
    while (wantsHttp && have < MAX_HTTP_HEAD) {
      const next = await it.next();
      if (next.done) {
        ended = true;
        break;
      }
      const joined = have === 0 ? next.value : Buffer.concat([...kept, next.value]);
      if (!looksLikeHttpStart(joined.subarray(0, 16).toString('latin1'), joined.length)) {
        kept = [Buffer.from(joined)];
        have = joined.length;
        break;
      }
      http = parseHttpHead(joined);
      if (http) {
        skip = http.headLength;
        maxPayload = capFor(http);
        const keep = joined.subarray(0, Math.min(joined.length, skip + maxPayload + 1));
        kept = [Buffer.from(keep)];
        have = keep.length;
        break;
      }
      kept = [Buffer.from(joined)];
      have = joined.length;
    }
    if (maxPayload < 0) maxPayload = capFor(http);
    // The payload: up to one byte past the cap, which tells whether it was cut.
    while (!ended && have - skip <= maxPayload) {
      const next = await it.next();
      if (next.done) {
        ended = true;
        break;
      }
      const take = Math.min(next.value.length, skip + maxPayload + 1 - have);
      kept.push(Buffer.from(next.value.subarray(0, take)));
      have += take;
    }
  } finally {
    await it.return?.();
  }
  const all = kept.length === 1 ? kept[0]! : Buffer.concat(kept);
  const end = Math.min(all.length, skip + maxPayload);
  return { http, stored: all.subarray(skip, end), cut: all.length > end };
}

/** Could these first bytes begin a status or request line? Early out for non-HTTP blocks. */
function looksLikeHttpStart(first: string, have: number): boolean {
  if (first.startsWith('HTTP/')) return true;
  if (have < 5 && 'HTTP/'.startsWith(first)) return true;
  return /^[A-Z]+ /i.test(first) || (have < 16 && /^[A-Z]+$/i.test(first));
}

export interface DecodedPayload {
  body: Buffer;
  truncated: boolean;
  /** De-chunking or decoding trouble; `body` is what could be recovered. */
  note?: string;
}

/**
 * Undo the transfer and content codings of a stored payload, using the head that describes the
 * stored bytes (for a revisit, the original's head). Capped at `maxBytes` of output.
 */
export function decodePayload(stored: Buffer, http: HttpHead | null, maxBytes: number, storedCut = false): DecodedPayload {
  let data = stored;
  let note: string | undefined;
  if (http && isChunked(http)) {
    const d = dechunk(stored);
    data = d.body;
    if (!d.complete && !storedCut && d.body !== stored) note = 'chunked body ends without the last chunk';
  }
  const encoding = http ? (listFieldValue(http.headers, 'content-encoding') ?? undefined) : undefined;
  const decoded = decodeBody(data, encoding, maxBytes);
  // A payload cut by our own read cap always ends mid-stream; that is not the archive's fault.
  if (decoded.error !== undefined && !storedCut) note ??= decoded.error;
  return { body: decoded.body, truncated: decoded.truncated || storedCut, ...(note !== undefined ? { note } : {}) };
}
