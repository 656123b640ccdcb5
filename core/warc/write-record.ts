/**
 * Serializes one WARC record (header, block, `\r\n\r\n`) at a given position of an open file,
 * as its own gzip member or uncompressed, and returns how many bytes it put on disk.
 *
 * Written by hand rather than with warcio.js 2.4.11's WARCSerializer, which we read first:
 * - `digestRecord()` always drains the whole block into an "external buffer" before it emits
 *   the header (it needs Content-Length up front). The default buffer is in memory; the Node
 *   `TempFileBuffer` spills past 2 MiB into a second temp file. Either way a 1 GiB block that we
 *   already spooled to disk, with digests already computed, would be held in RAM or copied again.
 * - It re-serializes parsed HTTP headers (`httpHeaders.toString()`), while the response block
 *   must be the status line and headers exactly as received.
 * - It yields chunks to a consumer but knows nothing of file offsets, positioned writes or
 *   rollback, which the writer needs for "a failed write never corrupts a WARC".
 * Here the block length is known in advance (spooled), so the header goes first and the block
 * streams straight through zlib to positioned writes, with backpressure from each awaited write.
 * warcio.js stays our independent reader in the tests.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants as zlibConstants, createGzip, gzipSync } from 'node:zlib';
import type { Gzip as ZlibGzip, ZlibReset } from 'node:zlib';
import { TroveError } from '../errors.ts';
import { releaseBuffer } from '../formats/release-buffer.ts';
import type { BlockDigestCheck } from './write-block-digest.ts';

/** One piece of a record block: bytes in memory, or a spooled file opened on demand. */
export type BlockSource = Buffer | { length: number; stream(): Readable };

/** The smallest surface of `fs.promises.FileHandle` the writer uses; a test can wrap one to inject failures. */
export interface WarcFileHandle {
  write(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesWritten: number }>;
  /** Several buffers at `position` in one call (FileHandle has it); a test double may leave it out. */
  writev?(buffers: Uint8Array[], position: number): Promise<{ bytesWritten: number }>;
  truncate(len: number): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

export interface RecordBytes {
  header: Buffer;
  parts: BlockSource[];
  /** Sum of the parts' lengths: the header's Content-Length. */
  blockLength: number;
  /** Checks a caller-declared digest while the block passes; null when we computed it ourselves. */
  check: BlockDigestCheck | null;
}

export interface WriteRecordOptions {
  gzip: boolean;
  gzipLevel: number;
}

const CRLFCRLF = Buffer.from('\r\n\r\n');

/**
 * Records whose block is all in memory (spooled bodies stay in memory up to 1 MiB) are compressed
 * in one call and written in one write. Small ones (request and metadata records, tiny pages) are
 * compressed inline (gzipSync is cheaper than a round trip); larger ones on libuv's thread pool so
 * the crawl loop's thread stays free. At 64 KiB the Python docs crawl spent ~130 ms of its crawl
 * thread in gzipSync and took ~5% longer with one connection than at 8 KiB.
 */
const IN_MEMORY_RECORD = 4 * 1024 * 1024;
const SYNC_GZIP_MAX = 8 * 1024;

/**
 * zlib's output buffer for one record, sized to the record instead of zlib's 16 KiB default.
 * Each gzip call allocates its output buffer whole and returns a slice of it, so at the default a
 * 700-byte request record cost 16 KiB of ArrayBuffer until the next garbage collection: ~48 KiB
 * per URI, which piled up to ~50 MiB of dead buffers between collections on a crawl of small
 * pages. Larger records get at most 256 KiB per piece (an HTML page compresses several times, so
 * most fit in one; fewer pieces are also fewer round trips to the thread pool).
 */
export function gzipChunkSize(rawLength: number): number {
  return Math.min(256 * 1024, Math.max(1024, rawLength + 64));
}

/**
 * Gzip members compressed on libuv's thread pool by zlib streams that are kept and reused, one
 * member at a time each, rather than by `zlib.gzip`, which makes a new stream per member: a new
 * zlib context (deflateInit's ~256 KiB of window and hash tables, which Node reports to V8 as
 * external memory), a new output buffer, a stream and its listeners, and then two trips to the
 * pool (the input with Z_NO_FLUSH, then an empty Z_FINISH). A kept stream whose flush mode is
 * Z_FINISH compresses a whole record in one write, one trip, and `reset()` (deflateReset) readies
 * it for the next member without reallocating. On the Python docs crawl (issue 20) the crawl
 * thread's full garbage collections fell by ~40% (`--trace-gc`), and every member took one
 * trip fewer.
 *
 * The bytes are the same as a new stream's: deflateReset restores the state deflateInit2 makes,
 * with the level, window and memLevel it was made with (streams are kept per those three), and a
 * gzip header made by zlib carries no time or name (test/warc/gzip-member-streams.test.ts compares
 * every member with gzipSync's, one by one and many at once).
 */
const KEEP_IDLE_PER_KIND = 2;
/** Node's typings give `reset()` to Deflate and Inflate only; every zlib stream has it (ZlibBase), gzip's included. */
type Gzip = ZlibGzip & ZlibReset;
const idleGzip = new Map<string, Gzip[]>();

interface MemberJob {
  pieces: Buffer[];
  length: number;
  /** The output buffer the stream is filling (the ArrayBuffer its last piece was a view of). */
  filling: ArrayBuffer | null;
}

/**
 * A kept stream's output buffer, whose members are views of it rather than copies. zlib fills one
 * 256 KiB buffer member after member and then starts a new one; a full buffer lives on (promoted,
 * as it outlives several young collections) until a full collection, as did the copy each member
 * used to be. So each buffer counts the members cut from it that are not yet on disk: once the
 * stream has moved on to a new buffer and the last of them is written (memberWritten), it is
 * freed at once. A member never written (its file rotated first) leaves its buffer to the collector.
 */
interface OutputBuffer {
  unwritten: number;
  filled: boolean;
}
const outputBuffers = new WeakMap<ArrayBuffer, OutputBuffer>();

/**
 * Call when a member made by recordBytesInMemory is on disk and nothing will read it again: its
 * memory is freed now (its own buffer, or its share of a kept stream's output buffer).
 */
export function memberWritten(member: Buffer): void {
  const out = outputBuffers.get(member.buffer as ArrayBuffer);
  if (out === undefined) {
    releaseBuffer(member);
    return;
  }
  out.unwritten -= 1;
  if (out.filled && out.unwritten === 0) releaseBuffer(member, false);
}

/** The stream has moved on from `ab`: no more members will be cut from it. */
function outputFilled(ab: ArrayBuffer): void {
  const out = outputBuffers.get(ab) ?? { unwritten: 0, filled: true };
  out.filled = true;
  if (out.unwritten === 0) releaseBuffer(ab);
  else outputBuffers.set(ab, out);
}

async function gzipOnPool(raw: Buffer, zopts: { level: number; windowBits: number; memLevel: number }): Promise<Buffer> {
  const kind = `${zopts.level}/${zopts.windowBits}/${zopts.memLevel}`;
  const idle = idleGzip.get(kind);
  const stream = idle?.pop() ?? newMemberStream(zopts);
  const job = memberJobs.get(stream)!;
  job.pieces = [];
  job.length = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      stream.write(raw, (err) => (err ? reject(err) : resolve()));
    });
  } catch (err) {
    stream.destroy();
    throw err;
  }
  // A member in one piece is a view of the stream's output buffer, which zlib does not write
  // again (the next member goes after it, or into a new buffer): kept as it is, counted against
  // its buffer. One that spans two buffers (rare: a member larger than what was left) is joined.
  const pieces = job.pieces;
  const last = pieces[pieces.length - 1]!.buffer as ArrayBuffer;
  let member: Buffer;
  if (pieces.length === 1) {
    member = pieces[0]!;
    const out = outputBuffers.get(last) ?? { unwritten: 0, filled: false };
    out.unwritten += 1;
    outputBuffers.set(last, out);
  } else {
    member = Buffer.concat(pieces, job.length);
  }
  job.pieces = [];
  // Every buffer before the one the stream is filling now is full: freed when its members are on
  // disk (at once for those this member was joined from, whose bytes it copied).
  const filled = new Set<ArrayBuffer>();
  if (job.filling !== null) filled.add(job.filling);
  for (const p of pieces) filled.add(p.buffer as ArrayBuffer);
  filled.delete(last);
  for (const ab of filled) outputFilled(ab);
  job.filling = last;
  stream.reset();
  const list = idleGzip.get(kind) ?? [];
  if (list.length < KEEP_IDLE_PER_KIND) {
    list.push(stream);
    idleGzip.set(kind, list);
  } else {
    stream.close();
  }
  return member;
}

const memberJobs = new WeakMap<Gzip, MemberJob>();

function newMemberStream(zopts: { level: number; windowBits: number; memLevel: number }): Gzip {
  // Z_FINISH on every write: each write is a whole member (then reset); one trip to the pool.
  const stream = createGzip({ ...zopts, chunkSize: 256 * 1024, flush: zlibConstants.Z_FINISH }) as Gzip;
  const job: MemberJob = { pieces: [], length: 0, filling: null };
  memberJobs.set(stream, job);
  stream.on('data', (chunk: Buffer) => {
    job.pieces.push(chunk);
    job.length += chunk.length;
  });
  // A write's error also reaches its callback (which rejects); this keeps it from being unhandled.
  stream.on('error', () => undefined);
  return stream;
}

/**
 * zlib's window and memory level for one gzip member of `rawLength` bytes, sized to the record
 * instead of zlib's defaults (a 32 KiB window, memLevel 8: 64 KiB of hash tables), which
 * deflateInit allocates and clears for every member however small: up to ~10% of a small
 * member's CPU once its output buffer is sized too (gzipChunkSize; bench/record-cpu-bench.ts).
 *
 * No match is lost: zlib looks back at most its window less MIN_LOOKAHEAD (262) bytes, so a
 * window of at least `rawLength + 262` bytes reaches the record's first byte from its last. zlib
 * takes 9 to 15 bits. memLevel sets the hash table (2^(memLevel+7) heads) and the symbol buffer
 * (2^(memLevel+6) symbols, one deflate block at most): six under the window's bits keeps two heads
 * per byte of window and room for the whole record in one block, so the members come out the
 * same length (bench/record-cpu-bench.ts, on the Python docs' HTML). A gzip member has no field
 * for the window: any inflater (Node's zlib, Python's gzip, warcio) reads it with its own 32 KiB window.
 */
export function gzipMemberOptions(rawLength: number): { windowBits: number; memLevel: number } {
  const windowBits = Math.min(15, Math.max(9, Math.ceil(Math.log2(rawLength + 262))));
  return { windowBits, memLevel: Math.min(8, Math.max(2, windowBits - 6)) };
}

/** Writes all of `buf` at `position`, looping over short writes. */
export async function writeFully(file: WarcFileHandle, buf: Uint8Array, position: number): Promise<void> {
  let done = 0;
  while (done < buf.length) {
    const { bytesWritten } = await file.write(buf, done, buf.length - done, position + done);
    if (!(bytesWritten > 0)) throw new Error(`write returned ${bytesWritten} bytes`);
    done += bytesWritten;
  }
}

/**
 * Writes `bufs` one after another from `position`: with one writev when the handle has one (one
 * trip to the thread pool, no joining copy), then buffer by buffer for whatever a short writev
 * left; buffer by buffer when it has none.
 */
export async function writeAllFully(file: WarcFileHandle, bufs: Uint8Array[], position: number): Promise<void> {
  let done = 0;
  if (bufs.length > 1 && file.writev) done = (await file.writev(bufs, position)).bytesWritten;
  let at = position;
  for (const b of bufs) {
    if (done >= b.length) done -= b.length;
    else {
      await writeFully(file, done > 0 ? b.subarray(done) : b, at + done);
      done = 0;
    }
    at += b.length;
  }
}

/** Header, block parts, then the record's closing `\r\n\r\n`, checking lengths and digest on the way. */
async function* recordChunks(rec: RecordBytes): AsyncGenerator<Buffer> {
  yield rec.header;
  for (const part of rec.parts) {
    if (Buffer.isBuffer(part)) {
      rec.check?.update(part);
      if (part.length > 0) yield part;
      continue;
    }
    let seen = 0;
    for await (const chunk of part.stream()) {
      if (!Buffer.isBuffer(chunk)) {
        throw new TroveError('WARC_BLOCK_LENGTH_MISMATCH', 'block stream must yield Buffers (no encoding set)');
      }
      seen += chunk.length;
      if (seen > part.length) {
        throw new TroveError('WARC_BLOCK_LENGTH_MISMATCH', `block stream longer than its declared ${part.length} bytes`, {
          declared: part.length,
        });
      }
      rec.check?.update(chunk);
      yield chunk;
    }
    if (seen !== part.length) {
      throw new TroveError('WARC_BLOCK_LENGTH_MISMATCH', `block stream ended after ${seen} of ${part.length} bytes`, {
        declared: part.length,
        actual: seen,
      });
    }
  }
  if (rec.check && !rec.check.matches()) {
    throw new TroveError('WARC_BLOCK_DIGEST_MISMATCH', 'block bytes do not match the declared WARC-Block-Digest (spool changed?)');
  }
  yield CRLFCRLF;
}

/**
 * The record's bytes as they go on disk (its gzip member, or the raw record), built in memory in
 * one call, when every block part is in memory and the record is not large; null otherwise (the
 * record is then streamed). Checks a declared block digest.
 */
export async function recordBytesInMemory(rec: RecordBytes, opts: WriteRecordOptions): Promise<Buffer | null> {
  if (!rec.parts.every((p) => Buffer.isBuffer(p)) || rec.header.length + rec.blockLength > IN_MEMORY_RECORD) return null;
  const parts = rec.parts as Buffer[];
  if (rec.check) {
    for (const p of parts) rec.check.update(p);
    if (!rec.check.matches()) {
      throw new TroveError('WARC_BLOCK_DIGEST_MISMATCH', 'block bytes do not match the declared WARC-Block-Digest');
    }
  }
  const raw = Buffer.concat([rec.header, ...parts, CRLFCRLF]);
  if (!opts.gzip) return raw;
  const sized = { level: opts.gzipLevel, ...gzipMemberOptions(raw.length) };
  if (raw.length <= SYNC_GZIP_MAX) return gzipSync(raw, { ...sized, chunkSize: gzipChunkSize(raw.length) });
  try {
    return await gzipOnPool(raw, sized);
  } finally {
    // The join was only zlib's input, and zlib is done with it: freed now, not at a collection.
    releaseBuffer(raw);
  }
}

/**
 * Puts one record on disk at `position`. Returns its length on disk. On failure some bytes past
 * `position` may have been written: the caller truncates them away.
 */
export async function writeRecordAt(
  file: WarcFileHandle,
  position: number,
  rec: RecordBytes,
  opts: WriteRecordOptions,
): Promise<number> {
  const whole = await recordBytesInMemory(rec, opts);
  if (whole) {
    await writeFully(file, whole, position);
    const length = whole.length;
    memberWritten(whole);
    return length;
  }

  let at = position;
  const sink = async (source: AsyncIterable<Buffer>): Promise<void> => {
    for await (const chunk of source) {
      await writeFully(file, chunk, at);
      at += chunk.length;
    }
  };
  if (opts.gzip) {
    const gzip = createGzip({ level: opts.gzipLevel, chunkSize: 64 * 1024, flush: zlibConstants.Z_NO_FLUSH });
    await pipeline(Readable.from(recordChunks(rec), { objectMode: false }), gzip, sink);
  } else {
    await sink(recordChunks(rec));
  }
  return at - position;
}
