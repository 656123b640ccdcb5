/**
 * Fast sequential reading of a gzip file: one node:zlib Gunzip stream inflates every member.
 * zlib's engine is then set up once, not per member: setting up a fresh inflater is most of the
 * time for a Heritrix-style file of small request/metadata records.
 *
 * Gunzip does not say where members end, but the record reader knows where each record ends
 * in the decompressed stream. If the record was alone in its member, the file holds, right after
 * that member, its trailer (CRC32 and ISIZE of exactly the record's bytes) and then the next
 * member's magic `1f 8b 08`. Finding that (a 91-bit match, which a page's content cannot forge
 * without knowing the whole record, WARC-Record-ID included) confirms the boundary, with its
 * exact compressed offset. At the end of the file the last member's trailer is checked.
 *
 * Whenever a boundary cannot be confirmed (a whole-file gzip, members that split records), a
 * record starts where no member does, Gunzip fails, or bytes are left after the last member
 * (Gunzip ignores trailing zeros), reading goes on with the exact member-by-member inflater from
 * the last confirmed member: same bytes, exact offsets, exact errors.
 */
import type { ReadAt } from './file-range.ts';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { ExactGzipSource } from './gzip-members-spans.ts';
import type { MemberSpan } from './gzip-members-spans.ts';
import { readFailed } from './read-errors.ts';

/** Compressed bytes read (and fed to Gunzip) at a time. */
const READ = 1 << 20;
/** Compressed bytes kept for finding member ends (a member's end is among the last bytes fed). */
const KEEP = 32 << 20;
/** Handed-out bytes kept for checking trailers (the reader is never this far behind). */
const KEEP_OUT = 8 << 20;
/** Smallest gzip member: 10-byte header, 2 bytes of empty deflate data, 8-byte trailer. */
const MIN_MEMBER = 20;

interface Chunk {
  start: number;
  data: Buffer;
}

export class FastGzipSource {
  readonly compressed = true;
  readonly #file: ReadAt;
  readonly #size: number;
  readonly #source: Readable;
  readonly #gunzip: zlib.Gunzip;
  readonly #out: AsyncIterator<Buffer>;
  /** Compressed bytes fed to Gunzip, from the current member on. */
  #chunks: Chunk[] = [];
  #kept = 0;
  /** The last confirmed member start: compressed offset and decompressed position. */
  #c = 0;
  #d = 0;
  /** Decompressed bytes handed out. */
  #h = 0;
  /** Handed-out pieces not yet folded into #crc, starting at decompressed position #recentStart. */
  #recent: Buffer[] = [];
  #recentStart = 0;
  #recentBytes = 0;
  /** CRC32 of the decompressed bytes [#d, #recentStart). */
  #crc = 0;
  /** Gunzip has inflated the whole file. */
  #done = false;
  #exact: ExactGzipSource | null = null;
  #switching: Promise<ExactGzipSource> | null = null;

  constructor(file: ReadAt, size: number) {
    this.#file = file;
    this.#size = size;
    const keep = (c: Chunk): void => this.#keep(c);
    async function* compressed(): AsyncGenerator<Buffer> {
      for (let p = 0; p < size; ) {
        const b = Buffer.allocUnsafe(Math.min(READ, size - p));
        const { bytesRead } = await file.read(b, 0, b.length, p).catch((err: unknown) => {
          throw readFailed(err, p);
        });
        if (bytesRead === 0) break;
        const data = b.subarray(0, bytesRead);
        keep({ start: p, data });
        p += bytesRead;
        yield data;
      }
    }
    this.#source = Readable.from(compressed(), { highWaterMark: 1 });
    // A deep output buffer lets zlib inflate ahead on the thread pool while records are parsed
    // here. Output in 1 MiB pieces: each piece is a round trip through this thread before zlib
    // gets the next one, so with 128 KiB pieces the inflater sat idle through every pause here
    // (GC included); indexing a 306 MB WARC.gz went from 1.8–2.1× to 1.23× the time of a plain
    // gunzip.
    this.#gunzip = zlib.createGunzip({ chunkSize: 1 << 20, readableHighWaterMark: 4 << 20 } as zlib.ZlibOptions);
    this.#source.on('error', (err) => this.#gunzip.destroy(err));
    this.#source.pipe(this.#gunzip);
    this.#out = this.#gunzip[Symbol.asyncIterator]();
  }

  async next(): Promise<Buffer | null> {
    if (this.#exact) return this.#exact.next();
    let r: IteratorResult<Buffer>;
    try {
      r = await this.#out.next();
    } catch {
      return (await this.#toExact()).next(); // the exact path says precisely what is wrong, and where
    }
    if (r.done) {
      if (this.#gunzip.bytesWritten !== this.#size) return (await this.#toExact()).next();
      this.#done = true;
      return null;
    }
    this.#h += r.value.length;
    this.#remember(r.value);
    return r.value;
  }

  /** The member holding decompressed position `pos` (already handed out). */
  memberAt(pos: number): MemberSpan | Promise<MemberSpan> {
    if (this.#exact) return this.#exact.memberAt(pos);
    if (pos === this.#d) return { offset: this.#c, startPos: this.#d, endPos: null, endOffset: null };
    return this.#toExact().then((exact) => exact.memberAt(pos));
  }

  /**
   * The member holding the byte before `end`, with its end if known. Call once the bytes after
   * `end` have been read (or the stream has ended). In the fast path a member ending exactly at
   * `end` is confirmed here, and becomes the new confirmed member start.
   */
  memberEndingAt(end: number): MemberSpan | null | Promise<MemberSpan | null> {
    if (this.#exact) return this.#exact.spanAt(end - 1);
    const q = this.#confirm(end);
    if (q === null) return this.#toExact().then((exact) => exact.spanAt(end - 1));
    const span = { offset: this.#c, startPos: this.#d, endPos: end, endOffset: q };
    this.#c = q;
    this.#d = end;
    this.#forget(end);
    return span;
  }

  async close(): Promise<void> {
    this.#source.destroy();
    this.#gunzip.destroy();
    await this.#exact?.close();
  }

  /** Compressed offset of the member after the one starting at #c, if it ends at decompressed `end`. */
  #confirm(end: number): number | null {
    if (end <= this.#d || end < this.#recentStart) return null;
    const isize = (end - this.#d) % 2 ** 32;
    const crc = this.#crcTo(end);
    const trailerAt = (q: number) => this.#uint32At(q - 4) === isize && this.#uint32At(q - 8) === crc;
    if (this.#done && end === this.#h) {
      // The last record: the last member must end with the file.
      return this.#size - this.#c >= MIN_MEMBER && trailerAt(this.#size) ? this.#size : null;
    }
    for (const chunk of this.#chunks) {
      let i = Math.max(0, this.#c + MIN_MEMBER - chunk.start);
      for (;;) {
        i = chunk.data.indexOf(0x1f, i);
        if (i < 0) break;
        const q = chunk.start + i;
        i++;
        if (this.#byteAt(q + 1) !== 0x8b || this.#byteAt(q + 2) !== 0x08) continue;
        const flags = this.#byteAt(q + 3);
        if (flags === -1 || flags & 0xe0) continue;
        if (trailerAt(q)) return q;
      }
    }
    return null;
  }

  /** CRC32 of the decompressed bytes [#d, end), end >= #recentStart. */
  #crcTo(end: number): number {
    let crc = this.#crc;
    let at = this.#recentStart;
    for (const piece of this.#recent) {
      if (at >= end) break;
      crc = zlib.crc32(piece.subarray(0, Math.min(piece.length, end - at)), crc);
      at += piece.length;
    }
    return crc >>> 0;
  }

  /** Keep a handed-out piece for #crcTo; fold old ones into #crc (the reader lags little behind). */
  #remember(piece: Buffer): void {
    this.#recent.push(piece);
    this.#recentBytes += piece.length;
    while (this.#recentBytes > KEEP_OUT && this.#recent.length > 1) {
      const old = this.#recent.shift()!;
      this.#crc = zlib.crc32(old, this.#crc);
      this.#recentStart += old.length;
      this.#recentBytes -= old.length;
    }
  }

  #byteAt(abs: number): number {
    for (const c of this.#chunks) {
      if (abs >= c.start && abs < c.start + c.data.length) return c.data[abs - c.start]!;
    }
    return -1;
  }

  #uint32At(abs: number): number {
    let v = 0;
    for (let k = 3; k >= 0; k--) {
      const b = this.#byteAt(abs + k);
      if (b < 0) return -1;
      v = v * 256 + b;
    }
    return v;
  }

  #keep(c: Chunk): void {
    this.#chunks.push(c);
    this.#kept += c.data.length;
    while (this.#kept > KEEP && this.#chunks.length > 1) this.#kept -= this.#chunks.shift()!.data.length;
  }

  /** A member was confirmed to end at decompressed `end`: forget what came before it. */
  #forget(end: number): void {
    while (this.#chunks.length > 1 && this.#chunks[0]!.start + this.#chunks[0]!.data.length <= this.#c - 8) {
      this.#kept -= this.#chunks.shift()!.data.length;
    }
    while (this.#recent.length > 0 && this.#recentStart + this.#recent[0]!.length <= end) {
      const old = this.#recent.shift()!;
      this.#recentStart += old.length;
      this.#recentBytes -= old.length;
    }
    if (this.#recent.length > 0 && this.#recentStart < end) {
      this.#recentBytes -= end - this.#recentStart;
      this.#recent[0] = this.#recent[0]!.subarray(end - this.#recentStart);
    }
    this.#recentStart = end;
    this.#crc = 0;
  }

  /** Go on with the exact inflater from the last confirmed member, handing out only new bytes. */
  #toExact(): Promise<ExactGzipSource> {
    this.#switching ??= this.#switch();
    return this.#switching;
  }

  async #switch(): Promise<ExactGzipSource> {
    this.#source.destroy();
    this.#gunzip.destroy();
    this.#chunks = [];
    const exact = new ExactGzipSource(this.#file, this.#c, this.#size, this.#d);
    this.#exact = exact;
    await exact.skipTo(this.#h);
    return exact;
  }
}
