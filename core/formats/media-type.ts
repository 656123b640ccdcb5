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
  const t = contentType.trim().split(/[;\s]/, 1)[0]!.toLowerCase();
  return t === '' ? null : t;
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
