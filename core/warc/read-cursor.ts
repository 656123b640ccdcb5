/**
 * A forward-only cursor over the decompressed bytes of an archive file: lines, header blocks,
 * exact byte counts and skips, handed out as views into the source's buffers (no copy unless a
 * line straddles two pieces). For gzip sources it also remembers where recent members started
 * and ended, in both the decompressed stream and the file, so the record reader can tell
 * whether a record sits alone in its member and what its compressed offset and length are.
 */
import type { ByteSource, SourcePiece } from './read-source.ts';

const EMPTY = Buffer.alloc(0);
const CR = 0x0d;
const LF = 0x0a;
/** How many gzip members behind the cursor are remembered (a record rarely spans more than two). */
const MEMBER_HISTORY = 8;

/** A gzip member as seen from the decompressed stream. */
export interface MemberSpan {
  /** Compressed offset of the member. */
  offset: number;
  /** Decompressed position of its first byte. */
  startPos: number;
  /** Decompressed position just past its last byte, once known. */
  endPos: number | null;
  /** Compressed offset just past its trailer, once known. */
  endOffset: number | null;
}

export class ReadCursor {
  readonly #src: ByteSource;
  #buf: Buffer = EMPTY;
  #i = 0;
  /** Decompressed position of #buf[0]. */
  #base: number;
  #eof = false;
  readonly #members: MemberSpan[] = [];

  /** `start` is the decompressed position of the source's first byte (its file offset for plain files). */
  constructor(src: ByteSource, start = 0) {
    this.#src = src;
    this.#base = start;
  }

  get compressed(): boolean {
    return this.#src.compressed;
  }

  /** Decompressed position of the next byte. */
  get position(): number {
    return this.#base + this.#i;
  }

  /** Unread bytes already in memory (readable without I/O). */
  get buffered(): number {
    return this.#buf.length - this.#i;
  }

  /** The gzip member holding decompressed position `pos` (it must have been loaded), if remembered. */
  memberAt(pos: number): MemberSpan | null {
    for (let k = this.#members.length - 1; k >= 0; k--) {
      const m = this.#members[k]!;
      if (m.startPos <= pos && (m.endPos === null || pos < m.endPos)) return m;
    }
    return null;
  }

  /** File offset for a position: itself in a plain file, its member's offset in a gzip file. */
  fileOffset(pos: number): number {
    if (!this.#src.compressed) return pos;
    return this.memberAt(pos)?.offset ?? this.#members.at(-1)?.offset ?? 0;
  }

  /** Make sure at least one unread byte is buffered. False at the end of the stream. */
  async fill(): Promise<boolean> {
    while (this.#i >= this.#buf.length) {
      if (this.#eof) return false;
      const p = await this.#src.next();
      if (!p) {
        this.#eof = true;
        return false;
      }
      this.#base += this.#buf.length;
      this.#buf = p.data;
      this.#i = 0;
      this.#track(p, this.#base);
    }
    return true;
  }

  /** The next byte without consuming it, or -1 at the end. */
  async peekByte(): Promise<number> {
    return (await this.fill()) ? this.#buf[this.#i]! : -1;
  }

  /** Up to `n` bytes from the current position, not consumed (fewer only at the end). */
  async peek(n: number): Promise<Buffer> {
    while (this.#buf.length - this.#i < n && (await this.#append())) {
      // keep appending pieces
    }
    return this.#buf.subarray(this.#i, this.#i + n);
  }

  /**
   * The next line including its LF, or at most `max` bytes if no LF comes sooner (the caller
   * sees no LF at the end), or what is left at the end of the stream; null when nothing is left.
   */
  async readLine(max: number): Promise<Buffer | null> {
    if (!(await this.fill())) return null;
    let scanned = 0; // unread bytes already searched for an LF
    for (;;) {
      const lf = this.#buf.indexOf(LF, this.#i + scanned);
      if (lf >= 0 && lf - this.#i < max) return this.#take(lf + 1 - this.#i);
      if (this.#buf.length - this.#i >= max) return this.#take(max);
      scanned = this.#buf.length - this.#i;
      if (!(await this.#append())) return this.#take(this.#buf.length - this.#i);
    }
  }

  /** Skip through the next LF (or to the end); returns the number of bytes skipped. */
  async skipLine(): Promise<number> {
    let skipped = 0;
    while (await this.fill()) {
      const lf = this.#buf.indexOf(LF, this.#i);
      if (lf >= 0) {
        skipped += lf + 1 - this.#i;
        this.#i = lf + 1;
        return skipped;
      }
      skipped += this.#buf.length - this.#i;
      this.#i = this.#buf.length;
    }
    return skipped;
  }

  /**
   * Lines up to and including the first empty line (a line holding only CRs). `complete` is
   * false when the stream ended first or `max` bytes passed without one.
   */
  async readHeaderBlock(max: number): Promise<{ bytes: Buffer; complete: boolean }> {
    if (!(await this.fill())) return { bytes: EMPTY, complete: false };
    let lineStart = this.#i;
    for (;;) {
      const lf = this.#buf.indexOf(LF, lineStart);
      if (lf < 0) {
        if (this.#buf.length - this.#i >= max) return { bytes: this.#take(this.#buf.length - this.#i), complete: false };
        const done = this.#i;
        const before = lineStart - done;
        if (!(await this.#append())) return { bytes: this.#take(this.#buf.length - this.#i), complete: false };
        lineStart = this.#i + before;
        continue;
      }
      let k = lineStart;
      while (k < lf && this.#buf[k] === CR) k++;
      if (k === lf) return { bytes: this.#take(lf + 1 - this.#i), complete: true };
      if (lf + 1 - this.#i > max) return { bytes: this.#take(lf + 1 - this.#i), complete: false };
      lineStart = lf + 1;
    }
  }

  /** Up to `n` bytes as one buffer (a view when they are contiguous); fewer only at the end. */
  async readBytes(n: number): Promise<Buffer> {
    if (!(await this.fill())) return EMPTY;
    if (this.#buf.length - this.#i >= n) return this.#take(n);
    const parts: Buffer[] = [];
    let got = 0;
    while (got < n && (await this.fill())) {
      const k = Math.min(n - got, this.#buf.length - this.#i);
      parts.push(this.#take(k));
      got += k;
    }
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts, got);
  }

  /** The next run of at most `n` bytes, as a view; empty only at the end of the stream. */
  async readSome(n: number): Promise<Buffer> {
    if (n <= 0 || !(await this.fill())) return EMPTY;
    return this.#take(Math.min(n, this.#buf.length - this.#i));
  }

  /** Skip up to `n` bytes (without reading them from a plain file); returns how many were skipped. */
  async skip(n: number): Promise<number> {
    let left = n;
    const inBuf = Math.min(left, this.#buf.length - this.#i);
    this.#i += inBuf;
    left -= inBuf;
    if (left > 0 && this.#src.skip && !this.#eof) {
      // Nothing buffered is left: move the plain file's read position instead of reading.
      const k = this.#src.skip(left);
      this.#base += this.#buf.length + k;
      this.#buf = EMPTY;
      this.#i = 0;
      left -= k;
    }
    while (left > 0 && (await this.fill())) {
      const k = Math.min(left, this.#buf.length - this.#i);
      this.#i += k;
      left -= k;
    }
    return n - left;
  }

  #take(n: number): Buffer {
    const b = this.#buf.subarray(this.#i, this.#i + n);
    this.#i += n;
    return b;
  }

  /** Load one more piece behind the unread bytes (copying them). False at the end. */
  async #append(): Promise<boolean> {
    if (this.#eof) return false;
    const p = await this.#src.next();
    if (!p) {
      this.#eof = true;
      return false;
    }
    const rest = this.#buf.subarray(this.#i);
    const pieceBase = this.#base + this.#buf.length;
    this.#base += this.#i;
    this.#buf = rest.length === 0 ? p.data : Buffer.concat([rest, p.data]);
    this.#i = 0;
    this.#track(p, pieceBase);
    return true;
  }

  #track(p: SourcePiece, pieceBase: number): void {
    if (!this.#src.compressed) return;
    if (p.first) {
      this.#members.push({ offset: p.memberOffset, startPos: pieceBase, endPos: null, endOffset: null });
      // Forget old members, but never one that ends after the cursor (peeks load ahead).
      const pos = this.position;
      while (this.#members.length > MEMBER_HISTORY && (this.#members[0]!.endPos ?? Infinity) <= pos) this.#members.shift();
    }
    if (p.memberEnd !== null) {
      const m = this.#members.at(-1);
      if (m) {
        m.endPos = pieceBase + p.data.length;
        m.endOffset = p.memberEnd;
      }
    }
  }
}
