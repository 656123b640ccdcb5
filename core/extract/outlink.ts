/**
 * An outlink: a URL found in a fetched document, with the Heritrix hop type that says how it
 * was found (the scope rules treat links, embeds and redirects differently) and a short context
 * such as `a/@href` that ends up in the WARC metadata record's `outlink:` lines.
 *
 * Every extractor funnels what it finds through an OutlinkList so the rules are the same
 * everywhere: WHATWG URL resolution, fragment dropped, only http(s), a hard cap, and
 * unparsable values counted instead of thrown.
 */

/** L link, E embed, R redirect, X speculative, P prerequisite, I inferred, M sitemap, S synthesized. */
export type Hop = 'L' | 'E' | 'R' | 'X' | 'P' | 'I' | 'M' | 'S';

export interface Outlink {
  /** Absolute http(s) URL, fragment dropped. */
  url: string;
  hop: Hop;
  /** Where it was found, e.g. `a/@href`, `img/@src`, `css/url()`, `header/Location`. */
  context: string;
}

/** The outcome of resolving one raw attribute or header value. */
export type Resolution =
  | { kind: 'url'; url: string }
  /** Empty, fragment-only (points at the document itself) or a non-http(s) scheme. */
  | { kind: 'ignored' }
  /** Not a URL WHATWG can parse against the base. */
  | { kind: 'invalid' };

/**
 * Longer raw values are treated as unparsable: nothing real is that long, and a multi-megabyte
 * "URL" would bloat the metadata record. The crawl's own max-URL-length rule (2083 by default,
 * as Heritrix) applies later, in scope, where it is recorded as an outcome.
 */
export const MAX_RAW_URL_CHARS = 64 * 1024;

const HOP_BITS: Record<Hop, number> = { L: 1, E: 2, R: 4, X: 8, P: 16, I: 32, M: 64, S: 128 };

const IGNORED: Resolution = { kind: 'ignored' };
const INVALID: Resolution = { kind: 'invalid' };

/**
 * Resolve `raw` against `base` the way a browser would (WHATWG URL), drop the fragment and keep
 * only http(s). A value that is empty or only a fragment is ignored rather than resolved: it
 * names the document being extracted, which is already fetched.
 */
export function resolveLink(raw: string, base: URL | string): Resolution {
  if (raw.length > MAX_RAW_URL_CHARS) return INVALID;
  const value = raw.trim();
  if (value === '' || value.charCodeAt(0) === 0x23 /* # */) return IGNORED;
  return resolveValue(value, base);
}

/** resolveLink for a trimmed value that is neither empty nor fragment-only. */
function resolveValue(value: string, base: URL | string): Resolution {
  const url = URL.parse(value, base);
  if (url === null) return INVALID;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return IGNORED;
  url.hash = '';
  return { kind: 'url', url: url.href };
}

/**
 * What a trimmed value resolves the same as: the value cut at its first `#`. In every state of
 * the WHATWG URL parser `#` ends what came before and starts the fragment, which is dropped, so
 * `page.html#a` and `page.html#b` resolve as `page.html` does. The one exception is text just
 * before the `#` that the parser strips only at the very end of its input (C0 controls and
 * space): then the whole value is the key.
 */
function resolutionKey(value: string): string {
  const hash = value.indexOf('#');
  if (hash < 0) return value;
  return value.charCodeAt(hash - 1) <= 0x20 ? value : value.slice(0, hash);
}

/** Resolutions remembered per list (one document, one base at a time); past this many, new ones are not kept. */
const MAX_CACHED_RESOLUTIONS = 20_000;

/**
 * Collects outlinks with a cap and de-duplication (same url + hop kept once, first context wins).
 * `truncated` turns true when a link beyond the cap was offered; `skipped` counts unparsable values.
 */
export class OutlinkList {
  readonly outlinks: Outlink[] = [];
  readonly maxLinks: number;
  skipped = 0;
  truncated = false;
  /** url → bit set of the hops already kept for it (cheaper than a Set of "hop url" strings). */
  private readonly seen = new Map<string, number>();
  /**
   * resolutionKey → resolution against `cacheBase`: a page names the same targets over and over
   * (`functions.html#len`, `functions.html#abs` …), and URL parsing is the costly part of a link.
   */
  private readonly cache = new Map<string, Resolution>();
  private cacheBase: URL | string | null = null;

  constructor(maxLinks: number) {
    this.maxLinks = Math.max(0, Math.floor(maxLinks));
  }

  /** True once the cap is reached: callers may stop looking. */
  get full(): boolean {
    return this.outlinks.length >= this.maxLinks;
  }

  /** Resolve and add a raw value; returns true when a new outlink was kept. */
  addRaw(raw: string, base: URL | string, hop: Hop, context: string): boolean {
    const r = this.resolve(raw, base);
    if (r.kind === 'invalid') {
      this.skipped++;
      return false;
    }
    if (r.kind === 'ignored') return false;
    return this.add({ url: r.url, hop, context });
  }

  /**
   * resolveLink, remembered for the list's current base (compared by identity for a URL object:
   * pass a new URL rather than changing one already passed).
   */
  resolve(raw: string, base: URL | string): Resolution {
    if (raw.length > MAX_RAW_URL_CHARS) return INVALID;
    const value = raw.trim();
    if (value === '' || value.charCodeAt(0) === 0x23 /* # */) return IGNORED;
    if (base !== this.cacheBase) {
      this.cache.clear();
      this.cacheBase = base;
    }
    const key = resolutionKey(value);
    let r = this.cache.get(key);
    if (r === undefined) {
      r = resolveValue(key, base);
      if (this.cache.size < MAX_CACHED_RESOLUTIONS) this.cache.set(key, r);
    }
    return r;
  }

  /** Add an already absolute, fragment-free outlink. */
  add(link: Outlink): boolean {
    const bit = HOP_BITS[link.hop];
    const hops = this.seen.get(link.url) ?? 0;
    if ((hops & bit) !== 0) return false;
    if (this.full) {
      this.truncated = true;
      return false;
    }
    this.seen.set(link.url, hops | bit);
    this.outlinks.push(link);
    return true;
  }
}
