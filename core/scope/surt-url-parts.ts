/**
 * URL splitting as python-surt does it (its `handyurl.parse` over Python's `urlsplit`), so CDXJ
 * keys match what pywb, ReplayWeb.page and other tools compute for the same URL. WHATWG `URL`
 * cannot be used here: it rejects or re-encodes inputs (spaces in hosts, bare `dns:` names,
 * numeric hosts, `%`-escapes) that python-surt keeps byte for byte.
 *
 * Written by hand (no npm package ports python-surt), from its documented behaviour and tests.
 *
 * Everything works on *byte strings*: one char per byte (latin1), because python-surt
 * percent-decodes to raw bytes, which need not be UTF-8.
 */

export interface SurtUrlParts {
  scheme: string;
  host: string | null;
  port: number | null;
  path: string | null;
  query: string | null;
  hash: string | null;
  /** A `?` with nothing after it, kept so `http://a/q?` can round-trip (python-surt does). */
  lastDelimiter: string | null;
}

/**
 * An ASCII string is its own UTF-8 byte string, both ways: the common URL is returned as it is,
 * without a Buffer and a new string made for it each way (a SURT key per capture; issue 20).
 */
const NON_ASCII = /[^\x00-\x7f]/;

/** UTF-8 bytes of `s` as a byte string. */
export function toByteString(s: string): string {
  return NON_ASCII.test(s) ? Buffer.from(s, 'utf8').toString('latin1') : s;
}

/** Inverse of toByteString; invalid UTF-8 becomes U+FFFD. */
export function fromByteString(b: string): string {
  return NON_ASCII.test(b) ? Buffer.from(b, 'latin1').toString('utf8') : b;
}

/** ASCII-only lowercase (Python's bytes.lower); `toLowerCase` would also fold bytes 0xC0–0xDE. */
export function asciiLower(s: string): string {
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

const HAS_SCHEME = /^[a-zA-Z][a-zA-Z0-9+\-.]*:/;
const REPEATED_HTTP = /^(https?:\/\/)+/;
const STRIPPED_CONTROLS = /[\n\r\t]/g;

/** python-surt's parse of a byte string. Never throws. */
export function parseSurtUrl(input: string): SurtUrlParts {
  // Python strips ASCII whitespace at both ends; tab/CR/LF go everywhere, plain spaces stay inside.
  let url = input.replace(/^[\t\n\v\f\r ]+|[\t\n\v\f\r ]+$/g, '').replace(STRIPPED_CONTROLS, '');
  if (url.length > 0 && !HAS_SCHEME.test(url)) url = `http://${url}`;
  // `http://https://order.1and1.com` → `https://order.1and1.com`
  url = url.replace(REPEATED_HTTP, '$1');

  const split = urlsplit(url);
  let netloc = split.netloc;
  if (netloc.endsWith(':')) netloc = netloc.replace(/:+$/, '');
  const { hostname, port } = hostAndPort(netloc);

  let host = hostname.length > 0 ? asciiLower(hostname) : null;
  let path = split.path.length > 0 ? split.path : null;
  if (split.scheme.startsWith('http') && host === null && path !== null) {
    // `http:////www.vikings.com` → host www.vikings.com
    const rest = path.replace(/^\/+/, '');
    const slash = rest.indexOf('/');
    host = slash < 0 ? rest : rest.slice(0, slash);
    path = `/${slash < 0 ? '' : rest.slice(slash + 1)}`;
  }

  const query = split.query.length > 0 ? split.query : null;
  return {
    scheme: split.scheme,
    host,
    port,
    path,
    query,
    hash: split.fragment.length > 0 ? split.fragment : null,
    lastDelimiter: url.endsWith('?') && query === null ? '?' : null,
  };
}

interface Split {
  scheme: string;
  netloc: string;
  path: string;
  query: string;
  fragment: string;
}

/** Python's urllib.parse.urlsplit (allow_fragments=True), minus its IPv6 validation errors. */
function urlsplit(url: string): Split {
  let scheme = '';
  let rest = url;
  const colon = rest.indexOf(':');
  if (colon > 0 && HAS_SCHEME.test(rest)) {
    scheme = asciiLower(rest.slice(0, colon));
    rest = rest.slice(colon + 1);
  }
  let netloc = '';
  if (rest.startsWith('//')) {
    let end = rest.length;
    for (const c of ['/', '?', '#']) {
      const i = rest.indexOf(c, 2);
      if (i >= 0 && i < end) end = i;
    }
    netloc = rest.slice(2, end);
    rest = rest.slice(end);
  }
  let fragment = '';
  const hashAt = rest.indexOf('#');
  if (hashAt >= 0) {
    fragment = rest.slice(hashAt + 1);
    rest = rest.slice(0, hashAt);
  }
  let query = '';
  const qAt = rest.indexOf('?');
  if (qAt >= 0) {
    query = rest.slice(qAt + 1);
    rest = rest.slice(0, qAt);
  }
  return { scheme, netloc, path: rest, query, fragment };
}

/**
 * Host and port of a netloc, as Python's SplitResult.hostname / .port. python-surt never keeps
 * userinfo. A port that is not a number 0–65535 makes Python raise; here it is dropped instead,
 * so that indexing one odd record never fails a whole file.
 */
function hostAndPort(netloc: string): { hostname: string; port: number | null } {
  const hostinfo = netloc.slice(netloc.lastIndexOf('@') + 1);
  let hostname: string;
  let portText: string;
  const open = hostinfo.indexOf('[');
  if (open >= 0) {
    const bracketed = hostinfo.slice(open + 1);
    const close = bracketed.indexOf(']');
    hostname = close >= 0 ? bracketed.slice(0, close) : bracketed;
    const after = close >= 0 ? bracketed.slice(close + 1) : '';
    const c = after.indexOf(':');
    portText = c >= 0 ? after.slice(c + 1) : '';
  } else {
    const c = hostinfo.indexOf(':');
    hostname = c >= 0 ? hostinfo.slice(0, c) : hostinfo;
    portText = c >= 0 ? hostinfo.slice(c + 1) : '';
  }
  let port: number | null = null;
  if (/^[0-9]+$/.test(portText)) {
    const n = Number(portText);
    if (n > 0 && n <= 65535) port = n;
  }
  return { hostname, port };
}

/** handyurl.getURLString: the canonicalized URL as a plain URL (byte string). */
export function formatSurtUrlParts(p: SurtUrlParts): string {
  let s = `${p.scheme}:`;
  if (p.host) {
    if (p.scheme !== 'dns') s += '//';
    s += p.host;
    if (p.port !== null) s += `:${p.port}`;
  }
  s += pathQueryHash(p);
  return s;
}

/** Path (or `/` when a query or hash needs one), `?query`, `#hash`, and a kept last `?`. */
export function pathQueryHash(p: SurtUrlParts): string {
  let s = '';
  if (p.path) s += p.path;
  else if (p.query !== null || p.hash !== null) s += '/';
  if (p.query !== null) s += `?${p.query}`;
  if (p.hash !== null) s += `#${p.hash}`;
  if (p.lastDelimiter !== null) s += p.lastDelimiter;
  return s;
}
