/**
 * The gzip members of a file, inflated one by one, each with its exact compressed offsets.
 * A per-record-gzip WARC is addressed by those offsets (CDXJ `offset`/`length`). This is the
 * exact path: random access (readRecordAt) uses it, and sequential reading falls back to it
 * whenever the fast path (gzip-members-fast.ts) cannot confirm where members end.
 *
 * Why by hand: node:zlib's Gunzip runs concatenated members together without saying where one
 * ends, and warcio.js's pako-based reader holds whole records in memory. So the gzip header and
 * trailer (RFC 1952) are handled here and only the deflate data goes to node:zlib (raw inflate).
 *
 * Two ways, same result:
 * - A member that fits in the read window is inflated by one `inflateRawSync` call;
 *   `engine.bytesWritten` says where its deflate data ended.
 * - A member larger than the window, or inflating to more than MAX_SYNC_OUTPUT, is streamed
 *   through an InflateRaw stream in pieces, so memory stays flat whatever the record size.
 *
 * CRC32 and ISIZE are checked for every member (zlib.crc32 costs ~0.15 ms per MB).
 */
import type { ReadAt } from './file-range.ts';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { readFailed, WarcReadError } from './read-errors.ts';

/** Decompressed bytes of one member, in order. */
export interface InflatedPiece {
  data: Buffer;
  /** Compressed offset of the member's first byte (its gzip header). */
  memberOffset: number;
  /** True on the member's first piece. */
  first: boolean;
  /** On the member's last piece: compressed offset just past its trailer. Otherwise null. */
  memberEnd: number | null;
}

const EMPTY = Buffer.alloc(0);
/** Compressed bytes read at a time; a member smaller than this is inflated in one call. */
const WINDOW = 4 << 20;
/** A member inflating to more than this is streamed instead. */
const MAX_SYNC_OUTPUT = 32 << 20;
/** Re-anchor the window at a member when less than this is left after the member start. */
const MIN_AHEAD = 512 << 10;
/** FEXTRA + FNAME + FCOMMENT longer than this is not a WARC writer's gzip header. */
const MAX_GZIP_HEADER = 64 << 10;
const STREAM_PIECE = 256 << 10;
/** Output buffer step of inflateRawSync when the member's size cannot be guessed. */
const SYNC_CHUNK = 64 << 10;

const GZIP_MAGIC = Buffer.from([0x1f, 0x8b, 0x08]);
const FHCRC = 2;
const FEXTRA = 4;
const FNAME = 8;
const FCOMMENT = 16;

/** True when the bytes start with the gzip magic number. */
export function isGzipMagic(head: Buffer): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

export class GzipMembers {
  readonly #file: ReadAt;
  readonly #size: number;
  #pos: number;
  /** The window: file bytes [#winStart, #winStart + #win.length), a view of #current. */
  #win: Buffer = EMPTY;
  #winStart = 0;
  #current: Buffer = EMPTY;
  #other: Buffer = EMPTY;
  #stream: AsyncGenerator<InflatedPiece> | null = null;

  /** Read members of `file` (of `size` bytes) starting at compressed offset `start`. */
  constructor(file: ReadAt, start: number, size: number) {
    this.#file = file;
    this.#pos = start;
    this.#size = size;
  }

  /** The next piece, or null after the last member. Throws WarcReadError. */
  async next(): Promise<InflatedPiece | null> {
    if (this.#stream) {
      const r = await this.#stream.next();
      if (!r.done) return r.value;
      this.#stream = null;
    }
    if (this.#pos >= this.#size) return null;
    return this.#member();
  }

  /** Stop a member being streamed (closes its zlib stream). */
  async close(): Promise<void> {
    const s = this.#stream;
    this.#stream = null;
    if (s) await s.return(undefined);
  }

  async #member(): Promise<InflatedPiece> {
    const start = this.#pos;
    const avail = await this.#ensure(start, 2);
    if (avail === 1 && this.#at(start, 1)[0] === 0x1f) {
      throw new WarcReadError('WARC_TRUNCATED', `file ends inside the gzip header at offset ${start}`, { offset: start });
    }
    if (avail < 2 || !isGzipMagic(this.#at(start, 2))) {
      throw new WarcReadError('WARC_TRAILING_DATA', `data after the last gzip member is not gzip (offset ${start})`, { offset: start });
    }
    await this.#ensure(start, MIN_AHEAD);
    const headerLength = await this.#headerLength(start);
    const deflateStart = start + headerLength;
    let anchored = this.#winStart === start;
    for (;;) {
      const input = this.#win.subarray(deflateStart - this.#winStart);
      let out: Buffer;
      let consumed: number;
      try {
        const chunkSize = this.#sizeHint(deflateStart) ?? SYNC_CHUNK;
        const r = zlib.inflateRawSync(input, { info: true, chunkSize, maxOutputLength: MAX_SYNC_OUTPUT }) as unknown as { buffer: Buffer; engine: zlib.InflateRaw };
        out = r.buffer;
        consumed = r.engine.bytesWritten;
      } catch (err) {
        const code = (err as { code?: string }).code;
        const windowHitsEof = this.#winStart + this.#win.length >= this.#size;
        if (code === 'Z_BUF_ERROR' && windowHitsEof) {
          throw new WarcReadError('WARC_TRUNCATED', `file ends inside the gzip member at offset ${start}`, { offset: start });
        }
        if (code === 'Z_BUF_ERROR' && !anchored) {
          await this.#fill(start, WINDOW); // more room: start the window at this member and retry
          anchored = true;
          continue;
        }
        if (code === 'Z_BUF_ERROR' || code === 'ERR_BUFFER_TOO_LARGE') {
          this.#stream = this.#streamMember(start, deflateStart);
          const r = await this.#stream.next();
          if (r.done) throw new Error('unreachable: a streamed member yields at least one piece');
          return r.value;
        }
        throw badGzip(start, err);
      }
      const memberEnd = await this.#checkTrailer(start, deflateStart + consumed, out.length, zlib.crc32(out));
      this.#pos = memberEnd;
      return { data: out, memberOffset: start, first: true, memberEnd };
    }
  }

  /** Inflate a large member through a stream, piece by piece, then check its trailer. */
  async *#streamMember(start: number, deflateStart: number): AsyncGenerator<InflatedPiece> {
    const file = this.#file;
    const size = this.#size;
    let reachedEof = false;
    async function* compressed(): AsyncGenerator<Buffer> {
      for (let p = deflateStart; p < size; ) {
        const b = Buffer.allocUnsafe(Math.min(WINDOW, size - p));
        const { bytesRead } = await file.read(b, 0, b.length, p).catch((err: unknown) => {
          throw readFailed(err, p);
        });
        if (bytesRead === 0) break;
        p += bytesRead;
        yield b.subarray(0, bytesRead);
      }
      reachedEof = true;
    }
    const source = Readable.from(compressed(), { highWaterMark: 1 });
    const inflater = zlib.createInflateRaw({ chunkSize: STREAM_PIECE });
    source.on('error', (err) => inflater.destroy(err)); // pipe() does not pass errors on
    source.pipe(inflater);
    let crc = 0;
    let total = 0;
    let first = true;
    try {
      for await (const chunk of inflater as AsyncIterable<Buffer>) {
        crc = zlib.crc32(chunk, crc);
        total += chunk.length;
        yield { data: chunk, memberOffset: start, first, memberEnd: null };
        first = false;
      }
    } catch (err) {
      if (err instanceof WarcReadError) throw err;
      if ((err as { code?: string }).code === 'Z_BUF_ERROR' && reachedEof) {
        throw new WarcReadError('WARC_TRUNCATED', `file ends inside the gzip member at offset ${start}`, { offset: start });
      }
      throw badGzip(start, err);
    } finally {
      source.destroy();
      inflater.destroy();
    }
    const memberEnd = await this.#checkTrailer(start, deflateStart + inflater.bytesWritten, total, crc);
    this.#pos = memberEnd;
    yield { data: EMPTY, memberOffset: start, first, memberEnd };
  }

  /**
   * The member's inflated size, guessed from the ISIZE field before the next gzip magic in the
   * window, so inflateRawSync allocates its output once instead of in chunks joined after. A
   * wrong guess costs a little speed, never correctness.
   */
  #sizeHint(deflateStart: number): number | null {
    const i = this.#win.indexOf(GZIP_MAGIC, deflateStart - this.#winStart);
    if (i < 8) return null;
    const size = this.#win.readUInt32LE(i - 4);
    // One spare byte: a full output buffer makes zlib start another before it sees the end.
    return size > 0 && size < MAX_SYNC_OUTPUT ? Math.max(size + 1, 1024) : null;
  }

  /** Check CRC32 and ISIZE; returns the offset just past the trailer. */
  async #checkTrailer(start: number, trailerStart: number, outLength: number, crc: number): Promise<number> {
    if ((await this.#ensure(trailerStart, 8)) < 8) {
      throw new WarcReadError('WARC_TRUNCATED', `file ends inside the gzip trailer of the member at offset ${start}`, { offset: start });
    }
    const t = this.#at(trailerStart, 8);
    if (t.readUInt32LE(0) !== crc >>> 0) {
      throw new WarcReadError('WARC_BAD_GZIP', `CRC32 mismatch in the gzip member at offset ${start}`, { offset: start });
    }
    if (t.readUInt32LE(4) !== outLength % 2 ** 32) {
      throw new WarcReadError('WARC_BAD_GZIP', `size mismatch in the gzip member at offset ${start}`, { offset: start });
    }
    return trailerStart + 8;
  }

  /** Length of the gzip header at `start` (RFC 1952 §2.3). */
  async #headerLength(start: number): Promise<number> {
    const need = async (n: number): Promise<Buffer> => {
      if (n > MAX_GZIP_HEADER) {
        throw new WarcReadError('WARC_BAD_GZIP', `gzip header at offset ${start} is longer than ${MAX_GZIP_HEADER} bytes`, { offset: start });
      }
      if ((await this.#ensure(start, n)) < n) {
        throw new WarcReadError('WARC_TRUNCATED', `file ends inside the gzip header at offset ${start}`, { offset: start });
      }
      return this.#at(start, n);
    };
    let h = await need(10);
    if (h[2] !== 8) throw new WarcReadError('WARC_BAD_GZIP', `gzip member at offset ${start} is not deflate (method ${h[2]})`, { offset: start });
    const flags = h[3]!;
    if (flags & 0xe0) throw new WarcReadError('WARC_BAD_GZIP', `gzip member at offset ${start} has reserved flag bits set`, { offset: start });
    let n = 10;
    if (flags & FEXTRA) {
      h = await need(n + 2);
      n += 2 + h.readUInt16LE(n);
      await need(n);
    }
    for (const flag of [FNAME, FCOMMENT]) {
      if (!(flags & flag)) continue;
      for (;;) {
        h = await need(n + 1);
        if (h[n++] === 0) break;
      }
    }
    if (flags & FHCRC) n += 2;
    await need(n);
    return n;
  }

  /** Bytes [pos, pos+n) from the window (call #ensure first). */
  #at(pos: number, n: number): Buffer {
    const i = pos - this.#winStart;
    return this.#win.subarray(i, i + n);
  }

  /** Make the window cover [pos, pos+n) or up to the end of the file; returns bytes available from pos. */
  async #ensure(pos: number, n: number): Promise<number> {
    const end = this.#winStart + this.#win.length;
    const wanted = Math.min(pos + n, this.#size);
    if (pos < this.#winStart || wanted > end) await this.#fill(pos, Math.max(n, WINDOW));
    return Math.min(this.#winStart + this.#win.length - pos, n);
  }

  /**
   * Point the window at [pos, pos+n) (or to the end of the file). Two buffers take turns, so no
   * new memory is taken per window (nothing outside this class keeps a view of them: inflate
   * output is a fresh buffer), and bytes already in the window are copied, not read again.
   */
  async #fill(pos: number, n: number): Promise<void> {
    const len = Math.max(0, Math.min(n, this.#size - pos));
    let target = this.#other;
    // At most what is left from `pos` on: `#size` is where reading stops (a file offset), so a
    // replay read of one record deep in a big WARC took a whole WINDOW (4 MiB) for a few KiB,
    // and its garbage collection was a third of a replay lookup's CPU (issue 39).
    if (target.length < len) target = Buffer.allocUnsafe(Math.max(len, Math.min(WINDOW, this.#size - pos)));
    let got = 0;
    const end = this.#winStart + this.#win.length;
    if (pos >= this.#winStart && pos < end) {
      got = this.#win.copy(target, 0, pos - this.#winStart, Math.min(end, pos + len) - this.#winStart);
    }
    while (got < len) {
      const { bytesRead } = await this.#file.read(target, got, len - got, pos + got).catch((err: unknown) => {
        throw readFailed(err, pos + got);
      });
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    this.#other = this.#current;
    this.#current = target;
    this.#win = target.subarray(0, got);
    this.#winStart = pos;
  }
}

function badGzip(offset: number, err: unknown): WarcReadError {
  return new WarcReadError('WARC_BAD_GZIP', `corrupt gzip data in the member at offset ${offset}: ${(err as Error).message}`, { offset }, { cause: err });
}
