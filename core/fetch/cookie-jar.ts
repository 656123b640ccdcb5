/**
 * The crawl's cookie jar: the cookies of a profile or a cookies.txt, plus those the site sets
 * during the crawl, sent with each request as a browser would. tough-cookie (RFC 6265 and the
 * SameSite rules of 6265bis) decides which cookies match a request (domain, path, Secure,
 * expiry, HttpOnly); this file says which SameSite context a crawler's request is in, and maps
 * cookies between the jar and the plain StoredCookie shape profiles, cookies.txt and CDP use.
 *
 * SameSite context, as a browser would have it: a seed (typed into the address bar) and any
 * request whose referring page is on the same site are same-site ("strict"); a cross-site link
 * or redirect is a top-level navigation ("lax": Lax cookies go, Strict ones do not); a
 * cross-site embed gets only SameSite=None cookies.
 */
import { createRequire } from 'node:module';
import { getDomain } from 'tldts';
import type { CookieJar } from 'tough-cookie';
import type { StoredCookie } from '../api/profile-types.ts';

// tough-cookie loads with the first jar, not with every crawl: a crawl without a login has no
// jar (issue 40). It is CommonJS, so a require loads it synchronously where a jar is made.
const requireLib = createRequire(import.meta.url);
let lib: typeof import('tough-cookie') | undefined;
function cookieLib(): typeof import('tough-cookie') {
  return (lib ??= requireLib('tough-cookie') as typeof import('tough-cookie'));
}

/** Hop letters a browser would follow as a top-level navigation (a link, a redirect, a sitemap entry). */
const TOP_LEVEL_HOPS = new Set(['L', 'R', 'M']);

export interface CookieRequest {
  url: string;
  /** The page the URL was found on; null for a seed. */
  via: string | null;
  /** The hops path from the seed; its last letter is how this URL was reached. */
  hopsPath: string;
}

export interface CrawlCookieJar {
  /** The `Cookie` header value for a request, or null when no cookie matches. */
  header(req: CookieRequest): string | null;
  /** Keep the cookies a response sets (its `Set-Cookie` fields, wire order). */
  keep(req: CookieRequest, headers: readonly [string, string][]): void;
  /** Every cookie in the jar, expired ones dropped. */
  cookies(): StoredCookie[];
  /** How many cookies it holds. */
  size(): number;
  /** Forget every cookie and hold these instead (a refreshed profile, on resume). */
  reset(cookies: readonly StoredCookie[]): void;
}

export function createCookieJar(initial: readonly StoredCookie[] = []): CrawlCookieJar {
  // Loopback sites are plain HTTP: tough-cookie treats them as secure contexts (as browsers do).
  const jar = new (cookieLib().CookieJar)(undefined, { allowSecureOnLocal: true, rejectPublicSuffixes: true, looseMode: true });
  for (const c of initial) addStored(jar, c);
  return {
    header(req) {
      const s = jar.getCookieStringSync(req.url, { http: true, sameSiteContext: sameSiteContext(req) });
      return s === '' ? null : s;
    },
    keep(req, headers) {
      for (const [name, value] of headers) {
        if (name.toLowerCase() !== 'set-cookie') continue;
        jar.setCookieSync(value, req.url, { http: true, ignoreError: true, sameSiteContext: sameSiteContext(req) });
      }
    },
    cookies: () => allCookies(jar),
    size: () => allCookies(jar).length,
    reset(cookies) {
      jar.removeAllCookiesSync();
      for (const c of cookies) addStored(jar, c);
    },
  };
}

/** Same-site (strict), a top-level cross-site navigation (lax), or a cross-site embed (none). */
export function sameSiteContext(req: CookieRequest): 'strict' | 'lax' | 'none' {
  if (req.via === null || req.hopsPath === '') return 'strict';
  const target = siteOf(req.url);
  const from = siteOf(req.via);
  if (target !== null && target === from) return 'strict';
  return TOP_LEVEL_HOPS.has(req.hopsPath.at(-1) ?? '') ? 'lax' : 'none';
}

/** The site of a URL (scheme-less, as SameSite uses it): its registrable domain, or its host for an IP or a single label. */
function siteOf(url: string): string | null {
  const u = URL.parse(url);
  if (!u) return null;
  return getDomain(u.hostname, { allowPrivateDomains: true }) ?? u.hostname;
}

function addStored(jar: CookieJar, c: StoredCookie): void {
  const hostOnly = !c.domain.startsWith('.');
  const host = c.domain.replace(/^\./, '');
  const cookie = new (cookieLib().Cookie)({
    key: c.name,
    value: c.value,
    domain: host,
    path: c.path || '/',
    expires: c.expires < 0 ? 'Infinity' : new Date(c.expires * 1000),
    secure: c.secure,
    httpOnly: c.httpOnly,
    hostOnly,
    ...(c.sameSite ? { sameSite: c.sameSite.toLowerCase() } : {}),
  });
  const origin = `${c.secure ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}${cookie.path}`;
  jar.setCookieSync(cookie, origin, { http: true, ignoreError: true });
}

function allCookies(jar: CookieJar): StoredCookie[] {
  const serialized = jar.serializeSync();
  const now = Date.now();
  const out: StoredCookie[] = [];
  for (const raw of serialized?.cookies ?? []) {
    const c = cookieLib().Cookie.fromJSON(raw);
    if (!c) continue;
    const expires = c.expires instanceof Date ? Math.floor(c.expires.getTime() / 1000) : -1;
    if (expires >= 0 && expires * 1000 <= now) continue;
    const sameSite = c.sameSite === 'strict' ? 'Strict' : c.sameSite === 'lax' ? 'Lax' : c.sameSite === 'none' ? 'None' : undefined;
    out.push({
      name: c.key,
      value: c.value,
      domain: c.hostOnly ? (c.domain ?? '') : `.${c.domain ?? ''}`,
      path: c.path ?? '/',
      expires,
      secure: c.secure,
      httpOnly: c.httpOnly,
      ...(sameSite ? { sameSite } : {}),
    });
  }
  return out;
}
