/**
 * What a caller hands the writer for one record, and its validation into the writer's form.
 * Everything that can be wrong with a record (bad field, unknown type, missing digest for a
 * streamed block) is found here, before a single byte of its group reaches the file.
 */
import { TroveError } from '../errors.ts';
import { checkFieldName, checkFieldValue, encodeRecordHeader, newRecordId, warcDate } from './record-header.ts';
import { sha1OfParts } from '../formats/digest.ts';
import { blockDigestCheck } from './write-block-digest.ts';
import type { BlockDigestCheck } from './write-block-digest.ts';
import type { BlockSource } from './write-record.ts';

export type RecordType = 'warcinfo' | 'response' | 'request' | 'metadata' | 'revisit' | 'resource' | 'conversion';

const RECORD_TYPES: ReadonlySet<string> = new Set<RecordType>([
  'warcinfo',
  'response',
  'request',
  'metadata',
  'revisit',
  'resource',
  'conversion',
]);

export interface RecordInput {
  type: RecordType;
  targetUri?: string;
  date: Date;
  /** `<urn:uuid:…>`; generated when absent. Give one when other records must point at it (WARC-Concurrent-To). */
  recordId?: string;
  /** e.g. `application/http; msgtype=response`. */
  contentType?: string;
  /** Extra WARC fields, in order: WARC-Concurrent-To, WARC-IP-Address, WARC-Payload-Digest, WARC-Truncated, WARC-Refers-To*, WARC-Profile… */
  fields?: [string, string][];
  /** Concatenated to form the block (e.g. `[responseHead, bodySpool]`). */
  blockParts: BlockSource[];
  /** `sha1:BASE32`. Computed here when every part is a Buffer; required when a part is streamed (and then checked as it streams). */
  blockDigest?: string;
  /**
   * `blockDigest` was computed over these very in-memory bytes (the fetcher hashes a response as
   * it arrives): not hashed again. A streamed part (a spool on disk) is checked all the same.
   */
  blockDigestTrusted?: boolean;
  /**
   * Written without WARC-Warcinfo-ID and WARC-Block-Digest (both optional in WARC 1.1), as
   * Heritrix writes every record: a revisit of its own URL and its request, the bulk of a
   * recrawl (crawl/capture-records.ts says why). Only for a block held in memory.
   */
  short?: boolean;
}

/** Fields the writer sets itself; a caller supplying one would produce a duplicate or a lie. */
const MANAGED = new Set([
  'warc-type',
  'warc-record-id',
  'warc-date',
  'warc-target-uri',
  'content-type',
  'content-length',
  'warc-block-digest',
  'warc-warcinfo-id',
  'warc-filename',
]);

export interface PreparedRecord {
  recordId: string;
  type: RecordType;
  /**
   * Header fields, given the id of the file's warcinfo (null for a warcinfo record itself). Made
   * once per warcinfo id: the same array again for the same id (read it, do not change it).
   */
  fields(warcinfoId: string | null): [string, string][];
  /** The header's bytes for those fields (checked when the record was prepared), made once per warcinfo id. */
  header(warcinfoId: string | null): Buffer;
  parts: BlockSource[];
  blockLength: number;
  check: BlockDigestCheck | null;
}

function bad(message: string, details: Record<string, unknown> = {}): TroveError {
  return new TroveError('WARC_BAD_FIELD', message, details);
}

/** Validates one record input. Throws `WARC_BAD_FIELD`, `WARC_BAD_RECORD` or `WARC_BLOCK_DIGEST_REQUIRED`. */
export function prepareRecord(input: RecordInput, extraLeading: [string, string][] = []): PreparedRecord {
  if (!RECORD_TYPES.has(input.type)) {
    throw new TroveError('WARC_BAD_RECORD', `unknown WARC-Type: ${JSON.stringify(input.type)}`, { type: input.type });
  }
  const date = warcDate(input.date);
  const recordId = input.recordId ?? newRecordId();
  if (input.recordId !== undefined) {
    if (!/^<[^<>\s]+>$/.test(recordId)) throw bad(`WARC-Record-ID must be <uri>: ${JSON.stringify(recordId)}`, { field: 'WARC-Record-ID' });
    checkFieldValue('WARC-Record-ID', recordId);
  }
  if (input.targetUri !== undefined) {
    checkFieldValue('WARC-Target-URI', input.targetUri);
    if (input.targetUri === '') throw bad('WARC-Target-URI is empty', { field: 'WARC-Target-URI' });
  }
  if (input.contentType !== undefined) checkFieldValue('Content-Type', input.contentType);
  for (const [name, value] of extraLeading) {
    checkFieldName(name);
    checkFieldValue(name, value);
  }
  const extra = input.fields ?? [];
  for (const [name, value] of extra) {
    checkFieldName(name);
    checkFieldValue(name, value);
    if (MANAGED.has(name.toLowerCase())) throw bad(`${name} is set by the writer; do not pass it in fields`, { field: name });
  }

  if (!Array.isArray(input.blockParts)) throw new TroveError('WARC_BAD_RECORD', 'blockParts must be an array');
  let blockLength = 0;
  let inMemory = true;
  for (const part of input.blockParts) {
    if (Buffer.isBuffer(part)) {
      blockLength += part.length;
    } else if (part && Number.isSafeInteger(part.length) && part.length >= 0 && typeof part.stream === 'function') {
      blockLength += part.length;
      inMemory = false;
    } else {
      throw new TroveError('WARC_BAD_RECORD', 'a block part must be a Buffer or { length, stream() }');
    }
  }

  let digest = input.blockDigest;
  let check: BlockDigestCheck | null = null;
  const short = input.short === true;
  if (short) {
    // No digest to state or check.
    if (!inMemory || digest !== undefined) throw new TroveError('WARC_BAD_RECORD', 'a short record has its block in memory and no block digest', { recordId });
  } else if (digest === undefined) {
    if (!inMemory) {
      throw new TroveError('WARC_BLOCK_DIGEST_REQUIRED', 'a streamed block needs its precomputed blockDigest', { recordId });
    }
    digest = sha1OfParts(input.blockParts as Buffer[]);
  } else {
    checkFieldValue('WARC-Block-Digest', digest);
    if (!(input.blockDigestTrusted === true && inMemory)) check = blockDigestCheck(digest);
  }
  const blockDigest = short ? null : digest!;

  // Every field below is checked by now (type, id, date and lengths are made here), so the
  // header is encoded without checking them again; only the warcinfo id comes later.
  let madeFor: string | null | undefined;
  let made: [string, string][] = [];
  let madeHeader: Buffer | null = null;
  const fields = (warcinfoId: string | null): [string, string][] => {
    if (madeFor === warcinfoId) return made;
    if (warcinfoId !== null) checkFieldValue('WARC-Warcinfo-ID', warcinfoId);
    const out: [string, string][] = [
      ['WARC-Type', input.type],
      ['WARC-Record-ID', recordId],
      ['WARC-Date', date],
    ];
    if (input.targetUri !== undefined) out.push(['WARC-Target-URI', input.targetUri]);
    out.push(...extraLeading);
    if (warcinfoId !== null && !short) out.push(['WARC-Warcinfo-ID', warcinfoId]);
    out.push(...extra);
    if (input.contentType !== undefined) out.push(['Content-Type', input.contentType]);
    if (blockDigest !== null) out.push(['WARC-Block-Digest', blockDigest]);
    out.push(['Content-Length', String(blockLength)]);
    madeFor = warcinfoId;
    made = out;
    madeHeader = null;
    return out;
  };

  return {
    recordId,
    type: input.type,
    parts: input.blockParts,
    blockLength,
    check,
    fields,
    header(warcinfoId) {
      const f = fields(warcinfoId);
      madeHeader ??= encodeRecordHeader(f);
      return madeHeader;
    },
  };
}
