/**
 * The already-seen key: two URLs with one key are fetched once. Rules follow Heritrix's default
 * canonicalization policy (LowercaseRule, StripUserinfoRule, StripWWWNRule, StripSessionIDs,
 * StripSessionCFIDs, FixupQueryString). Each rule is a plain string → string function, so it can
 * be tested alone against Heritrix's own rule tests.
 *
 * Written by hand because no npm library implements Heritrix's rules; WHATWG `URL` does the
 * parsing before the rules run.
 *
 * Deliberate differences from Heritrix:
 * - Only the scheme and host are lowercased. Heritrix's LowercaseRule lowercases the whole URL,
 *   which merges `/Page` and `/page` on case-sensitive servers and loses one of them.
 * - Session ids are removed parameter by parameter (exact names), not with Heritrix's
 *   whole-URL regexes (which also match `xsid=…` and leave a stray `&`).
 */
import { normalizeUrl } from './normalize-url.ts';

export type WwwPolicy = 'strip-wwwN' | 'strip-www' | 'keep';

export interface CanonicalizeOptions {
  /** Default `strip-wwwN` (`www.`, `www2.`, `www10.` …), as Heritrix's default profile. */
  www?: WwwPolicy;
}

/** The seen key for `url` (absolute http/https; throws URL_INVALID / URL_UNSUPPORTED_SCHEME). */
export function canonicalize(url: string, options: CanonicalizeOptions = {}): string {
  // WHATWG lowercases scheme and host, removes default ports, resolves dot segments and drops
  // nothing else; the fragment goes here too.
  return canonicalizeNormalized(normalizeUrl(url), options);
}

/**
 * The seen key for a URL that is `normalizeUrl`'s output already (a WHATWG href re-parses to
 * itself, so this equals `canonicalize(href)`): the rules without a second parse.
 */
export function canonicalizeNormalized(href: string, options: CanonicalizeOptions = {}): string {
  let key = lowercaseSchemeHost(href);
  key = stripUserinfo(key);
  const www = options.www ?? 'strip-wwwN';
  if (www === 'strip-wwwN') key = stripWwwN(key);
  else if (www === 'strip-www') key = stripWww(key);
  key = stripSessionIds(key);
  key = fixupQueryString(key);
  return key;
}

const AUTHORITY = /^([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)([^/?#]*)(.*)$/s;

/** Lowercase `scheme://authority`, leave path and query alone. */
export function lowercaseSchemeHost(url: string): string {
  const m = AUTHORITY.exec(url);
  if (!m) return url;
  return m[1]!.toLowerCase() + m[2]!.toLowerCase() + m[3]!;
}

/** `http://user:pass@host/` → `http://host/`. */
export function stripUserinfo(url: string): string {
  const m = AUTHORITY.exec(url);
  if (!m) return url;
  const at = m[2]!.lastIndexOf('@');
  if (at < 0) return url;
  return m[1]! + m[2]!.slice(at + 1) + m[3]!;
}

// Heritrix requires at least one character after the first slash: a bare root such as
// `http://www.example.com/` keeps its www (the site's front door is fetched as given).
const WWW = /^(https?:\/\/)www\.([^/]*\/.+)$/is;
const WWWN = /^(https?:\/\/)www\d*\.([^/]*\/.+)$/is;

/** Heritrix StripWWWRule: only a leading `www.`. */
export function stripWww(url: string): string {
  return url.replace(WWW, '$1$2');
}

/** Heritrix StripWWWNRule: a leading `www.` or `wwwN.` (digits). */
export function stripWwwN(url: string): string {
  return url.replace(WWWN, '$1$2');
}

// Names that only ever carry a session; any value is stripped.
const SESSION_NAMES = new Set(['jsessionid', 'phpsessid']);
// `sid` is also used for real ids (story id…): only the 32-character form Heritrix strips.
const SID_VALUE = /^[0-9a-zA-Z]{32}$/;
const ASP_NAME = /^aspsessionid[a-zA-Z]{8}$/i;
const ASP_VALUE = /^[a-zA-Z]{24}$/;
const PATH_JSESSIONID = /;jsessionid=[^;/?#]*/gi;

/**
 * Remove session-id query parameters (jsessionid, phpsessid, 32-char sid, ASPSESSIONIDxxxxxxxx,
 * the cfid+cftoken pair) and Java's `;jsessionid=` path parameter. An emptied query keeps its `?`
 * (fixupQueryString removes it), as Heritrix's rule does.
 */
export function stripSessionIds(url: string): string {
  const hashAt = url.indexOf('#');
  const hash = hashAt >= 0 ? url.slice(hashAt) : '';
  const noHash = hashAt >= 0 ? url.slice(0, hashAt) : url;
  const qAt = noHash.indexOf('?');
  let head = qAt >= 0 ? noHash.slice(0, qAt) : noHash;
  const pathStart = head.indexOf('/', head.indexOf('://') + 3);
  if (pathStart >= 0) head = head.slice(0, pathStart) + head.slice(pathStart).replace(PATH_JSESSIONID, '');
  if (qAt < 0) return head + hash;

  const params = noHash.slice(qAt + 1).split('&');
  const names = params.map((p) => {
    const eq = p.indexOf('=');
    return (eq >= 0 ? p.slice(0, eq) : p).toLowerCase();
  });
  const hasCfPair = names.includes('cfid') && names.includes('cftoken');
  const kept = params.filter((p, i) => {
    const name = names[i]!;
    const eq = p.indexOf('=');
    if (eq < 0) return true;
    const value = p.slice(eq + 1);
    if (SESSION_NAMES.has(name)) return value.length === 0;
    if (name === 'sid') return !SID_VALUE.test(value);
    if (ASP_NAME.test(name)) return !ASP_VALUE.test(value);
    if (hasCfPair && (name === 'cfid' || name === 'cftoken')) return false;
    return true;
  });
  return `${head}?${kept.join('&')}${hash}`;
}

/** Heritrix FixupQueryString: `?&x` → `?x`, and a trailing `&` or `?` goes. */
export function fixupQueryString(url: string): string {
  const hashAt = url.indexOf('#');
  const hash = hashAt >= 0 ? url.slice(hashAt) : '';
  let rest = hashAt >= 0 ? url.slice(0, hashAt) : url;
  const qAt = rest.indexOf('?');
  if (qAt < 0) return url;
  const query = rest.slice(qAt + 1).replace(/^&+/, '').replace(/&+$/, '');
  rest = rest.slice(0, qAt);
  return query.length > 0 ? `${rest}?${query}${hash}` : rest + hash;
}
