/**
 * `trove export --wacz FILE --redact-credentials` (issue 36): a WACZ packs its crawl's WARCs
 * whole, so a package to share without the session needs WARCs rewritten first. Each WARC whose
 * request records hold Cookie, Authorization or Proxy-Authorization values is copied to a
 * temporary file with those records redacted (warc-subset-redact.ts: marker in place of the
 * values, block digest and length recomputed, record id kept) and every other byte copied as it
 * is. Records after a rewritten one move by the difference in length, so the package's CDXJ
 * offsets are relocated through `relocate`; its hashes are computed from the new bytes as they
 * go into the ZIP. A WARC without credentials is not rewritten (null).
 */
import fsp from 'node:fs/promises';
import type { Archive } from '../archive/archive-dir.ts';
import { TroveError } from '../errors.ts';
import { recordBytesInMemory } from '../warc/write-record.ts';
import type { ExportWarc } from './archive-warcs.ts';
import { readFileRange } from './file-range.ts';
import { isGzipAt } from './record-bytes.ts';
import { redactedRequestAt } from './warc-subset-redact.ts';

export interface RedactedWarc {
  /** The rewritten WARC (a temporary file the caller packs and removes). */
  file: string;
  size: number;
  /** Request records rewritten. */
  redacted: number;
  /** Where a record that started at `offset` of the source (absolute, as indexed) starts in the rewritten WARC. */
  relocate(offset: number): number;
}

interface Change {
  offset: number;
  length: number;
  bytes: Buffer;
}

const CRLFCRLF = Buffer.from('\r\n\r\n');

/** Write `w` with its credentials redacted to `file`; null (nothing written) when none of its request records holds any. */
export async function writeRedactedWarc(archive: Archive, w: ExportWarc, file: string): Promise<RedactedWarc | null> {
  const changes = await redactedRecords(archive, w);
  if (changes.length === 0) return null;
  const fh = await fsp.open(file, 'w');
  let pos = 0;
  const put = async (b: Buffer): Promise<void> => {
    for (let done = 0; done < b.length; ) {
      const { bytesWritten } = await fh.write(b, done, b.length - done, pos + done);
      if (!(bytesWritten > 0)) throw new Error(`write returned ${bytesWritten}`);
      done += bytesWritten;
    }
    pos += b.length;
  };
  try {
    let at = w.start;
    for (const c of changes) {
      for await (const chunk of readFileRange(w.source, at, c.offset - at)) await put(chunk);
      await put(c.bytes);
      at = c.offset + c.length;
    }
    for await (const chunk of readFileRange(w.source, at, w.start + w.size - at)) await put(chunk);
  } catch (err) {
    await fh.close().catch(() => undefined);
    await fsp.rm(file, { force: true });
    throw new TroveError('EXPORT_WRITE_FAILED', `cannot write the redacted copy of ${w.name}: ${(err as Error).message}`, { path: file }, { cause: err });
  }
  await fh.close();
  // Shift after each change, cumulated, for relocate's binary search.
  const shifts: number[] = [];
  let shift = 0;
  for (const c of changes) shifts.push((shift += c.bytes.length - c.length));
  return {
    file,
    size: pos,
    redacted: changes.length,
    relocate: (offset) => {
      let lo = 0;
      let hi = changes.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (changes[mid]!.offset < offset) lo = mid + 1;
        else hi = mid;
      }
      return offset - w.start + (lo === 0 ? 0 : shifts[lo - 1]!);
    },
  };
}

/** The request records of `w` that hold credentials, each with its redacted bytes in the file's own compression. */
async function redactedRecords(archive: Archive, w: ExportWarc): Promise<Change[]> {
  const out: Change[] = [];
  for (const place of archive.index.requestPlaces(w.fileId)) {
    const rec = await redactedRequestAt(w.source, place.offset, place.length);
    if (!rec) continue;
    const gzip = await isGzipAt(w.source, place.offset);
    let bytes = await recordBytesInMemory(rec, { gzip, gzipLevel: 6 });
    if (!bytes) throw new TroveError('EXPORT_WRITE_FAILED', `a request record of ${w.name} at ${place.offset} is too large to redact in memory`, { offset: place.offset });
    // A plain record's indexed length may stop before its CRLF CRLF (pywb's CDX length): then the separator is copied after it.
    if (!gzip && !(await endsWithSeparator(w.source, place.offset + place.length))) bytes = bytes.subarray(0, bytes.length - CRLFCRLF.length);
    out.push({ offset: place.offset, length: place.length, bytes });
  }
  return out;
}

async function endsWithSeparator(file: string, end: number): Promise<boolean> {
  return end >= 4 && (await readAt(file, end - 4, 4)).equals(CRLFCRLF);
}

async function readAt(file: string, offset: number, n: number): Promise<Buffer> {
  const fh = await fsp.open(file, 'r');
  try {
    const b = Buffer.alloc(n);
    const { bytesRead } = await fh.read(b, 0, n, offset);
    return b.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}
