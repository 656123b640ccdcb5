/**
 * The capture-index rows for one written record group: one row per WARC record (response or
 * revisit, request, metadata), built by the index's one rule (archive/index-row.ts) from the
 * header fields the writer just wrote and the HTTP heads in their blocks — so a crawled record
 * is indexed exactly as it would be if the same file were imported. Pure: the caller commits
 * the rows with the frontier outcome.
 */
import type { RecordRow } from '../archive/capture-index.ts';
import { indexRow, type IndexedHttp } from '../archive/index-row.ts';
import { applyRequest } from '../archive/request-links.ts';
import type { FetchResult } from '../fetch/fetcher.ts';
import { parseHttpHead } from '../formats/http-head.ts';
import { headOfWrittenFields } from '../warc/read-record.ts';
import type { WrittenRecord } from '../warc/warc-writer.ts';
import type { CrawlContext } from './crawl-context.ts';
import type { RevisitOf } from './capture-records.ts';

/**
 * `title` and `page` describe an HTML 200 response (a page, listed with its title), or a
 * revisit of the same URL (a recrawl's unchanged page, a 304 included); a revisit of another
 * URL's payload is not a page. `date` is in the written fields already and kept in the
 * signature for the caller.
 */
export function captureRows(
  ctx: Pick<CrawlContext, 'fileIds'>,
  url: string,
  _date: Date,
  f: FetchResult,
  written: WrittenRecord[],
  title: string | null,
  revisitOf: RevisitOf | null,
  page = false,
): RecordRow[] {
  // Read the heads as an importer reads them from the block; the fetcher's parse is stricter.
  const response = f.responseHead ? parseHttpHead(f.responseHead, { blockEnd: true }) : null;
  const request = f.requestHead.length > 0 ? parseHttpHead(f.requestHead, { blockEnd: true }) : null;
  // A revisit of its own URL (a recrawl's unchanged page) is that page again; one of another URL's
  // payload is not listed (an import of the WARC, which cannot tell, lists neither).
  const sameUrlRevisit = revisitOf !== null && revisitOf.targetUri === url;
  const rows = written.map((w): RecordRow => {
    const record = headOfWrittenFields(w.fields, { offset: w.offset, length: w.length, compressed: w.filename.endsWith('.gz') });
    let http: IndexedHttp | null = null;
    if (w.type === 'response' || w.type === 'revisit') http = response;
    else if (w.type === 'request') http = request;
    return indexRow({
      record,
      fileId: ctx.fileIds.get(w.filename) ?? 0,
      offset: w.offset,
      length: w.length,
      http,
      page: page && (w.type === 'response' || (w.type === 'revisit' && sameUrlRevisit)) ? { title } : null,
    });
  });
  // The response takes its request's method, as an import links them (a crawl sends no bodies).
  const method = request?.kind === 'request' ? request.method : undefined;
  if (method) for (const r of rows) if (r.recordType === 'response' || r.recordType === 'revisit') applyRequest(r, { method, postQuery: null });
  return rows;
}
