/**
 * `--logged-in-check TEXT|SELECTOR` (issue 36): how a crawl notices that its login has ended.
 * A response of the login's site counts as logged out when it is
 *
 * - an HTML page (2xx) that lacks the text, or, for a value that reads as a CSS selector
 *   (`#id`, `.class`, `[attr]`, `tag#id.class[attr=value]`), has no element matching it;
 * - a redirect to the login page (the profile's login URL, or a path naming log in / sign in);
 * - a 401.
 *
 * A page captured in a browser tab (browser and auto modes) is checked as rendered, after its
 * scripts: the tab looks for the selector with querySelector (any CSS selector), or for the text
 * in the page's text or markup (browser/capture-page.ts `marker`); the reason names the login
 * page when the navigation was redirected there.
 *
 * The login's site is the registrable domains the login's cookies are for, or the seeds' when
 * the crawl carries no cookies. Selectors are matched on start tags as parse5's SAX parser reads
 * them: a compound selector (no combinators) is all a logged-in marker needs, and no selector
 * engine for a stream of tags is in the dependencies (happy-dom is the renderer tests' only).
 */
import { getDomain } from 'tldts';
import { SAXParser } from 'parse5-sax-parser';
import { decodeBody } from '../extract/decode-body.ts';
import { fieldValue } from '../formats/http-fields.ts';
import type { FetchResult } from '../fetch/fetcher.ts';

/** The most of a page read for the check. */
const MAX_CHECK_BYTES = 8 * 1024 * 1024;

export interface LoggedInCheck {
  /** Why this response says the login has ended, or null when it looks logged in (or is not the login's site's). */
  loggedOut(url: string, f: FetchResult, mime: string | null): Promise<string | null>;
  /** Why a load a browser page made (not its document) says the login has ended (a 401 or a redirect to the login page on the login's site), or null. */
  loggedOutLoad(url: string, f: Pick<FetchResult, 'status' | 'headers'>): string | null;
  /** What a browser tab looks for in the rendered page. */
  marker: { selector: string } | { text: string };
  /** Why a page rendered in a tab (asked for as `url`, ended on `finalUrl`) says the login has ended, or null. */
  loggedOutRendered(url: string, finalUrl: string, markerFound: boolean): string | null;
}

interface Compound {
  tag: string | null;
  id: string | null;
  classes: string[];
  attrs: { name: string; value: string | null }[];
}

export function createLoggedInCheck(value: string, opts: { cookieDomains: string[]; seeds: string[]; loginUrl: string | null }): LoggedInCheck {
  const selector = parseSelector(value);
  const sites = new Set((opts.cookieDomains.length ? opts.cookieDomains.map((d) => `x://${d.replace(/^\./, '')}/`) : opts.seeds).map(siteOf).filter((s): s is string => s !== null));
  const loginPath = opts.loginUrl ? (URL.parse(opts.loginUrl)?.pathname ?? null) : null;
  const isLoginPage = (u: URL) => (loginPath !== null && u.pathname === loginPath) || /(log|sign)[-_]?in\b/i.test(u.pathname);
  return {
    marker: selector ? { selector: value.trim() } : { text: value },
    loggedOutLoad: (url, f) => (sites.has(siteOf(url) ?? '') ? loginWall(url, f, loginPath) : null),
    loggedOutRendered(url, finalUrl, markerFound) {
      if (markerFound || !sites.has(siteOf(url) ?? '')) return null;
      const miss = selector ? `no element matches ${value} in the rendered page` : `the rendered page lacks "${value}"`;
      const to = URL.parse(finalUrl);
      return finalUrl !== url && to && isLoginPage(to) ? `${miss} (redirected to the login page ${to.pathname})` : miss;
    },
    async loggedOut(url, f, mime) {
      if (!sites.has(siteOf(url) ?? '') || !f.responseHead || f.status === null) return null;
      if (f.status === 401 || (f.status >= 300 && f.status < 400)) return loginWall(url, f, loginPath);
      if (f.status < 200 || f.status >= 300 || mime !== 'text/html' || !f.entity) return null;
      const raw = await f.entity.read(MAX_CHECK_BYTES);
      const html = decodeBody(raw, fieldValue(f.headers, 'content-encoding') ?? undefined, MAX_CHECK_BYTES).body.toString('utf8');
      if (selector) return hasElement(html, selector) ? null : `no element matches ${value}`;
      return html.includes(value) ? null : `the page lacks "${value}"`;
    },
  };
}

/**
 * Whether a response is a login wall: a 401, or a redirect to a login page (`loginPath`, or a
 * path naming log in / sign in). Why, or null. What the logged-in check and the crawl's
 * "this site needs a login" note (chain/note-login-wall.ts) both look for.
 */
export function loginWall(url: string, f: Pick<FetchResult, 'status' | 'headers'>, loginPath: string | null = null): string | null {
  if (f.status === 401) return 'the server answered 401 (not logged in)';
  if (f.status === null || f.status < 300 || f.status >= 400) return null;
  const to = URL.parse(fieldValue(f.headers, 'location') ?? '', url);
  return to && ((loginPath !== null && to.pathname === loginPath) || /(log|sign)[-_]?in\b/i.test(to.pathname)) ? `redirected to the login page ${to.pathname}` : null;
}

function siteOf(url: string): string | null {
  const u = URL.parse(url);
  return u ? (getDomain(u.hostname, { allowPrivateDomains: true }) ?? u.hostname) : null;
}

/** A compound CSS selector, or null when the value reads as text. */
export function parseSelector(value: string): Compound | null {
  const m = /^([a-zA-Z][\w-]*)?((?:#[\w-]+|\.[\w-]+|\[[\w-]+(?:=(?:"[^"]*"|'[^']*'|[^\]]*))?\])+)?$/.exec(value.trim());
  // A bare word is text, not a tag name: a selector has an id, a class or an attribute.
  if (!m || !m[2]) return null;
  const c: Compound = { tag: m[1]?.toLowerCase() ?? null, id: null, classes: [], attrs: [] };
  for (const part of m[2].match(/#[\w-]+|\.[\w-]+|\[[^\]]+\]/g) ?? []) {
    if (part[0] === '#') c.id = part.slice(1);
    else if (part[0] === '.') c.classes.push(part.slice(1));
    else {
      const [name, ...rest] = part.slice(1, -1).split('=');
      c.attrs.push({ name: name!.toLowerCase(), value: rest.length ? rest.join('=').replace(/^["']|["']$/g, '') : null });
    }
  }
  return c;
}

function hasElement(html: string, c: Compound): boolean {
  let found = false;
  const sax = new SAXParser();
  sax.on('startTag', (t) => {
    if (found || (c.tag && t.tagName !== c.tag)) return;
    const attr = (n: string) => t.attrs.find((a) => a.name === n)?.value ?? null;
    if (c.id !== null && attr('id') !== c.id) return;
    const classes = (attr('class') ?? '').split(/\s+/);
    if (!c.classes.every((k) => classes.includes(k))) return;
    if (!c.attrs.every((a) => (a.value === null ? attr(a.name) !== null : attr(a.name) === a.value))) return;
    found = true;
  });
  sax.end(html);
  return found;
}
