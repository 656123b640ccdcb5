/**
 * One indexed capture's HTTP response as it was archived: status, headers as stored, and the
 * body de-chunked and content-decoded (capped). For callers that know exactly which record they
 * want (a crawl deduplicating against an earlier crawl's record) and so need no replay
 * resolution: no closest-in-time choice, no fuzzy match, no revisit resolution.
 */
import { decodePayload, readStoredPayload } from './archive-payload.ts';
import type { Archive } from './archive-dir.ts';
import type { CaptureRow } from './capture-index.ts';
import { readRecordAt } from '../warc/read-records.ts';

export interface CapturePayload {
  status: number;
  /** The archived HTTP headers in order, as stored (they describe the stored bytes). */
  headers: [string, string][];
  /** Decoded, at most `maxBytes`. */
  body: Buffer;
  truncated: boolean;
}

/**
 * The response a `response` record holds, or null when the record holds no HTTP response (a
 * resource, a revisit, a block that is not HTTP).
 */
export async function readCapturePayload(archive: Archive, row: CaptureRow, maxBytes: number): Promise<CapturePayload | null> {
  if (row.recordType !== 'response') return null;
  const record = await readRecordAt(archive.resolveFile(row), row.offset, row.length);
  const stored = await readStoredPayload(record, maxBytes);
  if (stored.http?.kind !== 'response') return null;
  const decoded = decodePayload(stored.stored, stored.http, maxBytes, stored.cut);
  return { status: stored.http.status ?? 200, headers: stored.http.headers, body: decoded.body, truncated: decoded.truncated };
}
