/**
 * Outlinks in HTTP response headers, as Heritrix's ExtractorHTTP finds them:
 *
 * - `Location` (R), only on 3xx: on a 201 it names a created resource, not a redirect.
 * - `Content-Location` (R): it names the same representation under another URL (a negotiated
 *   variant such as `/doc.en.html`). Heritrix gives header links the redirect hop too, and R is
 *   right for scope: the alternative name is a transclusion of an in-scope page, fetched so it
 *   replays under both names, not a new navigation. Skipped when it names the URL itself.
 * - `Link: <…>; rel=…` (RFC 8288): E for what the page loads (stylesheet, preload, icon …),
 *   L otherwise (canonical, alternate, next …), nothing for preconnect/dns-prefetch.
 * - `Refresh: 5; url=…` (R), the header form of meta refresh.
 *
 * The Link header parser is hand-written because undici does not expose one and the grammar is
 * small; it splits on commas outside `<…>` and quoted strings, so it cannot be confused by URLs.
 */
import { OutlinkList } from './outlink.ts';
import type { Outlink } from './outlink.ts';
import { linkRelHop } from './html-link-rules.ts';
import { refreshTarget } from './refresh-value.ts';

/** More than any real response sends; stops a hostile header list from costing much. */
const MAX_HEADER_LINKS = 1000;

/** The headers read below. */
const LINK_HEADERS = new Set(['location', 'content-location', 'link', 'refresh']);

export function extractFromHeaders(status: number, headers: [string, string][], baseUrl: string): Outlink[] {
  // The base is parsed only when a header names a link: most responses (an image, a page) have
  // none, and this runs on the crawl thread for every body it does not hand to the worker.
  let base: URL | null | undefined;
  const list = new OutlinkList(MAX_HEADER_LINKS);
  for (const [rawName, value] of headers) {
    const name = rawName.toLowerCase();
    if (!LINK_HEADERS.has(name)) continue;
    if (base === undefined) {
      base = URL.parse(baseUrl);
      if (base !== null) base.hash = '';
    }
    if (base === null) return [];
    if (name === 'location') {
      if (status >= 300 && status < 400) list.addRaw(value, base, 'R', 'header/Location');
    } else if (name === 'content-location') {
      const u = URL.parse(value.trim(), base);
      if (u !== null) u.hash = '';
      if (u === null || u.href !== base.href) list.addRaw(value, base, 'R', 'header/Content-Location');
    } else if (name === 'link') {
      for (const { target, rel } of parseLinkHeader(value)) {
        const hop = linkRelHop(rel);
        if (hop !== null) list.addRaw(target, base, hop, 'header/Link');
      }
    } else if (name === 'refresh') {
      const target = refreshTarget(value);
      if (target !== null) list.addRaw(target, base, 'R', 'header/Refresh');
    }
  }
  return list.outlinks;
}

export interface LinkValue {
  /** The URI reference between `<` and `>`, unresolved. */
  target: string;
  /** The `rel` parameter (space-separated relation types), or '' when absent. */
  rel: string;
}

/** Parse one `Link` header value into its links (RFC 8288 §3), tolerating sloppy spacing. */
export function parseLinkHeader(value: string): LinkValue[] {
  const links: LinkValue[] = [];
  const n = value.length;
  let i = 0;
  while (i < n) {
    const lt = value.indexOf('<', i);
    if (lt < 0) break;
    const gt = value.indexOf('>', lt + 1);
    if (gt < 0) break;
    const target = value.slice(lt + 1, gt).trim();
    // Parameters run to the next comma outside a quoted string.
    let j = gt + 1;
    let inQuote = false;
    while (j < n) {
      const c = value[j];
      if (inQuote) {
        if (c === '\\') j++;
        else if (c === '"') inQuote = false;
      } else if (c === '"') inQuote = true;
      else if (c === ',') break;
      j++;
    }
    links.push({ target, rel: relParam(value.slice(gt + 1, j)) });
    i = j + 1;
  }
  return links;
}

function relParam(params: string): string {
  const m = /;\s*rel\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;,\s]+))/i.exec(params);
  if (!m) return '';
  return (m[1] ?? m[2] ?? '').replace(/\\(.)/g, '$1');
}
