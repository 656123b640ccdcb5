/**
 * The capture-index rows for one written record group: one row per WARC record (response or
 * revisit, request, metadata) with the SURT key, timestamp, MIME type, status and digests the
 * browser, replay and exports read. Pure: the caller commits them with the frontier outcome.
 */
import type { RecordRow } from '../archive/capture-index.ts';
import type { FetchResult } from '../fetch/fetcher.ts';
import { surtKey } from '../scope/surt.ts';
import type { WrittenRecord } from '../warc/warc-writer.ts';
import type { CrawlContext } from './crawl-context.ts';
import type { RevisitOf } from './capture-records.ts';

export function headerValue(headers: [string, string][], name: string): string | null {
  const n = name.toLowerCase();
  for (const [k, v] of headers) if (k.toLowerCase() === n) return v;
  return null;
}

export function mimeOf(headers: [string, string][]): string | null {
  const ct = headerValue(headers, 'content-type');
  return ct ? ct.split(';')[0]!.trim().toLowerCase() : null;
}

function ts14(d: Date): string {
  return d.toISOString().replace(/[-:TZ.]/g, '').slice(0, 14);
}

export function captureRows(
  ctx: Pick<CrawlContext, 'fileIds'>,
  url: string,
  date: Date,
  f: FetchResult,
  written: WrittenRecord[],
  title: string | null,
  revisitOf: RevisitOf | null,
  page = false,
): RecordRow[] {
  const key = surtKey(url);
  const t = ts14(date);
  const dateStr = date.toISOString();
  const responseId = written.find((w) => w.type === 'response' || w.type === 'revisit')?.recordId ?? null;
  return written.map((w): RecordRow => {
    const isResp = w.type === 'response' || w.type === 'revisit';
    return {
      fileId: ctx.fileIds.get(w.filename) ?? 0,
      offset: w.offset,
      length: w.length,
      recordType: w.type,
      recordId: w.recordId,
      targetUri: url,
      urlkey: key,
      ts: t,
      date: dateStr,
      mime: isResp ? mimeOf(f.headers) : w.type === 'metadata' ? 'application/warc-fields' : 'application/http; msgtype=request',
      status: isResp ? f.status : null,
      payloadDigest: isResp ? f.payloadDigest : null,
      refersTo: w.type === 'revisit' ? (revisitOf?.recordId ?? null) : null,
      refersToUri: w.type === 'revisit' ? (revisitOf?.targetUri ?? null) : null,
      refersToDate: w.type === 'revisit' ? (revisitOf?.date ?? null) : null,
      concurrentTo: isResp ? null : responseId,
      method: w.type === 'request' ? 'GET' : null,
      contentLength: isResp ? (f.entity?.size ?? 0) : null,
      truncated: isResp ? f.truncated : null,
      title: isResp ? title : null,
      // A page is an HTML 200 response, as the importer counts them (a revisit is not a new page).
      page: page && w.type === 'response',
    };
  });
}

/**
 * A per-host override of --per-host, applied to the host's queue before the first of its URIs
 * gets a second slot (processUri runs this synchronously after the claim, before any await, so
 * the crawl loop's next claim already sees it). Host queues only: an elfhash queue mixes hosts.
 */
