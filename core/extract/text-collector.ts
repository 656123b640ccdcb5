/**
 * Visible text of a page for full-text search: runs of whitespace collapse to one space, block
 * elements separate words (`a<p>b` reads "a b", `<b>W</b>ord` reads "Word"), and the total is
 * capped so a huge page costs a bounded amount of memory and index space.
 */

/** Phrasing elements that do not break words apart; every other tag acts as a space. */
export const INLINE_ELEMENTS: ReadonlySet<string> = new Set([
  'a',
  'abbr',
  'b',
  'bdi',
  'bdo',
  'cite',
  'code',
  'data',
  'dfn',
  'em',
  'font',
  'i',
  'kbd',
  'mark',
  'q',
  's',
  'samp',
  'small',
  'span',
  'strike',
  'strong',
  'sub',
  'sup',
  'time',
  'tt',
  'u',
  'var',
  'wbr',
]);

export function isInlineElement(tag: string): boolean {
  return INLINE_ELEMENTS.has(tag);
}

/**
 * Raw pieces are collapsed this many at a time (or once they hold BATCH_CHARS code units): one
 * join and one regex over a batch instead of a regex per piece, and the raw text held at once
 * stays small.
 */
const BATCH = 1024;
const BATCH_CHARS = 256 * 1024;

/**
 * The whitespace runs that collapsing to one space changes: `\s+` → ' ' leaves a run that is a
 * single U+0020 as it was, and those are most runs in prose (each gap between two words), so
 * they are not matched at all. A run starting with any other `\s` character is matched by the
 * first branch, one starting with a space and going on by the second; both take the whole run
 * (greedy), and a match can only start where a run starts. So the result equals
 * `replace(/\s+/g, ' ')`, with about a fifth of its matches on the Python docs.
 */
const CHANGING_WHITESPACE = /[^\S ]\s*| \s+/g;

/**
 * Pieces are kept raw, with a ' ' for each word boundary, and collapsed a batch at a time: whitespace
 * runs collapse the same whether cut into pieces or not, so the result equals collapsing each piece
 * as it comes (what this class did before; test/extract/text-collector.test.ts keeps that version
 * as the reference). `full` is exact whenever it is read: it collapses what is pending first if the
 * cap could have been reached.
 */
export class TextCollector {
  /** Collapsed text so far, in pieces (no trailing space: a pending one is `pendingSpace`). */
  private readonly parts: string[] = [];
  /** Raw pieces not collapsed yet. */
  private readonly batch: string[] = [];
  private batchChars = 0;
  /** Length of the collapsed text in `parts`. */
  private length = 0;
  private pendingSpace = false;
  /** The last raw piece in `batch` is a boundary's ' '. */
  private spaceLast = false;
  private readonly max: number;
  private isFull = false;

  constructor(maxChars: number) {
    this.max = maxChars;
  }

  /** Whether the cap is reached: no more text is taken. */
  get full(): boolean {
    if (!this.isFull && this.batch.length > 0 && this.mayFill()) this.collapse();
    return this.isFull;
  }

  /** Whether collapsing the batch could reach the cap (collapsing never lengthens text). */
  private mayFill(): boolean {
    return this.length + (this.pendingSpace ? 1 : 0) + this.batchChars >= this.max;
  }

  /**
   * A word boundary: at most one space is written, and only between words. A boundary right after
   * another adds nothing (whitespace collapses): on the Python docs two thirds of the pieces were
   * such spaces, one per block tag.
   */
  space(): void {
    if (this.isFull || this.spaceLast) return;
    this.batch.push(' ');
    this.batchChars++;
    this.spaceLast = true;
  }

  /** Text with no markup; its own whitespace is collapsed. */
  add(chars: string): void {
    if (this.isFull || chars === '') return;
    this.spaceLast = false;
    this.batch.push(chars);
    this.batchChars += chars.length;
    if (this.batch.length >= BATCH || this.batchChars >= BATCH_CHARS || this.mayFill()) this.collapse();
  }

  toString(): string {
    this.collapse();
    return this.parts.join('');
  }

  /** Collapse the raw batch onto the text: leading and trailing spaces become `pendingSpace`. */
  private collapse(): void {
    if (this.batch.length === 0) return;
    let s = this.batch.join('').replace(CHANGING_WHITESPACE, ' ');
    this.batch.length = 0;
    this.spaceLast = false;
    this.batchChars = 0;
    if (this.isFull) return;
    if (s.startsWith(' ')) {
      if (this.length > 0) this.pendingSpace = true;
      s = s.slice(1);
    }
    const trailing = s.endsWith(' ');
    if (trailing) s = s.slice(0, -1);
    if (s === '') return;
    if (this.pendingSpace) this.write(' ');
    this.pendingSpace = false;
    this.write(s);
    if (trailing) this.pendingSpace = true;
  }

  private write(s: string): void {
    if (this.isFull) return;
    const room = this.max - this.length;
    if (s.length >= room) {
      let cut = s.slice(0, room);
      // Do not leave half a surrogate pair at the cut.
      const last = cut.charCodeAt(cut.length - 1);
      if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
      this.parts.push(cut);
      this.length += cut.length;
      this.isFull = true;
      return;
    }
    this.parts.push(s);
    this.length += s.length;
  }
}
