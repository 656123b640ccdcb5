/**
 * Visible text of a page for full-text search: runs of whitespace collapse to one space, block
 * elements separate words (`a<p>b` reads "a b", `<b>W</b>ord` reads "Word"), and the total is
 * capped so a huge page costs a bounded amount of memory and index space.
 */

/** Phrasing elements that do not break words apart; every other tag acts as a space. */
const INLINE_ELEMENTS = new Set([
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

export class TextCollector {
  private readonly parts: string[] = [];
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
    return this.parts.join('');
  }

  private push(s: string): void {
    const room = this.max - this.length;
    if (s.length >= room) {
      let cut = s.slice(0, room);
      // Do not leave half a surrogate pair at the cut.
      const last = cut.charCodeAt(cut.length - 1);
      if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
      this.parts.push(cut);
      this.length += cut.length;
      this.full = true;
      return;
    }
    this.parts.push(s);
    this.length += s.length;
  }
}
