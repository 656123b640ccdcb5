/**
 * The two canonicalizers python-surt chains by default (DefaultIAURLCanonicalizer):
 * GoogleURLCanonicalizer (Safe Browsing rules: unescape repeatedly, escape minimally, IDNA,
 * numeric IPs, dot segments) then IAURLCanonicalizer (lowercase, strip www/default port/session
 * ids/trailing slash, sort the query). Matching them byte for byte is what makes our CDXJ keys
 * agree with pywb's.
 *
 * Written by hand: no maintained npm port exists (warcio.js's getSurt is a much simpler
 * approximation: it keeps trailing slashes and session ids). Inputs and outputs are byte strings
 * (see surt-url-parts.ts).
 */
import { domainToASCII } from 'node:url';
import { asciiLower, fromByteString } from './surt-url-parts.ts';
import type { SurtUrlParts } from './surt-url-parts.ts';

export interface IaCanonicalizerOptions {
  /** Strip a leading `www.` / `wwwN.` from the host (default true). */
  hostMassage?: boolean;
  /** Lowercase the query (default true). */
  queryLowercase?: boolean;
}

// ---------------------------------------------------------------- Google

/** GoogleURLCanonicalizer, in place. */
export function googleCanonicalize(p: SurtUrlParts): SurtUrlParts {
  p.hash = null;
  if (p.query) p.query = escapeOnce(unescapeRepeatedly(p.query));
  if (p.host) {
    let host = unescapeRepeatedly(p.host);
    if (/[^\x00-\x7f]/.test(host)) {
      // Non-ASCII after unescaping: IDNA (punycode). If that fails, keep the bytes (escaped below).
      const ascii = domainToASCII(fromByteString(host));
      if (ascii !== '') host = ascii;
    }
    host = host.replaceAll('..', '.').replace(/^\.+|\.+$/g, '');
    const ip = numericIpv4(host);
    p.host = ip ?? escapeOnce(asciiLower(host));
  }
  let path = p.path === null ? null : unescapeRepeatedly(p.path);
  if (p.host) path = normalizePath(path);
  p.path = path === null ? null : escapeOnce(path);
  return p;
}

const HEX_ESCAPE = /%([0-9a-fA-F]{2})/g;

/** Decode `%XX` until nothing changes (`%2525` → `%`). */
export function unescapeRepeatedly(s: string): string {
  if (!s.includes('%')) return s; // nothing to decode (most paths): no regex pass
  let current = s;
  for (;;) {
    const next = current.replace(HEX_ESCAPE, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (next === current) return current;
    current = next;
  }
}

// Python's quote() with safe = !"$&'()*+,-./:;<=>?@[\]^_`{|}~ plus letters and digits:
// everything else (controls, space, `#`, `%`, bytes ≥ 0x7f) is escaped, uppercase hex.
const NEEDS_ESCAPE = /[^A-Za-z0-9!"$&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;
/** The same class, for a test without the global flag's lastIndex. */
const NEEDS_ESCAPE_ANY = new RegExp(NEEDS_ESCAPE.source);

export function escapeOnce(s: string): string {
  if (!NEEDS_ESCAPE_ANY.test(s)) return s; // nothing to escape (most hosts and paths)
  return s.replace(NEEDS_ESCAPE, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/** Drop `.` segments, apply `..`, collapse empty segments; keep a trailing slash. */
export function normalizePath(path: string | null): string {
  if (!path) return '/';
  const kept: string[] = [];
  for (const seg of path.split('/').slice(1)) {
    if (seg === '.') continue;
    if (seg === '..') {
      // A `..` above the root is kept, as python-surt does.
      if (kept.length > 0) kept.pop();
      else kept.push(seg);
      continue;
    }
    kept.push(seg);
  }
  let out = '/';
  for (let i = 0; i < kept.length - 1; i++) if (kept[i]!.length > 0) out += `${kept[i]}/`;
  if (kept.length > 0) out += kept[kept.length - 1];
  return out;
}

const DECIMAL_IP = /^[1-9][0-9]*(\.[0-9]+){0,3}$/;
const OCTAL_IP = /^0[0-7]*(\.[0-7]+){0,3}$/;

/**
 * Hosts that are numbers become dotted quads: `3279880203` → `195.127.0.11` (masked to 32 bits,
 * as the Java original does), `017.0.0.1` → `15.0.0.1`, `10.0.258` → `10.0.1.2`. Python hands
 * the dotted forms to the C resolver (inet_aton rules); those rules are reproduced here so no DNS
 * lookup ever happens. Anything else → null.
 */
export function numericIpv4(host: string): string | null {
  if (/^[0-9]+$/.test(host)) return dotted(Number(BigInt(host) & 0xffffffffn));
  if (!DECIMAL_IP.test(host) && !OCTAL_IP.test(host)) return null;
  const parts: number[] = [];
  for (const part of host.split('.')) {
    if (/^0[0-7]*$/.test(part)) parts.push(parseInt(part, 8));
    else if (/^[1-9][0-9]*$/.test(part)) parts.push(Number(part));
    else return null; // e.g. `09`: not octal, not decimal
  }
  const last = parts.pop()!;
  if (parts.some((n) => n > 255)) return null;
  const lastMax = 2 ** (8 * (4 - parts.length)) - 1;
  if (last > lastMax) return null;
  let value = last;
  parts.forEach((n, i) => {
    value += n * 2 ** (8 * (3 - i));
  });
  return dotted(value);
}

function dotted(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

// ---------------------------------------------------------------- IA

const WWW_PREFIX = /^www\d*\./;

/** IAURLCanonicalizer with python-surt's defaults, in place. */
export function iaCanonicalize(p: SurtUrlParts, options: IaCanonicalizerOptions = {}): SurtUrlParts {
  if (p.host) {
    p.host = asciiLower(p.host);
    // python-surt skips this for dns: (the Java original does not).
    if (options.hostMassage !== false && p.scheme !== 'dns') p.host = p.host.replace(WWW_PREFIX, '');
  }
  const defaultPort = p.scheme === 'http' ? 80 : p.scheme === 'https' ? 443 : 0;
  if (p.port === defaultPort) p.port = null;

  if (p.path) {
    let path = stripPathSessionId(asciiLower(p.path));
    if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
    p.path = path;
  }

  if (p.query !== null) {
    let query = stripQuerySessionId(p.query);
    if (options.queryLowercase !== false) query = asciiLower(query);
    query = sortQuery(query);
    p.query = query === '' ? null : query;
  } else {
    p.lastDelimiter = null;
  }
  return p;
}

// ASP.NET cookieless sessions: `/(S(24 chars))/page.aspx` and `/(24 chars)/page.aspx`.
const PATH_SESSION_IDS = [
  /^(.*\/)\((?:[a-z]\([0-9a-z]{24}\))+\)\/([^?]+\.aspx.*)$/i,
  /^(.*\/)\([0-9a-z]{24}\)\/([^?]+\.aspx.*)$/i,
];

export function stripPathSessionId(path: string): string {
  let out = path;
  for (const re of PATH_SESSION_IDS) {
    const m = re.exec(out);
    if (m) out = m[1]! + m[2]!;
  }
  return out;
}

// Matched anywhere in the query (the last occurrence), as python-surt's regexes do.
const QUERY_SESSION_IDS = [
  /^(.*)(?:jsessionid=[0-9a-z]{32})(?:&(.*))?$/i,
  /^(.*)(?:phpsessid=[0-9a-z]{32})(?:&(.*))?$/i,
  /^(.*)(?:sid=[0-9a-z]{32})(?:&(.*))?$/i,
  /^(.*)(?:aspsessionid[a-z]{8}=[a-z]{24})(?:&(.*))?$/i,
  /^(.*)(?:cfid=[^&]+&cftoken=[^&]+)(?:&(.*))?$/i,
];

export function stripQuerySessionId(query: string): string {
  let out = query;
  for (const re of QUERY_SESSION_IDS) {
    const m = re.exec(out);
    if (m) out = m[1]! + (m[2] ?? '');
  }
  return out;
}

/**
 * Sort `a=1&b&c=3` by (name, value) pairs, as Python sorts split tuples: `a` sorts before `a+b`
 * even though `=` > `+`, so this is not a plain string sort of the arguments.
 */
export function sortQuery(query: string): string {
  if (query.length <= 1) return query;
  const args = query.split('&').map((arg) => {
    const eq = arg.indexOf('=');
    return eq < 0 ? { arg, key: [arg] } : { arg, key: [arg.slice(0, eq), arg.slice(eq + 1)] };
  });
  args.sort((a, b) => compareTuples(a.key, b.key));
  return args.map((a) => a.arg).join('&');
}

function compareTuples(a: string[], b: string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i]! < b[i]!) return -1;
    if (a[i]! > b[i]!) return 1;
  }
  return a.length - b.length;
}
