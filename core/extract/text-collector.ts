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
 * Whether `s` holds a character of JavaScript's `\s` (what collapsing replaces): ASCII whitespace,
 * U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF. A loop over
 * char codes, because the tokenizer's text chunks almost never hold one (it hands whitespace runs
 * over apart), and a regex per chunk was a measurable share of extraction time.
 */
export function hasWhitespace(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xa0) {
      if (c === 0x20 || (c >= 0x09 && c <= 0x0d)) return true;
    } else if (
      c === 0xa0 ||
      c === 0x1680 ||
      (c >= 0x2000 && (c <= 0x200a || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f)) ||
      c === 0x3000 ||
      c === 0xfeff
    ) {
      return true;
    }
  }
  return false;
}

/**
 * Pieces of text are joined this many at a time into `parts`: the small strings then die young,
 * and the final join is short (an array of millions of small strings measured slower).
 */
const BATCH = 1024;

export class TextCollector {
  /** Text so far: joined batches, then the latest pieces. */
  private readonly parts: string[] = [];
  private readonly batch: string[] = [];
  private length = 0;
  private pendingSpace = false;
  private readonly max: number;
  full = false;

  constructor(maxChars: number) {
    this.max = maxChars;
  }

  /** A word boundary: at most one space is written, and only between words. */
  space(): void {
    if (this.length > 0) this.pendingSpace = true;
  }

  /** Text with no markup; its own whitespace is collapsed. */
  add(chars: string): void {
    if (this.full || chars === '') return;
    if (!hasWhitespace(chars)) {
      // The usual case, a chunk with nothing to collapse.
      if (this.pendingSpace) {
        this.pendingSpace = false;
        this.push(' ');
      }
      this.push(chars);
      return;
    }
    let s = chars.replace(/\s+/g, ' ');
    if (s.startsWith(' ')) {
      this.space();
      s = s.slice(1);
    }
    const trailing = s.endsWith(' ');
    if (trailing) s = s.slice(0, -1);
    if (s !== '') {
      if (this.pendingSpace) this.push(' ');
      this.pendingSpace = false;
      this.push(s);
    }
    if (trailing) this.space();
  }

  toString(): string {
    if (this.parts.length === 0) return this.batch.join('');
    return this.parts.join('') + this.batch.join('');
  }

  private push(s: string): void {
    if (this.full) return;
    const room = this.max - this.length;
    if (s.length >= room) {
      let cut = s.slice(0, room);
      // Do not leave half a surrogate pair at the cut.
      const last = cut.charCodeAt(cut.length - 1);
      if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
      this.batch.push(cut);
      this.length += cut.length;
      this.full = true;
      return;
    }
    this.batch.push(s);
    this.length += s.length;
    if (this.batch.length >= BATCH) {
      this.parts.push(this.batch.join(''));
      this.batch.length = 0;
    }
  }
}
