/**
 * The Netscape cookies.txt format that wget (`--load-cookies`), curl (`-b`/`-c`) and yt-dlp
 * (`--cookies`) share: one cookie a line, seven tab-separated fields
 *
 *   domain  include-subdomains  path  secure  expires  name  value
 *
 * `TRUE`/`FALSE` flags, `expires` in seconds since the epoch (0: a session cookie), `#` lines
 * are comments except the `#HttpOnly_` prefix curl writes before the domain of an HttpOnly
 * cookie. Written by hand: no well-kept npm library reads this format with the HttpOnly prefix
 * and a line-numbered error, and it is twenty lines.
 */
import type { StoredCookie } from '../api/profile-types.ts';
import { TroveError } from '../errors.ts';

const HTTP_ONLY = '#HttpOnly_';

/** The cookies of a cookies.txt text. Throws COOKIES_FILE_INVALID naming the first bad line. */
export function parseCookiesTxt(text: string, source = 'cookies file'): StoredCookie[] {
  const out: StoredCookie[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    let line = raw;
    let httpOnly = false;
    if (line.startsWith(HTTP_ONLY)) {
      httpOnly = true;
      line = line.slice(HTTP_ONLY.length);
    } else if (line.trim() === '' || line.startsWith('#')) return;
    const f = line.split('\t');
    const bad = (why: string) => new TroveError('COOKIES_FILE_INVALID', `${source} line ${i + 1}: ${why} (want 7 tab-separated fields: domain, subdomains, path, secure, expires, name, value)`, { line: i + 1 });
    if (f.length < 7) throw bad(`${f.length} field${f.length === 1 ? '' : 's'}`);
    const [domain, sub, path, secure, expires, name] = f as [string, string, string, string, string, string];
    const value = f.slice(6).join('\t');
    if (!domain || !name) throw bad('no domain or no name');
    if (!isFlag(sub) || !isFlag(secure)) throw bad('the subdomains and secure fields must be TRUE or FALSE');
    if (!/^\d+$/.test(expires)) throw bad(`expires is not a number of seconds: ${JSON.stringify(expires)}`);
    const host = domain.replace(/^\./, '').toLowerCase();
    const seconds = Number(expires);
    out.push({
      name,
      value,
      // Include-subdomains is the flag; a leading dot says the same in files that omit it.
      domain: sub.toUpperCase() === 'TRUE' || domain.startsWith('.') ? `.${host}` : host,
      path: path || '/',
      expires: seconds === 0 ? -1 : seconds,
      secure: secure.toUpperCase() === 'TRUE',
      httpOnly,
    });
  });
  return out;
}

/** A cookies.txt text for cookies (wget, curl and yt-dlp read it). */
export function formatCookiesTxt(cookies: readonly StoredCookie[]): string {
  const lines = ['# Netscape HTTP Cookie File', '# Written by Trove.'];
  for (const c of cookies) {
    const sub = c.domain.startsWith('.');
    const fields = [c.domain, sub ? 'TRUE' : 'FALSE', c.path, c.secure ? 'TRUE' : 'FALSE', String(c.expires < 0 ? 0 : Math.floor(c.expires)), c.name, c.value];
    lines.push(`${c.httpOnly ? HTTP_ONLY : ''}${fields.join('\t')}`);
  }
  return `${lines.join('\n')}\n`;
}

function isFlag(s: string): boolean {
  return /^(TRUE|FALSE)$/i.test(s);
}
