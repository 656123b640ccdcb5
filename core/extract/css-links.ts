/**
 * URLs in CSS: `url(…)` (quoted, unquoted, with CSS escapes), `@import "x"`, `@import url(x)`
 * and the strings inside `image-set(…)`. Everything found is an embed (E): a stylesheet's
 * URLs are what the page needs to render.
 *
 * A hand-written single-pass scanner rather than a CSS library: full parsers (css-tree, postcss)
 * build an AST of the whole sheet, throw or recover differently on broken CSS, and cost far
 * more than this needs; a regex risks catastrophic backtracking on hostile input (long runs of
 * quotes, unterminated `url(`). This scanner only tokenizes comments, strings, identifiers and
 * parentheses, never looks back, and so runs in linear time on any input.
 */
import { OutlinkList } from './outlink.ts';
import type { Outlink } from './outlink.ts';

export type CssUrlKind = 'url' | 'import' | 'image-set';

/** Context strings used in outlinks, by how the URL was written. */
export const CSS_CONTEXT: Record<CssUrlKind, string> = {
  url: 'css/url()',
  import: 'css/@import',
  'image-set': 'css/image-set()',
};

export function extractCss(text: string, baseUrl: string, maxLinks: number): Outlink[] {
  const list = new OutlinkList(maxLinks);
  const base = URL.parse(baseUrl);
  if (base === null) return [];
  scanCssUrls(text, (raw, kind) => {
    list.addRaw(raw, base, 'E', CSS_CONTEXT[kind]);
    return !list.truncated;
  });
  return list.outlinks;
}

/**
 * Call `onUrl` with every raw (unresolved, unescaped) URL in `text`, in order. Return false
 * from `onUrl` to stop early.
 */
export function scanCssUrls(text: string, onUrl: (raw: string, kind: CssUrlKind) => boolean): void {
  const n = text.length;
  let i = 0;
  let afterImport = false; // the last significant token was `@import`
  let depth = 0; // parenthesis depth
  const imageSetDepths: number[] = []; // depths at which an image-set( opened

  while (i < n) {
    const c = text.charCodeAt(i);

    if (c === 0x2f /* / */ && text.charCodeAt(i + 1) === 0x2a /* * */) {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
      continue;
    }
    if (isWhitespace(c)) {
      i++;
      continue;
    }
    if (c === 0x22 || c === 0x27) {
      const s = readString(text, i);
      i = s.end;
      if (s.value !== null) {
        let kind: CssUrlKind | null = null;
        if (afterImport) kind = 'import';
        else if (imageSetDepths.length > 0 && imageSetDepths[imageSetDepths.length - 1] === depth) kind = 'image-set';
        if (kind !== null && s.value.trim() !== '' && !onUrl(s.value, kind)) return;
      }
      afterImport = false;
      continue;
    }
    if (c === 0x40 /* @ */) {
      const id = readIdent(text, i + 1);
      afterImport = id.value.toLowerCase() === 'import';
      i = Math.max(id.end, i + 1);
      continue;
    }
    if (isIdentStart(text, i)) {
      const id = readIdent(text, i);
      i = id.end;
      if (text.charCodeAt(i) === 0x28 /* ( */) {
        const name = id.value.toLowerCase();
        if (name === 'url') {
          const u = readUrlBody(text, i + 1);
          i = u.end;
          if (u.value !== null && u.value !== '' && !onUrl(u.value, afterImport ? 'import' : 'url')) return;
          afterImport = false;
          continue;
        }
        i++;
        depth++;
        if (name === 'image-set' || name === '-webkit-image-set') imageSetDepths.push(depth);
      }
      afterImport = false;
      continue;
    }
    if (c === 0x28) depth++;
    else if (c === 0x29 /* ) */) {
      if (imageSetDepths[imageSetDepths.length - 1] === depth) imageSetDepths.pop();
      if (depth > 0) depth--;
    }
    afterImport = false;
    i++;
  }
}

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x0c;
}

function isNameChar(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x5f || c >= 0x80
  );
}

function isIdentStart(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c >= 0x80) return true;
  if (c === 0x5c /* \ */) return i + 1 < text.length && text.charCodeAt(i + 1) !== 0x0a;
  if (c === 0x2d /* - */) {
    const d = text.charCodeAt(i + 1);
    return d === 0x2d || (d >= 0x61 && d <= 0x7a) || (d >= 0x41 && d <= 0x5a) || d === 0x5f || d >= 0x80 || d === 0x5c;
  }
  return false;
}

/** Read an identifier (with escapes) starting at `i`. */
function readIdent(text: string, i: number): { value: string; end: number } {
  let value = '';
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (isNameChar(c)) {
      value += text[i];
      i++;
    } else if (c === 0x5c && i + 1 < n && text.charCodeAt(i + 1) !== 0x0a) {
      const e = readEscape(text, i + 1);
      value += e.value;
      i = e.end;
    } else break;
  }
  return { value, end: i };
}

/** A CSS escape after the backslash at `i - 1`: up to six hex digits and one optional space, or one literal character. */
function readEscape(text: string, i: number): { value: string; end: number } {
  const n = text.length;
  let j = i;
  while (j < n && j - i < 6 && isHex(text.charCodeAt(j))) j++;
  if (j > i) {
    let cp = parseInt(text.slice(i, j), 16);
    if (cp === 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) cp = 0xfffd;
    if (j < n && isWhitespace(text.charCodeAt(j))) {
      j += text.charCodeAt(j) === 0x0d && text.charCodeAt(j + 1) === 0x0a ? 2 : 1;
    }
    return { value: String.fromCodePoint(cp), end: j };
  }
  if (i >= n) return { value: '\ufffd', end: n };
  const cp = text.codePointAt(i)!;
  return { value: String.fromCodePoint(cp), end: i + (cp > 0xffff ? 2 : 1) };
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

/** A quoted string at `i` (the quote). `value` is null for a bad string (an unescaped newline). */
function readString(text: string, i: number): { value: string | null; end: number } {
  const quote = text.charCodeAt(i);
  const n = text.length;
  let value = '';
  let runStart = ++i;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === quote) return { value: value + text.slice(runStart, i), end: i + 1 };
    if (c === 0x0a || c === 0x0d || c === 0x0c) return { value: null, end: i };
    if (c === 0x5c) {
      value += text.slice(runStart, i);
      const d = text.charCodeAt(i + 1);
      if (i + 1 >= n) {
        i++;
      } else if (d === 0x0a || d === 0x0c) {
        i += 2; // escaped newline: a line continuation
      } else if (d === 0x0d) {
        i += text.charCodeAt(i + 2) === 0x0a ? 3 : 2;
      } else {
        const e = readEscape(text, i + 1);
        value += e.value;
        i = e.end;
      }
      runStart = i;
      continue;
    }
    i++;
  }
  return { value: value + text.slice(runStart, n), end: n }; // EOF ends a string
}

/**
 * The inside of `url(` starting after the parenthesis. Quoted or unquoted; an unterminated
 * `url(` at the end of input gives null. Tolerates what broken pages contain: stray quotes
 * around an unquoted value (`url(\"a.gif\")`, `url(''a.gif'')`) are stripped.
 */
function readUrlBody(text: string, i: number): { value: string | null; end: number } {
  const n = text.length;
  while (i < n && isWhitespace(text.charCodeAt(i))) i++;
  const start = i;
  const first = text.charCodeAt(i);
  let quoted: string | null = null;
  if (first === 0x22 || first === 0x27) {
    const s = readString(text, i);
    quoted = s.value;
    i = s.end;
  }
  // Read to the closing parenthesis (unquoted values may contain escapes, including `\)`).
  let raw = '';
  let runStart = i;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x29) break;
    if (c === 0x5c && i + 1 < n) {
      raw += text.slice(runStart, i);
      const e = readEscape(text, i + 1);
      raw += e.value;
      i = e.end;
      runStart = i;
      continue;
    }
    i++;
  }
  if (i >= n) return { value: null, end: n };
  raw += text.slice(runStart, i);
  const end = i + 1;
  if (quoted !== null && !/^['"\\\s]*$/.test(quoted)) return { value: quoted.trim(), end };
  // Unquoted, or a quoted string of nothing but quotes followed by more text: strip stray quotes and backslashes.
  const whole = quoted === null ? raw : text.slice(start, i);
  return { value: stripStrayQuotes(whole.trim()).trim(), end };
}

const isStrayQuote = (c: number) => c === 0x22 || c === 0x27 || c === 0x5c; // " ' \

/**
 * `s` without its leading and trailing quotes and backslashes, by a scan from each end: the
 * regex `/['"\\]+$/` it replaces tried every run of them as a start, so a value of n quotes
 * followed by other text took O(n²) (100,000 of them: 9 s), which the crawl thread, where
 * documents are now extracted, cannot afford.
 */
export function stripStrayQuotes(s: string): string {
  let from = 0;
  let to = s.length;
  while (from < to && isStrayQuote(s.charCodeAt(from))) from++;
  while (to > from && isStrayQuote(s.charCodeAt(to - 1))) to--;
  return s.slice(from, to);
}
