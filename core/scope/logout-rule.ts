/**
 * The log-out guard: a crawl that carries a login must never fetch the URL that ends it. Built
 * into the default sequence (last, so no other rule can undo it) unless the archivist
 * turns it off (`fetchLogoutUrls`). A URL whose path or query names a log-out — logout, log-out,
 * signout, sign-out, logoff (and the `_`/space spellings) — is rejected. A form's action is only
 * ever followed for GET forms (extract/html-links.ts), and it is judged by this rule like any
 * link, so a GET form posting to a log-out URL is refused too; POST forms are never sent.
 */
import type { DecideRule } from './scope-types.ts';

export const LOGOUT_RULE = 'logout-guard';

/**
 * log out / sign out / log off, joined or with -, _, a space (%20 or +) between, and not running
 * on into a longer word: `catalog-outline`, `dialog-output` and `changelog-outdated` are not
 * log-outs (`doLogout`, `logout.php`, `?action=logoff` are).
 */
const LOGOUT = /(log|sign)(?:[-_+ ]|%20)?(out|off)(?![a-z])/i;

/** The words of a path or query as a person reads them (percent-decoded when it can be). */
function readable(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Which part of the URL names a log-out, or null. */
export function logoutMatch(url: URL): { part: 'path' | 'query'; word: string } | null {
  const path = LOGOUT.exec(readable(url.pathname));
  if (path) return { part: 'path', word: path[0] };
  const query = LOGOUT.exec(readable(url.search));
  return query ? { part: 'query', word: query[0] } : null;
}

export function logoutRule(): DecideRule {
  return {
    name: LOGOUT_RULE,
    describe: () => 'logout-guard: REJECT log-out URLs (logout, log-out, signout, sign-out, logoff in the path or query; off with --fetch-logout-urls)',
    decide: ({ url }) => {
      const hit = url ? logoutMatch(url) : null;
      return hit
        ? { result: 'REJECT', reason: `a log-out URL ("${hit.word}" in the ${hit.part}): fetching it would end the login session` }
        : { result: 'PASS', reason: 'not a log-out URL' };
    },
  };
}
