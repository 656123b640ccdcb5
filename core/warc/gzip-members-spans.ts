/**
 * A gzip file as one decompressed byte stream that also knows, for any position it has handed
 * out, which member holds it and where that member starts and ends in the file. Built on the
 * exact member-by-member inflater (GzipMembers); the record reader asks it where records sit.
 */
import type { ReadAt } from './file-range.ts';
import { GzipMembers } from './gzip-members.ts';

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

/** How many members are remembered; a record rarely spans more than two. */
const HISTORY = 16;

export class ExactGzipSource {
  readonly compressed = true;
  readonly #members: GzipMembers;
  readonly #spans: MemberSpan[] = [];
  /** Decompressed position of the next byte next() hands out. */
  #pos: number;
  /** Decompressed position reached by the inflater. */
  #inflated: number;
  /** Inflated bytes not handed out yet (after skipTo). */
  #pending: Buffer | null = null;

  /** Read members from compressed offset `start`, whose first byte is decompressed position `startPos`. */
  constructor(file: ReadAt, start: number, size: number, startPos = 0) {
    this.#members = new GzipMembers(file, start, size);
    this.#pos = startPos;
    this.#inflated = startPos;
  }

  /**
   * Inflate (and drop) everything before decompressed position `pos`, which someone else has
   * already handed out, so the members holding those bytes are known.
   */
  async skipTo(pos: number): Promise<void> {
    while (this.#pos < pos) {
      const data = await this.#pull();
      if (!data) return;
      const k = Math.min(pos - this.#pos, data.length);
      this.#pos += k;
      if (k < data.length) this.#pending = data.subarray(k);
    }
  }

  async next(): Promise<Buffer | null> {
    const p = this.#pending;
    if (p) {
      this.#pending = null;
      this.#pos += p.length;
      return p;
    }
    const data = await this.#pull();
    if (data) this.#pos += data.length;
    return data;
  }

  /** The next non-empty piece, noting where members start and end. */
  async #pull(): Promise<Buffer | null> {
    for (;;) {
      const p = await this.#members.next();
      if (!p) return null;
      const at = this.#inflated;
      this.#inflated += p.data.length;
      if (p.first) {
        this.#spans.push({ offset: p.memberOffset, startPos: at, endPos: null, endOffset: null });
        if (this.#spans.length > HISTORY) this.#spans.shift();
      }
      if (p.memberEnd !== null) {
        const m = this.#spans.at(-1)!;
        m.endPos = this.#inflated;
        m.endOffset = p.memberEnd;
      }
      if (p.data.length > 0) return p.data;
    }
  }

  /** The remembered member holding decompressed position `pos`. */
  spanAt(pos: number): MemberSpan | null {
    for (let k = this.#spans.length - 1; k >= 0; k--) {
      const m = this.#spans[k]!;
      if (m.startPos <= pos && (m.endPos === null || pos < m.endPos)) return m;
    }
    return null;
  }

  /** The latest member seen (for positions no longer remembered). */
  lastSpan(): MemberSpan | null {
    return this.#spans.at(-1) ?? null;
  }

  /** The member holding decompressed position `pos` (already handed out). */
  memberAt(pos: number): MemberSpan {
    return this.spanAt(pos) ?? this.lastSpan() ?? { offset: 0, startPos: -1, endPos: null, endOffset: null };
  }

  /** The member holding the byte before `end` (call once bytes after `end` were read, or at the end). */
  memberEndingAt(end: number): MemberSpan | null {
    return this.spanAt(end - 1);
  }

  close(): Promise<void> {
    return this.#members.close();
  }
}
