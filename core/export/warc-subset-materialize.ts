/**
 * A revisit whose original is not in a WARC subset, turned into a full response so the subset
 * stands alone: the revisit's capture (its URL, date, record id, HTTP headers) with the
 * original's payload.
 *
 * Fields of the new record, in the revisit's own order:
 * - WARC-Type `response`; WARC-Record-ID, WARC-Date, WARC-Target-URI, WARC-IP-Address,
 *   WARC-Concurrent-To and any other field of the revisit kept as they are. The record id is
 *   kept on purpose: it is the same capture, and the request/metadata records that name it in
 *   WARC-Concurrent-To are copied byte for byte and stay valid.
 * - WARC-Payload-Digest kept (for identical-payload revisits it is the original's digest by
 *   definition); the original's when the revisit has none (server-not-modified).
 * - WARC-Profile, WARC-Refers-To, WARC-Refers-To-Target-URI, WARC-Refers-To-Date dropped: the
 *   record is no longer a revisit (WARC 1.1 defines the WARC-Refers-To* fields for revisits)
 *   and the subset does not hold the record they name.
 * - WARC-Truncated: the original's, when its payload was cut.
 * - WARC-Warcinfo-ID: the subset's warcinfo; Content-Type `application/http; msgtype=response`;
 *   WARC-Block-Digest (sha1, base32) and Content-Length of the new block.
 *
 * The block is the revisit's HTTP head (status line and headers exactly as recorded) then the
 * original's stored payload (still content-encoded, chunked framing as stored). When the revisit
 * has no usable head (none, or `304 Not Modified`), or its head and the original's disagree on
 * chunked transfer coding (the stored bytes would not match the head), the original's head is
 * used instead, as replay does.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Archive } from '../archive/archive-dir.ts';
import type { CaptureRow } from '../archive/capture-index.ts';
import { base32 } from '../formats/digest.ts';
import { isChunked, parseHttpHead } from '../formats/http-head.ts';
import type { HttpHead } from '../formats/http-head.ts';
import { buildRecordHeader } from '../warc/record-header.ts';
import { readRecordAt } from '../warc/read-records.ts';
import type { WarcRecord } from '../warc/read-record.ts';
import type { BlockSource, RecordBytes } from '../warc/write-record.ts';
import type { RecordDbRow } from './warc-subset-select.ts';

/** An HTTP head is looked for in this many first bytes of a block. */
const MAX_HEAD = 256 << 10;
/** Payloads up to this size are read once, into memory; larger ones are read twice (digest, then copy). */
const IN_MEMORY = 8 << 20;
const DROPPED = new Set([
  'warc-type',
  'warc-profile',
  'warc-refers-to',
  'warc-refers-to-target-uri',
  'warc-refers-to-date',
  'warc-block-digest',
  'content-length',
  'content-type',
  'warc-warcinfo-id',
  'warc-truncated',
  'warc-filename',
]);

/** The response record for `revisit`, or null when neither record has an HTTP head to build it from. */
export async function materializeRevisit(archive: Archive, revisit: RecordDbRow, original: CaptureRow, warcinfoId: string): Promise<RecordBytes | null> {
  const rev = await readRecordAt(archive.resolveFile({ filePath: revisit.file_path }), revisit.offset, revisit.length);
  const orig = await readRecordAt(archive.resolveFile(original), original.offset, original.length);
  const revBlock = await rev.readBlock(MAX_HEAD);
  const revHead = parseHttpHead(revBlock.bytes, { blockEnd: !revBlock.truncated });
  const origFirst = await orig.readBlock(MAX_HEAD);
  const origHead = orig.type === 'response' ? parseHttpHead(origFirst.bytes, { blockEnd: !origFirst.truncated }) : null;
  const origHeadLength = origHead?.headLength ?? 0;

  let head: Buffer;
  if (usable(revHead) && (!origHead || isChunked(revHead!) === isChunked(origHead))) head = Buffer.from(revBlock.bytes.subarray(0, revHead!.headLength));
  else if (usable(origHead)) head = Buffer.from(origFirst.bytes.subarray(0, origHeadLength));
  else return null;

  const payloadLength = orig.contentLength - origHeadLength;
  const sha1 = createHash('sha1').update(head);
  let payload: BlockSource;
  if (payloadLength <= IN_MEMORY) {
    const all = (await orig.readBlock(orig.contentLength)).bytes.subarray(origHeadLength);
    sha1.update(all);
    payload = all;
  } else {
    for await (const c of payloadChunks(orig, origHeadLength)) sha1.update(c);
    payload = { length: payloadLength, stream: () => Readable.from(payloadChunks(orig, origHeadLength)) };
  }
  const blockLength = head.length + payloadLength;

  const fields: [string, string][] = [['WARC-Type', 'response']];
  let payloadDigest = false;
  for (const [name, value] of rev.headers) {
    const lower = name.toLowerCase();
    if (DROPPED.has(lower)) continue;
    if (lower === 'warc-payload-digest') payloadDigest = true;
    fields.push([name, value]);
  }
  if (!payloadDigest && original.payloadDigest) fields.push(['WARC-Payload-Digest', original.payloadDigest]);
  fields.push(['WARC-Warcinfo-ID', warcinfoId]);
  const truncated = orig.get('WARC-Truncated');
  if (truncated) fields.push(['WARC-Truncated', truncated]);
  fields.push(
    ['Content-Type', 'application/http; msgtype=response'],
    ['WARC-Block-Digest', `sha1:${base32(sha1.digest())}`],
    ['Content-Length', String(blockLength)],
  );
  return { header: buildRecordHeader(fields), parts: [head, payload], blockLength, check: null };
}

function usable(h: HttpHead | null): boolean {
  return h !== null && h.kind === 'response' && h.status !== 304;
}

/** The record's block after its first `skip` bytes (copies: the reader's chunks are views). */
async function* payloadChunks(record: WarcRecord, skip: number): AsyncGenerator<Buffer> {
  let left = skip;
  for await (const c of record.block()) {
    if (left >= c.length) {
      left -= c.length;
      continue;
    }
    yield Buffer.from(c.subarray(left));
    left = 0;
  }
}
