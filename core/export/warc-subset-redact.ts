/**
 * `trove export --warc FILE --redact-credentials` (issue 36): a request record whose head holds
 * Cookie, Authorization or Proxy-Authorization values is written with the marker in their place
 * (formats/redact-credentials.ts), its WARC-Block-Digest and Content-Length computed for the new
 * block; every other field is kept as it was, the record id included, so the response that names
 * it in WARC-Concurrent-To still does. A request record without credentials is copied byte for
 * byte by the caller (null here).
 */
import { createHash } from 'node:crypto';
import type { Archive } from '../archive/archive-dir.ts';
import { base32 } from '../formats/digest.ts';
import { credentialHeaders, redactCredentials } from '../formats/redact-credentials.ts';
import { buildRecordHeader } from '../warc/record-header.ts';
import { readRecordAt } from '../warc/read-records.ts';
import type { RecordBytes } from '../warc/write-record.ts';
import type { RecordDbRow } from './warc-subset-select.ts';

/** Request records are small; a larger one (a big POST body) is read whole all the same, up to this. */
const MAX_REQUEST = 64 << 20;
const RECOMPUTED = new Set(['warc-block-digest', 'content-length']);

export async function redactedRequest(archive: Archive, row: RecordDbRow): Promise<RecordBytes | null> {
  return redactedRequestAt(archive.resolveFile({ filePath: row.file_path }), row.offset, row.length);
}

/** The record at `offset` of `file` redacted, when it is a request record holding credentials; else null. */
export async function redactedRequestAt(file: string, offset: number, length: number): Promise<RecordBytes | null> {
  const record = await readRecordAt(file, offset, length);
  if (record.type !== 'request' || record.contentLength > MAX_REQUEST) return null;
  const { bytes } = await record.readBlock(record.contentLength);
  if (credentialHeaders(bytes).length === 0) return null;
  const block = redactCredentials(bytes);
  const fields: [string, string][] = record.headers.filter(([name]) => !RECOMPUTED.has(name.toLowerCase())).map(([n, v]) => [n, v]);
  fields.push(['WARC-Block-Digest', `sha1:${base32(createHash('sha1').update(block).digest())}`], ['Content-Length', String(block.length)]);
  return { header: buildRecordHeader(fields), parts: [block], blockLength: block.length, check: null };
}
