/**
 * The media type of a Content-Type value, the one rule every index row, CDXJ line, crawl
 * statistic and extractor uses: trimmed, cut before the parameters, lower-cased.
 *
 * RFC 9110 §8.3.1: type and subtype are case-insensitive tokens, so `Text/HTML` is `text/html`,
 * and a token holds no whitespace, so the type ends at `;` or at the first space — pywb and
 * warcio cut at either (`text/html charset=utf-8`, a common malformation, is `text/html`).
 */
import { fieldValue, type FieldList } from './http-fields.ts';

/** `text/html` from `Text/HTML; charset=UTF-8`; null when there is no type. */
export function mediaType(contentType: string | null | undefined): string | null {
  if (!contentType) return null;
  // Up to the first `;` or whitespace after the leading whitespace (what `split(/[;\s]/, 1)` of
  // the trimmed value gave), found by a scan: a few calls per URI on the crawl thread (issue 20).
  const s = contentType.trim();
  let end = 0;
  while (end < s.length && s.charCodeAt(end) !== 0x3b && !isSpace(s.charCodeAt(end))) end++;
  return end === 0 ? null : (end === s.length ? s : s.slice(0, end)).toLowerCase();
}

/** The media type of a head's (first) Content-Type field; null when it has none. */
export function headMediaType(fields: FieldList | undefined): string | null {
  return mediaType(fieldValue(fields, 'content-type'));
}

/** Media types parsed as HTML documents (the extractor's, the page list's, replay's and the mirror's test). */
const HTML_TYPES: ReadonlySet<string> = new Set(['text/html', 'application/xhtml+xml', 'application/vnd.wap.xhtml+xml']);

/** Whether a media type (as `mediaType` gives it) is an HTML document. */
export function isHtmlType(type: string | null | undefined): boolean {
  return !!type && HTML_TYPES.has(type);
}

/** What `\s` matches (ECMAScript WhiteSpace and LineTerminator), by code unit. */
function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}
