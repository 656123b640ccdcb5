/**
 * Rewriting a WARC that cannot be read at record offsets (one gzip member for the whole file, or
 * members that cut records apart) as one gzip member per record, as `warcio recompress` does,
 * so replay can seek to each record. Blocks are copied byte for byte; headers are written back
 * from the parsed fields (folded lines unfolded, CRLF line ends). ARC records become WARC/1.0
 * records with the fields the reader synthesised for them.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { isCancelled, isTroveError, throwIfCancelled } from '../errors.ts';
import { openArchiveFile } from '../warc/read-records.ts';
import type { WarcRecord } from '../warc/read-record.ts';

/** Records with a block up to this size are gzipped in one call. */
const SYNC_LIMIT = 4 << 20;
const CRLF2 = Buffer.from('\r\n\r\n', 'latin1');

export interface RecompressResult {
  records: number;
  /** The reader error that stopped the copy early, if any (records before it are kept). */
  error?: { code: string; message: string; offset?: number };
}

function headBytes(record: WarcRecord): Buffer {
  const version = record.format === 'arc' ? 'WARC/1.0' : record.version;
  const lines = [version];
  if (!record.get('WARC-Record-ID')) lines.push(`WARC-Record-ID: <urn:uuid:${randomUUID()}>`);
  for (const [k, v] of record.headers) {
    if (k.toLowerCase() === 'content-length') continue;
    lines.push(`${k}: ${v}`);
  }
  lines.push(`Content-Length: ${record.contentLength}`);
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8');
}

/** Write all of `data` at `pos`; returns the position after it. */
async function writeAll(out: FileHandle, data: Uint8Array, pos: number): Promise<number> {
  let off = 0;
  while (off < data.length) {
    const { bytesWritten } = await out.write(data, off, data.length - off, pos + off);
    off += bytesWritten;
  }
  return pos + data.length;
}

/** Copy every readable record of `src` into `dest` (created or replaced), one gzip member each. */
export async function recompressWarc(src: string, dest: string, signal?: AbortSignal): Promise<RecompressResult> {
  const out = await fs.open(dest, 'w');
  const result: RecompressResult = { records: 0 };
  let pos = 0;
  try {
    for await (const record of openArchiveFile(src)) {
      throwIfCancelled(signal, 'import');
      const head = headBytes(record);
      if (record.contentLength <= SYNC_LIMIT) {
        const { bytes } = await record.readBlock(record.contentLength);
        pos = await writeAll(out, zlib.gzipSync(Buffer.concat([head, bytes, CRLF2])), pos);
      } else {
        const start = pos;
        const parts = async function* (): AsyncGenerator<Buffer> {
          yield head;
          for await (const chunk of record.block()) yield Buffer.from(chunk);
          yield CRLF2;
        };
        try {
          await pipeline(Readable.from(parts()), zlib.createGzip(), async (gz: AsyncIterable<Buffer>) => {
            for await (const c of gz) pos = await writeAll(out, c, pos);
          });
        } catch (err) {
          // Never leave half a member behind: the copy ends with the last whole record.
          await out.truncate(start);
          throw err;
        }
      }
      result.records++;
    }
  } catch (err) {
    if (!isTroveError(err) || isCancelled(err)) throw err;
    const offset = typeof err.details.offset === 'number' ? err.details.offset : undefined;
    result.error = { code: err.code, message: err.message, ...(offset !== undefined ? { offset } : {}) };
  } finally {
    await out.close();
  }
  return result;
}
