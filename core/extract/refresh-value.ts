/**
 * The value of a `Refresh` header or `<meta http-equiv=refresh content=…>`: `5; url=next.html`.
 * Both follow the same WHATWG "shared declarative refresh steps", so one parser serves both.
 * Written by hand: it is a dozen lines and no library exposes the steps.
 */

/**
 * The raw (unresolved) URL of a refresh value, or null when it only reloads the same page.
 * Tolerant as browsers are: `0;URL='x'`, `0, x`, `0 url=x` and a bare `x` after the delay all work.
 */
export function refreshTarget(content: string): string | null {
  let s = content.trim();
  // The delay: digits and dots. A value with no delay at all is not a refresh.
  const delay = /^[0-9.]*/.exec(s)![0];
  if (delay === '') return null;
  s = s.slice(delay.length).trimStart();
  if (s.startsWith(';') || s.startsWith(',')) s = s.slice(1).trimStart();
  if (s === '') return null;
  const named = /^url\s*=\s*/i.exec(s);
  if (named) s = s.slice(named[0].length);
  const quote = s[0];
  if (quote === '"' || quote === "'") {
    const end = s.indexOf(quote, 1);
    s = end < 0 ? s.slice(1) : s.slice(1, end);
  }
  s = s.trim();
  return s === '' ? null : s;
}
