/**
 * `trove check`: validate a WARC (or ARC) file the way JWAT and `warcio check` do, in one pass
 * with flat memory: record structure and Content-Length (through the reader), mandatory and
 * non-repeatable fields and their syntax, block and payload digests in any encoding, gzip member
 * layout, and WARC-Concurrent-To / WARC-Refers-To targets present in the same file.
 *
 * Levels: an `error` makes the file invalid; a `warning` is a defect readers cope with
 * (a missing record separator, a target record kept in another file, wget's `<uri>`).
 */
import { isCancelled, isTroveError, throwIfCancelled } from '../errors.ts';
import { credentialHeaders } from '../formats/redact-credentials.ts';
import { RecordDigests } from './check-digests.ts';
import { checkRecordFields } from './check-fields.ts';
import type { WarcWarningCode } from './read-errors.ts';
import type { FileRange } from './file-range.ts';
import { openArchiveFile } from './read-records.ts';
import { RecordIdSet } from './record-id-set.ts';

export interface CheckProblem {
  file: string;
  /** Byte offset of the record (or of the defect) in the file. */
  offset: number;
  level: 'error' | 'warning';
  code: string;
  message: string;
}

export interface CheckResult {
  file: string;
  records: number;
  errors: number;
  warnings: number;
  /** The first `maxProblems` problems (all of them are passed to `onProblem`). */
  problems: CheckProblem[];
  valid: boolean;
  /**
   * Chunked HTTP responses whose WARC-Payload-Digest matched, by what was hashed: the de-chunked
   * entity (WARC 1.1 §6.2; Trove, Heritrix) or the bytes as transferred (wget, warcprox, warcio).
   */
  chunkedDigests: { entity: number; transfer: number };
  /** Request records whose Cookie, Authorization or Proxy-Authorization holds a value (not redacted). */
  credentials: number;
}

export interface CheckOptions {
  /** Called for every problem as it is found. */
  onProblem?: (p: CheckProblem) => void;
  /** How many problems `problems` keeps (default 10,000); counting goes on past it. */
  maxProblems?: number;
  /** After each record: the offset reached in the file (for a progress bar). */
  onRecord?: (offset: number) => void;
  /** Aborting it stops the check with CANCELLED (nothing is written, so nothing to undo). */
  signal?: AbortSignal;
  /** checkWarcFile: check only these bytes of the file, as a file of their own (a WARC stored in a WACZ). */
  range?: FileRange;
}

/** How serious each reader warning is for `check`. */
const READER_LEVELS: Record<WarcWarningCode, 'error' | 'warning'> = {
  WARC_NOT_RANDOM_ACCESS: 'error',
  WARC_BAD_SEPARATOR: 'warning',
  WARC_BAD_LINE_ENDING: 'error',
  WARC_SKIPPED_DATA: 'error',
  WARC_BAD_CONTENT_LENGTH: 'error',
  WARC_BAD_HEADER_LINE: 'error',
  WARC_UNKNOWN_VERSION: 'error',
  ARC_BAD_LENGTH: 'error',
};

/** `file:offset: level CODE message`, the line `trove check` prints. */
export function formatProblem(p: CheckProblem): string {
  return `${p.file}:${p.offset}: ${p.level} ${p.code} ${p.message}`;
}

/** The summary's note on chunked payload digests, or '' when the file has none. */
export function formatChunkedDigests(c: CheckResult['chunkedDigests']): string {
  if (c.entity + c.transfer === 0) return '';
  return `; chunked payload digests: ${c.entity} over the de-chunked entity (WARC 1.1 §6.2), ${c.transfer} over the bytes as transferred`;
}

/** The summary's note on credentials in request records (always said: an archive to share must have none). */
export function formatCredentials(n: number): string {
  return n === 0 ? '; no credentials in request records' : `; credentials (Cookie/Authorization values) in ${n} request record${n === 1 ? '' : 's'}`;
}

/** The first 64 KiB of a request record's block: enough for its head. */
class RequestHead {
  private parts: Buffer[] = [];
  private size = 0;
  add(chunk: Buffer): void {
    if (this.size >= 65536) return;
    this.parts.push(chunk);
    this.size += chunk.length;
  }
  holdsCredentials(): boolean {
    return credentialHeaders(Buffer.concat(this.parts)).length > 0;
  }
}

/** Check one file. Never throws for a broken file: every defect becomes a problem. */
export async function checkWarcFile(path: string, opts: CheckOptions = {}): Promise<CheckResult> {
  const result: CheckResult = { file: path, records: 0, errors: 0, warnings: 0, problems: [], valid: true, chunkedDigests: { entity: 0, transfer: 0 }, credentials: 0 };
  const max = opts.maxProblems ?? 10_000;
  const report = (offset: number, level: 'error' | 'warning', code: string, message: string): void => {
    const p: CheckProblem = { file: path, offset, level, code, message };
    if (level === 'error') result.errors++;
    else result.warnings++;
    if (result.problems.length < max) result.problems.push(p);
    opts.onProblem?.(p);
  };

  // Record ids are kept for the whole file as 64-bit hashes (record-id-set.ts). A reference to a
  // record already seen (a request's Concurrent-To its response) is settled at once; only
  // references forward are held, to be looked up at the end.
  const ids = new RecordIdSet();
  const refs: { id: string; field: string; offset: number }[] = [];
  let sawOldVersion = false;
  let format: 'warc' | 'arc' | null = null;
  try {
    const records = openArchiveFile(path, { onWarning: (w) => report(w.offset, READER_LEVELS[w.code], w.code, w.message), ...(opts.range ? { range: opts.range } : {}) });
    for await (const r of records) {
      throwIfCancelled(opts.signal, 'check');
      opts.onRecord?.(r.offset);
      result.records++;
      format ??= r.format;
      if (r.format === 'arc') {
        // ARC records carry no digests or WARC fields: only the structure is checked.
        continue;
      }
      if (!sawOldVersion && (r.version === 'WARC/0.17' || r.version === 'WARC/0.18')) {
        sawOldVersion = true;
        report(r.offset, 'warning', 'WARC_OLD_VERSION', `${r.version} is a draft of the standard; checked as WARC/1.0`);
      }
      for (const p of checkRecordFields(r)) report(r.offset, p.level, p.code, p.message);
      const id = r.get('WARC-Record-ID');
      if (id) ids.add(id.trim());
      for (const field of ['WARC-Concurrent-To', 'WARC-Refers-To']) {
        for (const v of r.getAll(field)) if (!ids.has(v.trim())) refs.push({ id: v.trim(), field, offset: r.offset });
      }
      const digests = new RecordDigests(r);
      const head = r.get('WARC-Type') === 'request' ? new RequestHead() : null;
      if (!digests.idle || head) {
        for await (const chunk of r.block()) {
          if (!digests.idle) digests.update(chunk);
          head?.add(chunk);
        }
      }
      if (head?.holdsCredentials()) result.credentials++;
      for (const p of digests.finish()) report(r.offset, p.level, p.code, p.message);
      if (digests.chunkedConvention) result.chunkedDigests[digests.chunkedConvention]++;
    }
  } catch (err) {
    if (!isTroveError(err) || isCancelled(err)) throw err;
    report(typeof err.details.offset === 'number' ? err.details.offset : 0, 'error', err.code, err.message);
  }

  if (result.records === 0 && result.errors === 0) report(0, 'error', 'WARC_NO_RECORDS', 'the file holds no records');
  for (const ref of refs) {
    if (!ids.has(ref.id)) report(ref.offset, 'warning', 'WARC_TARGET_NOT_IN_FILE', `${ref.field} ${ref.id} is not a record in this file`);
  }
  if (format === 'arc') report(0, 'warning', 'WARC_ARC_FILE', 'an ARC file: only its structure was checked');
  result.valid = result.errors === 0;
  return result;
}
