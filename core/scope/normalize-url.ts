/**
 * The URL Trove fetches. Parsing is WHATWG `URL` (what browsers do, so a link resolves the way
 * the page's author saw it resolve); this wrapper only narrows it to what a crawler can fetch and
 * turns failures into typed errors.
 */
import { TroveError } from '../errors.ts';

const FETCHABLE = new Set(['http:', 'https:']);

/**
 * Resolve `raw` (trimmed) against `base`, accept only http/https, drop the fragment.
 * Throws `URL_INVALID` for anything WHATWG cannot parse (or a bad base), and
 * `URL_UNSUPPORTED_SCHEME` for mailto:, javascript:, data:, ftp: and the like.
 */
export function normalizeUrl(raw: string, base?: string): string {
  return parseFetchableUrl(raw, base).href;
}

/**
 * `normalizeUrl`'s parse, kept: the WHATWG URL (http/https, fragment dropped) whose `href` is
 * what normalizeUrl returns. The crawl thread parses each outlink once and hands the parts to the
 * scope rules and the queue key instead of parsing the string again in each (the caller must not
 * change the object it passes on).
 */
export function parseFetchableUrl(raw: string, base?: string): URL {
  const url = parseUrl(raw, base);
  if (!FETCHABLE.has(url.protocol)) {
    throw new TroveError('URL_UNSUPPORTED_SCHEME', `Only http and https URLs can be crawled, not ${url.protocol} (${clip(raw)})`, {
      url: raw,
      scheme: url.protocol.slice(0, -1),
    });
  }
  url.hash = '';
  return url;
}

/** WHATWG parse with a typed error; any scheme. Used where a non-http URL is still worth judging. */
export function parseUrl(raw: string, base?: string): URL {
  if (typeof raw !== 'string') {
    throw new TroveError('URL_INVALID', `A URL must be a string, got ${typeof raw}`, { url: String(raw) });
  }
  const input = raw.trim();
  let parsed: URL | null = null;
  try {
    parsed = new URL(input, base === undefined ? undefined : base);
  } catch {
    parsed = null;
  }
  if (parsed === null) {
    const where = base === undefined ? '' : ` (base ${clip(base)})`;
    throw new TroveError('URL_INVALID', `Not a valid URL: ${clip(raw)}${where}`, { url: raw, base });
  }
  return parsed;
}

/** Keep error messages readable when a link is a megabyte of data: URL. */
function clip(s: string): string {
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}
