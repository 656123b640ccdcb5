/**
 * A forward-only cursor over the decompressed bytes of an archive file: lines, header blocks,
 * exact byte counts and skips, handed out as views into the source's buffers (no copy unless a
 * line straddles two pieces). For gzip sources it passes on the source's knowledge of members,
 * so the record reader can tell whether a record sits alone in its member and what its
 * compressed offset and length are.
 */
import type { ByteSource, MemberSpan } from './read-source.ts';

const EMPTY = Buffer.alloc(0);
const CR = 0x0d;
const LF = 0x0a;

export class ReadCursor {
  readonly #src: ByteSource;
  #buf: Buffer = EMPTY;
  #i = 0;
  /** Decompressed position of #buf[0]. */
  #base: number;
  #eof = false;

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

  /**
   * Gzip: the member holding decompressed position `pos` (already read). Null for plain files.
   * Not a promise when the answer is at hand (the usual case): callers await only promises.
   */
  memberAt(pos: number): MemberSpan | null | Promise<MemberSpan | null> {
    return this.#src.memberAt ? this.#src.memberAt(pos) : null;
  }

  /** Gzip: the member holding the byte before `end`, with its end if known. Null for plain files. */
  memberEndingAt(end: number): MemberSpan | null | Promise<MemberSpan | null> {
    return this.#src.memberEndingAt ? this.#src.memberEndingAt(end) : null;
  }

  /** File offset for a position: itself in a plain file, its member's offset in a gzip file. */
  async fileOffset(pos: number): Promise<number> {
    return (await this.memberAt(pos))?.offset ?? pos;
  }

  /** Unread bytes already in memory, as a view (nothing is consumed). */
  get view(): Buffer {
    return this.#buf.subarray(this.#i);
  }

  /** Consume `n` bytes that are in memory (`n` at most `buffered`). */
  advance(n: number): void {
    this.#i += Math.min(n, this.#buf.length - this.#i);
  }

  /**
   * The next line (or `max` bytes with no LF) if it is already in memory, else null and nothing
   * consumed: then call readLine. The synchronous fast path for the reader's hot loop.
   */
  lineInMemory(max: number): Buffer | null {
    const lf = this.#buf.indexOf(LF, this.#i);
    if (lf >= 0 && lf - this.#i < max) return this.#take(lf + 1 - this.#i);
    if (this.#buf.length - this.#i >= max) return this.#take(max);
    return null;
  }

  /** Like readHeaderBlock for a block already wholly in memory, else null and nothing consumed. */
  headerBlockInMemory(max: number): Buffer | null {
    let lineStart = this.#i;
    for (;;) {
      const lf = this.#buf.indexOf(LF, lineStart);
      if (lf < 0 || lf + 1 - this.#i > max) return null;
      let k = lineStart;
      while (k < lf && this.#buf[k] === CR) k++;
      if (k === lf) return this.#take(lf + 1 - this.#i);
      lineStart = lf + 1;
    }
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
      this.#buf = p;
      this.#i = 0;
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
    this.#base += this.#i;
    this.#buf = rest.length === 0 ? p : Buffer.concat([rest, p]);
    this.#i = 0;
    return true;
  }
}
