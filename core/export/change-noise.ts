/**
 * What does not count as a change between two captures of a page: the noise a site puts in on
 * every request. Two captures whose normalized text is equal are "unchanged", whatever else their
 * bytes differ in. Written by hand because it is a policy, not a parser: a few masks over the
 * visible text (extract/html-links.ts gives it; markup, scripts, attributes such as a hidden
 * CSRF token's value, and link URLs are not text, so they never count) and over URLs.
 *
 * Text: whitespace runs collapse; dates and times (ISO 8601, RFC 1123 / HTTP dates, "Apr 09,
 * 2023", "09/04/2023", "10:42:07", Unix epochs of 10 or 13 digits) become `<time>`; long
 * token-like words (16+ letters and digits with at least 3 digits, or hex of 16+: session ids, CSRF tokens, nonces
 * that a page prints) become `<token>`.
 * URLs: the query parameters sites use to defeat caches (`_`, `cb`, `cachebust`, `nocache`,
 * `rand`, `random`, `ts`, `t`, `timestamp`, `v`, `ver`, `version`, `bust`) are dropped, so
 * `page.html?_=1700000000` and `page.html` are one page.
 */

const MONTHS = '(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\\.?';
const DAYS = '(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\\.?,?';
const TIME_PATTERNS: RegExp[] = [
  // 2026-12-05T06:28:44.123Z, 2026-12-05 06:28, 2026-12-05
  /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/gi,
  // Sat, 05 Dec 2026 06:28:44 GMT / 5 December 2026 / Dec 5, 2026 / Apr 09, 2023
  new RegExp(`\\b(?:${DAYS}\\s+)?\\d{1,2}\\s+${MONTHS}\\s+\\d{4}\\b`, 'gi'),
  new RegExp(`\\b(?:${DAYS}\\s+)?${MONTHS}\\s+\\d{1,2}(?:st|nd|rd|th)?,?\\s+\\d{4}\\b`, 'gi'),
  // 05/12/2026, 12.05.2026
  /\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b/g,
  // 06:28, 06:28:44, 6:28 pm, with an optional zone
  /\b\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s*[ap]\.?m\.?)?(?:\s*(?:utc|gmt|[a-z]{2,4}t|[+-]\d{2}:?\d{2}))?\b/gi,
  // Unix epochs in seconds or milliseconds (2001–2286)
  /\b1\d{9}(?:\d{3})?\b/g,
];
const TOKEN = /\b(?=(?:[a-z_-]*\d){3})(?=[a-z0-9_-]*[a-z])[a-z0-9_-]{16,}\b|\b[0-9a-f]{16,}\b/gi;

/** The page's visible text with the noise masked: equal results mean "unchanged". */
export function normalizePageText(text: string): string {
  let t = text.replace(/\s+/g, ' ').trim();
  for (const p of TIME_PATTERNS) t = t.replace(p, '<time>');
  t = t.replace(TOKEN, '<token>');
  return t.replace(/(?:<time>[\s,]*)+/g, '<time> ').replace(/\s+/g, ' ').trim();
}

/** Query parameters that only defeat caches. */
const CACHE_BUSTERS = new Set(['_', 'cb', 'cachebust', 'cachebuster', 'nocache', 'rand', 'random', 'ts', 't', 'timestamp', 'v', 'ver', 'version', 'bust']);

/** The URL a page is known by in a change report: without cache-busting parameters or fragment. */
export function normalizePageUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  u.hash = '';
  const keep = [...u.searchParams].filter(([k]) => !CACHE_BUSTERS.has(k.toLowerCase()));
  u.search = '';
  for (const [k, v] of keep) u.searchParams.append(k, v);
  return u.toString();
}
