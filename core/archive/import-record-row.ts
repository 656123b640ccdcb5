/**
 * One WARC record read back (an import, or recovery of a file the index missed) → its
 * capture-index row, built by the same rule as a live crawl's (index-row.ts). Reads the block
 * as far as the row needs: the HTTP head; for HTML 200 responses the page's title and visible
 * text (for the page list and search); for requests the body, as a POST lookup key.
 */
import { fieldValue } from '../formats/http-fields.ts';
import type { HttpHead } from '../formats/http-head.ts';
import type { WarcRecord } from '../warc/read-record.ts';
import type { RecordRow } from './capture-index.ts';
import { headMediaType, isHtmlType } from '../formats/media-type.ts';
import { decodePayload, readStoredPayload } from './archive-payload.ts';
import { keyQuery, postQuery } from './cdxj-post-query.ts';
import { indexRow } from './index-row.ts';

/** Raw (still encoded) HTML read per page for its text. */
const PAGE_RAW_CAP = 4 << 20;
/** Decoded HTML handed to the extractor per page. */
const PAGE_DECODED_CAP = 8 << 20;
/** Text kept per page for search (UTF-16 code units; the extractor keeps at most 1 MiB). */
export const PAGE_TEXT_CAP = 2 << 20;
/** Request bodies read to build POST lookup keys. */
const REQUEST_BODY_CAP = 64 << 10;


export interface ImportedRow {
  row: RecordRow;
  /** Title and text of an HTML page, to store in page_text once the row has an id. */
  text?: { title: string | null; text: string };
  /** For request records: how the response they belong to should be keyed. */
  request?: { responseId: string | null; method: string; postQuery: string | null };
}

/**
 * Build the row for `record` (reading its block as far as needed: the HTTP head, the HTML body
 * of a page up to a cap, the body of a POST request). `offsetBase` is added to record offsets
 * (non-zero when the bytes were read from a copy of a range of another file).
 */
export async function importedRow(record: WarcRecord, fileId: number, offsetBase: number): Promise<ImportedRow> {
  const type = record.type || 'unknown';
  const targetUri = record.targetUri;
  let http: HttpHead | null = null;
  let requestBody: Buffer | null = null;
  let text: ImportedRow['text'];
  let isPage = false;
  if (type === 'response' || type === 'revisit' || type === 'request') {
    // One pass over the block: the head decides whether the body is read at all.
    const web = targetUri !== null && /^https?:/i.test(targetUri);
    const p = await readStoredPayload(record, (h) => {
      if (type === 'request') return REQUEST_BODY_CAP;
      isPage = type === 'response' && web && h !== null && isHtml200(h);
      return isPage ? PAGE_RAW_CAP : 0;
    });
    http = p.http;
    if (type === 'request' && !p.cut) requestBody = p.stored;
    if (isPage && http) text = await pageText(p.stored, p.cut, http, targetUri!);
  }

  const row = indexRow({ record, fileId, offset: offsetBase + record.offset, length: record.length, http, page: isPage ? { title: text?.title ?? null } : null });
  const method = row.method ?? null;
  const out: ImportedRow = { row };
  if (text) out.text = text;
  if (type === 'request' && method) {
    out.request = {
      responseId: row.concurrentTo ?? null,
      method,
      postQuery: method.toUpperCase() === 'GET' || !requestBody?.length ? null : keyQuery(postQuery(http ? fieldValue(http.headers, 'content-type') : null, requestBody)),
    };
  }
  return out;
}

function isHtml200(h: HttpHead): boolean {
  if (h.kind !== 'response' || h.status !== 200) return false;
  return isHtmlType(headMediaType(h.headers));
}

/**
 * Title and visible text of an HTML body (de-chunked, decoded, charset sniffed), capped. The HTML
 * extractor (and parse5) loads at the first page: a crawl imports this module for recovery at
 * resume, which rarely meets a page, and a crawl of nothing but images or scripts never loads it.
 */
async function pageText(stored: Buffer, cut: boolean, http: HttpHead, url: string): Promise<{ title: string | null; text: string }> {
  const { extractHtml } = await import('../extract/html-links.ts');
  const decoded = decodePayload(stored, http, PAGE_DECODED_CAP, cut);
  const x = extractHtml(decoded.body, { baseUrl: url, contentType: fieldValue(http.headers, 'content-type') ?? undefined, maxLinks: 0 });
  return { title: x.title, text: x.text.length > PAGE_TEXT_CAP ? x.text.slice(0, PAGE_TEXT_CAP) : x.text };
}
