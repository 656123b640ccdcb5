/**
 * The WARC records for one fetch, in Heritrix's order: `response` (or `revisit` when the payload
 * duplicates an earlier capture), then `request` and `metadata`, both pointing at the response
 * with WARC-Concurrent-To. Pure: builds record inputs; the writer does the I/O.
 *
 * The response block is the status line, headers and body exactly as received on the wire
 * (content-encoding and any chunked framing kept). WARC-Payload-Digest covers the entity body
 * after transfer decoding (WARC 1.1 §6.2: the payload is the entity-body), which is what replay
 * tools and deduplicating indexes compare.
 */
import type { FetchResult, Spool } from '../fetch/fetcher.ts';
import { newRecordId } from '../warc/record-header.ts';
import { childRecordId } from '../warc/child-record-id.ts';
import type { RecordInput } from '../warc/write-record-input.ts';
import type { BlockSource } from '../warc/write-record.ts';
import type { Outlink } from '../extract/outlink.ts';
import { redactCredentials } from '../formats/redact-credentials.ts';

export const REVISIT_PROFILE_IDENTICAL = 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest';
export const REVISIT_PROFILE_NOT_MODIFIED = 'http://netpreserve.org/warc/1.1/revisit/server-not-modified';

export interface RevisitOf {
  /** WARC-Record-ID of the original, when known (a CDXJ source does not say). */
  recordId: string | null;
  targetUri: string;
  /** WARC-Date of the original. */
  date: string;
  profile: string;
  /** The payload digest to state; the original's for a 304 (the 304 itself has no payload). */
  payloadDigest?: string | null;
}

export interface CaptureGroupInput {
  url: string;
  date: Date;
  fetch: FetchResult;
  revisitOf: RevisitOf | null;
  metadata: { via: string | null; hopsPath: string; fetchTimeMs: number; outlinks: Outlink[]; notes?: string[] } | null;
  /**
   * The body as one Buffer when the caller holds it in memory anyway (a browser capture). A
   * fetch's in-memory spool is used as its pieces without this. Either way the writer then
   * compresses the record in one call instead of streaming it (large bodies stay spooled).
   */
  bodyBuffer?: Buffer | null;
  /** --redact-credentials: the request record gets a marker for Cookie/Authorization values (formats/redact-credentials.ts). */
  redactCredentials?: boolean;
  /** A revisit of the same URL is written alone, without its request record (settings.revisitAlone). */
  revisitAlone?: boolean;
}

/**
 * Whether a capture revisits its own URL (a page unchanged since an earlier crawl: a 304, or the
 * same payload again). Such a revisit is written short (docs/FORMATS.md, "A recrawl's records"):
 * no metadata record, since the links of an unchanged payload are those of the record it
 * revisits (via, hops and fetch time stay in crawl.log), and it and its request record without
 * WARC-Warcinfo-ID and WARC-Block-Digest, as Heritrix writes every record (both fields are
 * optional in WARC 1.1; each record is its own gzip member with its CRC-32, and the closed file
 * gets its SHA-256; the revisit keeps WARC-Payload-Digest and every Refers-To field).
 */
export function revisitsOwnUrl(url: string, revisitOf: RevisitOf | null): boolean {
  return revisitOf !== null && revisitOf.targetUri === url;
}

/** Whether a capture is a revisit of its own URL written alone (--revisit-alone: no request record either). */
export function writtenAlone(url: string, revisitOf: RevisitOf | null, revisitAlone: boolean): boolean {
  return revisitAlone && revisitsOwnUrl(url, revisitOf);
}

export interface CaptureGroup {
  records: RecordInput[];
  responseId: string | null;
}

function spoolBlock(s: Spool): BlockSource {
  return { length: s.size, stream: () => s.stream() };
}

export function buildCaptureGroup(g: CaptureGroupInput): CaptureGroup {
  const f = g.fetch;
  const records: RecordInput[] = [];
  let responseId: string | null = null;

  const short = revisitsOwnUrl(g.url, g.revisitOf);
  if (f.responseHead) {
    responseId = newRecordId();
    const common: [string, string][] = [];
    if (f.remoteAddress) common.push(['WARC-IP-Address', f.remoteAddress]);
    if (g.revisitOf) {
      records.push({
        type: 'revisit',
        targetUri: g.url,
        date: g.date,
        recordId: responseId,
        contentType: 'application/http; msgtype=response',
        fields: [
          ...common,
          ['WARC-Profile', g.revisitOf.profile],
          ...(g.revisitOf.recordId ? ([['WARC-Refers-To', g.revisitOf.recordId]] as [string, string][]) : []),
          ['WARC-Refers-To-Target-URI', g.revisitOf.targetUri],
          ['WARC-Refers-To-Date', g.revisitOf.date],
          ...((g.revisitOf.payloadDigest !== undefined ? g.revisitOf.payloadDigest : f.payloadDigest)
            ? ([['WARC-Payload-Digest', (g.revisitOf.payloadDigest !== undefined ? g.revisitOf.payloadDigest : f.payloadDigest)!]] as [string, string][])
            : []),
        ],
        // A revisit's block is the HTTP headers only; the payload is in the record it refers to.
        blockParts: [f.responseHead],
        ...(short ? { short } : {}),
      });
    } else {
      const fields: [string, string][] = [...common];
      if (f.payloadDigest) fields.push(['WARC-Payload-Digest', f.payloadDigest]);
      if (f.truncated) fields.push(['WARC-Truncated', f.truncated]);
      const parts: BlockSource[] = [f.responseHead];
      if (g.bodyBuffer && g.bodyBuffer.length > 0) parts.push(g.bodyBuffer);
      else if (f.body && f.body.size > 0) {
        // The spool's own pieces, not one Buffer joined from them: that copy of every in-memory
        // body lived as long as its URI, next to the pieces (issue 20).
        const held = f.body.buffers();
        if (held) parts.push(...held);
        else parts.push(spoolBlock(f.body));
      }
      const rec: RecordInput = {
        type: 'response',
        targetUri: g.url,
        date: g.date,
        recordId: responseId,
        contentType: 'application/http; msgtype=response',
        fields,
        blockParts: parts,
      };
      if (f.blockDigest) {
        rec.blockDigest = f.blockDigest;
        // The fetcher hashed exactly these bytes as they arrived (the body held in memory).
        rec.blockDigestTrusted = true;
      }
      records.push(rec);
    }
  }

  if (f.requestHead.length > 0 && !(g.revisitAlone && g.revisitOf)) {
    // Derived from the response's, so the capture index need not store it (child-record-id.ts).
    const requestId = childRecordId(responseId, 'request');
    records.push({
      type: 'request',
      targetUri: g.url,
      date: g.date,
      contentType: 'application/http; msgtype=request',
      ...(requestId ? { recordId: requestId } : {}),
      fields: responseId ? [['WARC-Concurrent-To', responseId]] : [],
      blockParts: [g.redactCredentials ? redactCredentials(f.requestHead) : f.requestHead],
      ...(short && responseId ? { short } : {}),
    });
  }

  if (g.metadata && responseId && !short) records.push(metadataRecord(g.url, g.date, responseId, g.metadata));
  return { records, responseId };
}

/** The metadata record of a capture: via, hops, fetch time and every outlink (Heritrix's fields). */
export function metadataRecord(
  url: string,
  date: Date,
  responseId: string,
  m: { via: string | null; hopsPath: string; fetchTimeMs: number; outlinks: Outlink[]; notes?: string[] },
): RecordInput {
  const lines: string[] = [];
  if (m.via) lines.push(`via: ${m.via}`);
  lines.push(`hopsFromSeed: ${m.hopsPath || '-'}`);
  lines.push(`fetchTimeMs: ${Math.round(m.fetchTimeMs)}`);
  for (const n of m.notes ?? []) lines.push(`note: ${n}`);
  for (const o of m.outlinks) lines.push(`outlink: ${o.url} ${o.hop} ${o.context}`);
  const recordId = childRecordId(responseId, 'metadata');
  return {
    type: 'metadata',
    targetUri: url,
    date,
    ...(recordId ? { recordId } : {}),
    contentType: 'application/warc-fields',
    fields: [['WARC-Concurrent-To', responseId]],
    blockParts: [Buffer.from(lines.map((l) => l.replace(/[\r\n]/g, ' ')).join('\r\n') + '\r\n', 'utf8')],
  };
}
