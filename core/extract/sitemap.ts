/**
 * XML sitemaps (`<urlset>`) and sitemap indexes (`<sitemapindex>`), plain or gzip-compressed.
 *
 * A bounded hand-written scanner instead of an XML library: a sitemap is a flat list of `<loc>`
 * elements, and real ones are often not well-formed (stray `&`, HTML error pages, truncated
 * gzip), which a conforming XML parser rejects outright. The scanner reads the root element's
 * name, then every `<loc>` in the sitemap namespace (same prefix as the root, so `<image:loc>`
 * and other extensions are left out), once, left to right, in linear time. Inflated size is
 * capped at the protocol's 50 MiB, and the number of entries at `maxUrls`.
 */
import { decodeBody } from './decode-body.ts';
import { canonicalEncoding } from './html-charset.ts';

export type SitemapKind = 'urlset' | 'sitemapindex' | 'unknown';

export interface SitemapExtraction {
  /** Page URLs from a `<urlset>`, absolute. */
  urls: string[];
  /** Child sitemap URLs from a `<sitemapindex>`, absolute. */
  sitemaps: string[];
  kind: SitemapKind;
  /** True when more than maxUrls entries (or more than 50 MiB inflated) were present. */
  truncated: boolean;
  /** A corrupt gzip layer: what inflated before the damage was still read. */
  error?: string;
}

/** sitemaps.org: at most 50,000 URLs and 50 MB uncompressed per file. */
export const MAX_SITEMAP_BYTES = 50 * 1024 * 1024;

export function extractSitemap(xml: Buffer, baseUrl: string, maxUrls: number): SitemapExtraction {
  let data = xml;
  let truncated = false;
  let error: string | undefined;
  if (isGzip(data)) {
    const inflated = decodeBody(data, 'gzip', MAX_SITEMAP_BYTES);
    data = inflated.body;
    truncated = inflated.truncated;
    error = inflated.error;
  }
  const text = decodeXmlText(data);
  const root = rootElement(text);
  const result: SitemapExtraction = { urls: [], sitemaps: [], kind: 'unknown', truncated, ...(error ? { error } : {}) };
  if (root === null) return result;
  const local = root.name.slice(root.name.indexOf(':') + 1).toLowerCase();
  if (local !== 'urlset' && local !== 'sitemapindex') return result;
  result.kind = local;
  const prefix = root.name.includes(':') ? root.name.slice(0, root.name.indexOf(':') + 1) : '';
  const into = local === 'urlset' ? result.urls : result.sitemaps;
  const base = URL.parse(baseUrl);
  const limit = Math.max(0, Math.floor(maxUrls));
  const seen = new Set<string>();
  for (const raw of locValues(text, prefix + 'loc', root.end)) {
    const url = URL.parse(raw.trim(), base ?? undefined);
    if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) continue;
    url.hash = '';
    if (seen.has(url.href)) continue;
    if (into.length >= limit) {
      result.truncated = true;
      break;
    }
    seen.add(url.href);
    into.push(url.href);
  }
  return result;
}

/** Whether a URL path looks like a sitemap (`/sitemap.xml`, `/sitemap_index.xml.gz`, `/sitemaps/news.xml`). */
export function looksLikeSitemapUrl(url: string): boolean {
  const path = URL.parse(url)?.pathname.toLowerCase() ?? '';
  return path.includes('sitemap') && /\.xml(\.gz)?$|\/$|sitemap[^/]*$/.test(path);
}

/** The root element's name, if the document starts (after prolog, comments, doctype) with one. */
export function sniffSitemapRoot(body: Buffer): SitemapKind {
  const data = isGzip(body) ? decodeBody(body.subarray(0, 64 * 1024), 'gzip', 4096).body : body.subarray(0, 4096);
  const root = rootElement(decodeXmlText(data));
  const local = root?.name.slice(root.name.indexOf(':') + 1).toLowerCase();
  return local === 'urlset' || local === 'sitemapindex' ? local : 'unknown';
}

function isGzip(data: Uint8Array): boolean {
  return data.length >= 2 && data[0] === 0x1f && data[1] === 0x8b;
}

/** UTF-8 unless a BOM or the XML declaration says otherwise; bad bytes become U+FFFD. */
function decodeXmlText(data: Buffer): string {
  let encoding = 'utf-8';
  if (data[0] === 0xfe && data[1] === 0xff) encoding = 'utf-16be';
  else if (data[0] === 0xff && data[1] === 0xfe) encoding = 'utf-16le';
  else {
    const decl = /^(?:\ufeff)?<\?xml[^>]*?encoding\s*=\s*["']([^"']+)["']/.exec(data.toString('latin1', 0, 200));
    if (decl) encoding = canonicalEncoding(decl[1]!) ?? 'utf-8';
  }
  return new TextDecoder(encoding, { fatal: false }).decode(data);
}

function rootElement(text: string): { name: string; end: number } | null {
  let i = 0;
  const n = text.length;
  while (i < n) {
    const lt = text.indexOf('<', i);
    if (lt < 0) return null;
    if (text.startsWith('<?', lt)) {
      const end = text.indexOf('?>', lt + 2);
      if (end < 0) return null;
      i = end + 2;
    } else if (text.startsWith('<!--', lt)) {
      const end = text.indexOf('-->', lt + 4);
      if (end < 0) return null;
      i = end + 3;
    } else if (text.startsWith('<!', lt)) {
      const end = text.indexOf('>', lt + 2);
      if (end < 0) return null;
      i = end + 1;
    } else {
      const m = /^<([A-Za-z_][\w.:-]*)/.exec(text.slice(lt, lt + 256));
      if (!m) return null;
      const end = text.indexOf('>', lt);
      return { name: m[1]!, end: end < 0 ? n : end + 1 };
    }
  }
  return null;
}

/** Text of every `<tag>…</tag>` (CDATA and entities decoded), scanning forward only. */
function* locValues(text: string, tag: string, from: number): Generator<string> {
  const lower = tag.toLowerCase();
  let next = from;
  for (;;) {
    const opened = openTagEnd(text, lower, next);
    if (opened < 0) return;
    let i = opened;
    let value = '';
    // Content: character data and CDATA sections up to the next tag.
    for (;;) {
      if (text.startsWith('<![CDATA[', i)) {
        const end = text.indexOf(']]>', i + 9);
        if (end < 0) return;
        value += text.slice(i + 9, end);
        i = end + 3;
        continue;
      }
      const lt = text.indexOf('<', i);
      if (lt < 0) return;
      value += decodeEntities(text.slice(i, lt));
      i = lt;
      if (!text.startsWith('<![CDATA[', i)) break;
    }
    next = i;
    if (text.startsWith('</', i)) yield value;
  }
}

/**
 * Where the first `<tag>` or `<tag …>` (any case; `tag` given in lower case) at or after `from`
 * ends, or -1. A scan from `<` to `<` rather than the regex `<tag(?:\s[^>]*)?>`, which ran to the end of the text for every
 * `<tag` without a `>` after it: O(n²) on a hostile sitemap, now extracted on the crawl thread.
 */
function openTagEnd(text: string, tag: string, from: number): number {
  for (let lt = text.indexOf('<', from); lt >= 0; lt = text.indexOf('<', lt + 1)) {
    const after = lt + 1 + tag.length;
    if (text.slice(lt + 1, after).toLowerCase() !== tag) continue;
    const c = text.charAt(after);
    if (c === '>') return after + 1;
    if (c === '' || !/\s/.test(c)) continue;
    const gt = text.indexOf('>', after);
    return gt < 0 ? -1 : gt + 1;
  }
  return -1;
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|amp|lt|gt|quot|apos);/g, (whole, ref: string) => {
    if (ref[0] !== '#') return NAMED[ref]!;
    const cp = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : whole;
  });
}
