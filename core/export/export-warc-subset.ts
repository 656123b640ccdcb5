/**
 * `trove export --warc FILE [--url-prefix …] [--host …] [--from …] [--to …] [--mime …]`: a WARC
 * holding only the chosen captures, each with its request and metadata records, that stands
 * alone:
 *
 * - a new warcinfo record first (software, format, what was selected and from where);
 * - every chosen record copied as it is in its source WARC (the gzip member byte for byte when
 *   source and target are both gzipped; inflated or deflated otherwise, content unchanged);
 * - a revisit whose original is not among the chosen captures is written as a full response
 *   with the original's payload (warc-subset-materialize.ts lists the fields), so replaying the
 *   subset never needs the rest of the archive (what warchaeology #172 asks for). A revisit
 *   whose original the archive does not hold either is copied as it is and counted.
 *
 * Output is gzipped (one member per record) when FILE ends in `.gz`. Records keep the
 * WARC-Warcinfo-ID of their source file's warcinfo (they are copied untouched). Written as
 * `FILE.part`, renamed when complete; a cancel (the signal) stops at the next capture and removes
 * the `.part` file.
 */
import fsp from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Archive } from '../archive/archive-dir.ts';
import { resolveRevisitInChain } from '../archive/archive-revisit.ts';
import { TROVE_VERSION } from '../api/settings.ts';
import { TroveError } from '../errors.ts';
import { buildRecordHeader, warcFields } from '../warc/record-header.ts';
import { prepareRecord } from '../warc/write-record-input.ts';
import { writeRecordAt } from '../warc/write-record.ts';
import type { RecordBytes } from '../warc/write-record.ts';
import { ProgressThrottle } from './export-types.ts';
import type { ProgressFn } from './export-types.ts';
import { recordChunks } from './record-bytes.ts';
import { materializeRevisit } from './warc-subset-materialize.ts';
import { redactedRequest } from './warc-subset-redact.ts';
import { SubsetSelection } from './warc-subset-select.ts';
import type { RecordDbRow, WarcSubsetFilter } from './warc-subset-select.ts';

export type { WarcSubsetFilter } from './warc-subset-select.ts';

const WARC_CONFORMS_TO = 'http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/';

export interface WarcSubsetOptions extends WarcSubsetFilter {
  onProgress?: ProgressFn;
  /** WARC-Date of the warcinfo record (default now). */
  now?: Date;
  /** Request records get a marker for Cookie/Authorization values (warc-subset-redact.ts). */
  redactCredentials?: boolean;
  /** Aborting it stops the export (CANCELLED) and removes the partial file. */
  signal?: AbortSignal;
}

export interface WarcSubsetResult {
  path: string;
  bytes: number;
  /** Records written, warcinfo included. */
  records: number;
  captures: number;
  /** Request and metadata records written with their captures. */
  siblings: number;
  /** Revisits written as full responses. */
  materialized: number;
  /** Revisits whose original the archive does not hold (copied as they are). */
  unresolvedRevisits: number;
  /** Request records written with their credentials redacted (--redact-credentials). */
  redacted: number;
}

export async function exportWarcSubset(archive: Archive, out: string, opts: WarcSubsetOptions = {}): Promise<WarcSubsetResult> {
  const selection = new SubsetSelection(archive, opts);
  const total = selection.count();
  const progress = new ProgressThrottle(opts.onProgress, opts.signal);
  const gzip = /\.gz$/i.test(out);
  const part = `${out}.part`;
  let fh: FileHandle;
  try {
    fh = await fsp.open(part, 'w');
  } catch (err) {
    throw new TroveError('EXPORT_WRITE_FAILED', `cannot create ${part}: ${(err as Error).message}`, { path: part }, { cause: err });
  }
  const result: WarcSubsetResult = { path: out, bytes: 0, records: 0, captures: 0, siblings: 0, materialized: 0, unresolvedRevisits: 0, redacted: 0 };
  let pos = 0;
  const writeBytes = async (bytes: RecordBytes): Promise<void> => {
    pos += await writeRecordAt(fh, pos, bytes, { gzip, gzipLevel: 6 });
    result.records++;
  };
  const copy = async (row: RecordDbRow): Promise<void> => {
    const redacted = opts.redactCredentials && row.record_type === 'request' ? await redactedRequest(archive, row) : null;
    if (redacted) {
      await writeBytes(redacted);
      result.redacted++;
      return;
    }
    const file = archive.resolveFile({ filePath: row.file_path });
    for await (const chunk of recordChunks(file, row.offset, row.length, gzip)) {
      await writeAll(fh, chunk, pos);
      pos += chunk.length;
    }
    result.records++;
  };

  try {
    const warcinfo = warcinfoRecord(archive, path.basename(out), opts, opts.now ?? new Date());
    progress.report('records', 0, total, 0);
    await writeBytes(warcinfo.bytes);
    for (const capture of selection.captures()) {
      for (const row of selection.group(capture)) {
        if (row.id !== capture.id) {
          await copy(row);
          result.siblings++;
          continue;
        }
        result.captures++;
        if (row.record_type !== 'revisit') {
          await copy(row);
          continue;
        }
        const original = resolveRevisitInChain(archive, archive.index.byId(row.id)!);
        if (original && selection.includes(original.id)) {
          await copy(row);
        } else if (!original) {
          result.unresolvedRevisits++;
          await copy(row);
        } else {
          const full = await materializeRevisit(archive, row, original, warcinfo.id);
          if (full) {
            await writeBytes(full);
            result.materialized++;
          } else {
            result.unresolvedRevisits++;
            await copy(row);
          }
        }
      }
      progress.report('records', result.captures, total, pos);
    }
    await fh.close(); // no fsync: see zip-writer.ts
    await fsp.rename(part, out);
  } catch (err) {
    await fh.close().catch(() => undefined);
    await fsp.rm(part, { force: true });
    if (err instanceof TroveError) throw err;
    throw new TroveError('EXPORT_WRITE_FAILED', `cannot write ${out}: ${(err as Error).message}`, { path: out }, { cause: err });
  }
  result.bytes = pos;
  progress.done('records', result.captures, total, pos);
  return result;
}

async function writeAll(fh: FileHandle, b: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < b.length) {
    const { bytesWritten } = await fh.write(b, done, b.length - done, position + done);
    if (!(bytesWritten > 0)) throw new Error(`write returned ${bytesWritten}`);
    done += bytesWritten;
  }
}

/** The subset's own warcinfo: who made it, from which archive, with which filter. */
function warcinfoRecord(archive: Archive, filename: string, filter: WarcSubsetFilter, now: Date): { id: string; bytes: RecordBytes } {
  const settings = archive.meta<{ name?: string }>('settings');
  const chosen = (['urlPrefix', 'host', 'from', 'to', 'mime'] as const).filter((k) => filter[k]).map((k) => `${k}=${filter[k]}`);
  const fields: Record<string, string> = {
    software: `Trove/${TROVE_VERSION} (Node.js ${process.version})`,
    format: 'WARC File Format 1.1',
    conformsTo: WARC_CONFORMS_TO,
    isPartOf: settings?.name ?? path.basename(archive.dir),
    description:
      `Subset of the archive ${path.basename(archive.dir)} (${chosen.length > 0 ? chosen.join(', ') : 'all captures'}): ` +
      'the chosen captures with their request and metadata records, copied unchanged; revisits whose original is not in the subset ' +
      'are written as response records carrying the original payload',
  };
  const prepared = prepareRecord(
    { type: 'warcinfo', date: now, contentType: 'application/warc-fields', blockParts: [Buffer.from(warcFields(fields), 'utf8')] },
    [['WARC-Filename', filename]],
  );
  return {
    id: prepared.recordId,
    bytes: { header: buildRecordHeader(prepared.fields(null)), parts: prepared.parts, blockLength: prepared.blockLength, check: prepared.check },
  };
}
