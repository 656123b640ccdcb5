/**
 * SURT keys (Sort-friendly URI Reordering Transform).
 *
 * - `surtKey` is the CDXJ urlkey, byte-compatible with python-surt (what pywb and py-wacz
 *   write and look up): `com,example)/path?a=1&b=2`.
 * - `heritrixSurt` is Heritrix's SURT.fromURI form, `http://(com,example,www,)/path`, used for
 *   seed-implied scope prefixes.
 *
 * Written by hand: see surt-url-parts.ts and surt-canonicalizer.ts for why.
 */
import { formatSurtUrlParts, fromByteString, parseSurtUrl, pathQueryHash, toByteString } from './surt-url-parts.ts';
import type { SurtUrlParts } from './surt-url-parts.ts';
import { googleCanonicalize, iaCanonicalize } from './surt-canonicalizer.ts';

export interface SurtOptions {
  /** `http://(com,example)/` instead of `com,example)/` (default false). */
  withScheme?: boolean;
  /** `com,example,)/` (default false; never after an IPv4 address). */
  trailingComma?: boolean;
  /** Reverse IPv4 addresses like host names: `254,1,168,192)` (default true). */
  reverseIpAddr?: boolean;
  /** Strip `www.`/`wwwN.` (default true). */
  hostMassage?: boolean;
  /** Lowercase the query (default true). */
  queryLowercase?: boolean;
  /** `default` = Google then IA (python-surt's default); `none` = parse and format only. */
  canonicalizer?: 'default' | 'google' | 'ia' | 'none';
}

export interface SurtKeyOptions {
  /** HTTP method of the capture. Anything but GET gets pywb's `__wb_method=` argument. */
  method?: string;
  /** The request body already turned into a query string (form fields, flattened JSON, or `__wb_post_data=<base64>`). */
  postQuery?: string;
}

/**
 * The CDXJ urlkey for a capture. A POST (or PUT…) gets `__wb_method=post&<postQuery>` appended
 * to its query before SURT-ing, as pywb does, so replay can tell two POSTs to one URL apart.
 * Never throws: empty → `-`, `filedesc:`/`dns:`/`warcinfo:`/`mailto:` pass through.
 */
export function surtKey(url: string | null | undefined, opts: SurtKeyOptions = {}): string {
  if (!url) return '-';
  const method = opts.method?.toUpperCase();
  let target = url;
  if (method && method !== 'GET') {
    const hashAt = target.indexOf('#');
    if (hashAt >= 0) target = target.slice(0, hashAt);
    target += `${target.includes('?') ? '&' : '?'}__wb_method=${method.toLowerCase()}`;
    if (opts.postQuery) target += `&${opts.postQuery}`;
  }
  if (target === lastKeyed.target) return lastKeyed.key;
  const key = surt(target);
  lastKeyed.target = target;
  lastKeyed.key = key;
  return key;
}

/**
 * The last key surtKey made. A capture's records come in a row (response, request, metadata: one
 * index row each, all of one target URI), so the parse and both canonicalizers run once per
 * capture instead of once per record. `surt` is a pure function of the string: a remembered key
 * is the key. Module-owned; one per thread.
 */
const lastKeyed = { target: '', key: '-' };

/** python-surt's `surt(url, **options)`. */
export function surt(url: string | null | undefined, options: SurtOptions = {}): string {
  if (!url) return '-';
  if (url.startsWith('filedesc')) return url;
  const parts = canonicalParts(url, options);
  return fromByteString(formatSurt(parts, options));
}

/**
 * The canonicalized URL python-surt builds before SURT-ing (its `surt=False` output), e.g.
 * `http://www34.archive.org/index.html?b=a&a=b` → `http://archive.org/index.html?a=b&b=a`.
 */
export function surtCanonicalUrl(url: string, options: SurtOptions = {}): string {
  return fromByteString(formatSurtUrlParts(canonicalParts(url, options)));
}

function canonicalParts(url: string, options: SurtOptions): SurtUrlParts {
  const parts = parseSurtUrl(toByteString(url));
  const which = options.canonicalizer ?? 'default';
  if (which === 'default' || which === 'google') googleCanonicalize(parts);
  if (which === 'default' || which === 'ia') iaCanonicalize(parts, options);
  return parts;
}

function formatSurt(p: SurtUrlParts, options: SurtOptions): string {
  let s = '';
  if (options.withScheme) {
    s += `${p.scheme}:`;
    if (p.host) s += p.scheme === 'dns' ? '(' : '//(';
  } else if (!p.host) {
    s += `${p.scheme}:`;
  }
  if (p.host) {
    s += hostToSurt(p.host, { reverseIpAddr: options.reverseIpAddr, trailingComma: false });
    if (p.port !== null) s += `:${p.port}`;
    if (options.trailingComma && !IPV4.test(p.host)) s += ',';
    s += ')';
  }
  return s + pathQueryHash(p);
}

const IPV4 = /^(?:\d{1,3}\.){3}\d{1,3}$/;

/**
 * `www.example.com` → `com,example,www`. IPv4 addresses are reversed too unless
 * `reverseIpAddr: false` (then returned as they are, with no trailing comma).
 */
export function hostToSurt(host: string, opts: { reverseIpAddr?: boolean; trailingComma?: boolean } = {}): string {
  const isIp = IPV4.test(host);
  if (isIp && opts.reverseIpAddr === false) return host;
  const reversed = host.split('.').reverse().join(',');
  return opts.trailingComma && !isIp ? `${reversed},` : reversed;
}

// Heritrix SURT.URI_SPLITTER: scheme://, optional userinfo@, dotted-quad or other host, :port, path.
const HERITRIX_SPLITTER =
  /^(\w+:\/\/)(?:([-\w.!~*'()%;:&=+$,]+?)(@))?(?:((?:\d{1,3}\.){3}\d{1,3})|(\S+?))(:\d+)?(\/\S*)?$/;

/**
 * Heritrix's SURT form: `http://user:pass@www.archive.org:8080/a#top` →
 * `http://(org,archive,www,:8080@user:pass)/a#top`. Keeps scheme, www, port, userinfo, fragment
 * and case; an IPv4 host is not reversed. A string it cannot split comes back unchanged.
 */
export function heritrixSurt(url: string): string {
  const m = HERITRIX_SPLITTER.exec(url);
  if (!m) return url;
  const [, scheme, userinfo, at, ipHost, host, port, path] = m;
  let s = `${scheme}(`;
  if (ipHost !== undefined) s += ipHost;
  else s += `${host!.split('.').reverse().join(',')},`;
  s += (port ?? '') + (at ?? '') + (userinfo ?? '') + ')';
  return s + (path ?? '');
}

/** Heritrix form built from a WHATWG-parsed URL (no userinfo, no fragment); used by the scope rules. */
export function heritrixSurtOf(url: URL): string {
  const hostname = url.hostname;
  const host = IPV4.test(hostname) || hostname.startsWith('[') ? hostname : `${hostname.split('.').reverse().join(',')},`;
  const port = url.port ? `:${url.port}` : '';
  return `${url.protocol}//(${host}${port})${url.pathname}${url.search}`;
}
