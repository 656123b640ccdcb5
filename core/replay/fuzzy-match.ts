/**
 * Fuzzy matching: which capture to serve when no capture has the requested URL's exact key.
 * Pages ask for URLs that differ from the ones archived only in parts that change on every
 * visit (cache-busters, jsonp callback names, analytics tags), so pywb and wabac.js relax the
 * match. The rules here (pure functions; the lookup is in choose-capture.ts):
 *
 * - parameters that carry no meaning for the content are ignored: `_`, `cb` and friends,
 *   `utm_*`, jsonp `callback=`, and any value that looks like a Unix timestamp;
 * - for static files (`.js .css .png …`) the query is ignored altogether;
 * - otherwise candidates that share the URL up to `?` are scored by how many query parameters
 *   they share with the request; the best wins, ties going to the capture closest in time.
 */

const STATIC_EXT = /\.(js|mjs|css|png|jpe?g|gif|svg|webp|avif|ico|bmp|woff2?|ttf|otf|eot|mp3|mp4|webm|ogg|ogv|m4a|m4v|wav|flac|pdf|map|wasm)$/i;

/** Parameter names that only defeat caches or track visits. */
const BUSTER_NAMES = new Set(['_', 'cb', 'cachebust', 'cachebuster', 'cache_bust', 'nocache', 'no_cache', 'rnd', 'rand', 'random', '_t', '__t', 'ts', 'timestamp', '_ts', 'bust', 'fbclid', 'gclid', 'dclid', 'msclkid', 'mc_cid', 'mc_eid']);
/** jsonp callback parameter names; their values are generated per request. */
export const JSONP_NAMES = new Set(['callback', 'jsonp', 'jsoncallback', 'cb_jsonp']);

export type QueryParam = [string, string];

/** The query parameters of a URL (raw, not decoded, in order). */
export function queryParams(url: string): QueryParam[] {
  const q = url.indexOf('?');
  if (q < 0) return [];
  const hash = url.indexOf('#', q);
  const query = url.slice(q + 1, hash < 0 ? undefined : hash);
  const out: QueryParam[] = [];
  for (const part of query.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    out.push(eq < 0 ? [part.toLowerCase(), ''] : [part.slice(0, eq).toLowerCase(), part.slice(eq + 1)]);
  }
  return out;
}

/** True for a parameter that should not decide which capture is served. */
export function isCacheBuster([name, value]: QueryParam): boolean {
  if (BUSTER_NAMES.has(name) || JSONP_NAMES.has(name) || name.startsWith('utm_')) return true;
  // Unix time in seconds or milliseconds (2001 onwards): a timestamp added to defeat caches.
  return /^1\d{9}(\d{3})?$/.test(value);
}

/** The URL without query and fragment. */
export function withoutQuery(url: string): string {
  const cut = url.search(/[?#]/);
  return cut < 0 ? url : url.slice(0, cut);
}

export function isStaticFile(url: string): boolean {
  let path = withoutQuery(url);
  const scheme = path.indexOf('://');
  if (scheme >= 0) {
    const slash = path.indexOf('/', scheme + 3);
    path = slash < 0 ? '/' : path.slice(slash);
  }
  return STATIC_EXT.test(path);
}

/** The parameters that count, as `name=value` strings. */
export function meaningfulParams(url: string): string[] {
  return queryParams(url)
    .filter((p) => !isCacheBuster(p))
    .map(([k, v]) => `${k}=${safeDecode(v)}`);
}

function safeDecode(v: string): string {
  try {
    return decodeURIComponent(v.replace(/\+/g, ' '));
  } catch {
    return v;
  }
}

/**
 * How alike two parameter lists are, 0..1: matching `name=value` pairs count fully, a shared
 * name with another value counts a quarter; divided by the size of the union of names, so extra
 * parameters on either side lower the score. Two empty lists score 1.
 */
export function paramSimilarity(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 && b.length === 0) return 1;
  const name = (p: string) => p.slice(0, p.indexOf('='));
  const bPairs = new Set(b);
  const bNames = new Set(b.map(name));
  const names = new Set([...a.map(name), ...bNames]);
  let score = 0;
  for (const p of new Set(a)) {
    if (bPairs.has(p)) score += 1;
    else if (bNames.has(name(p))) score += 0.25;
  }
  return score / names.size;
}

/** The jsonp callback name a URL asks for, if any. */
export function jsonpCallback(url: string): string | null {
  for (const [k, v] of queryParams(url)) if (JSONP_NAMES.has(k) && /^[\w$.]+$/.test(v)) return v;
  return null;
}

/**
 * A jsonp body archived for one callback name, answered for another: `oldName(` at the start
 * (after whitespace and comments) becomes `newName(`, as pywb does, so the page's new callback
 * is the one called. Anything else is returned unchanged.
 */
export function renameJsonpCallback(body: Buffer, oldName: string, newName: string): Buffer {
  if (oldName === newName) return body;
  const head = body.toString('latin1', 0, Math.min(body.length, 4096));
  const m = /^(\s*(?:\/\*[\s\S]*?\*\/\s*)*(?:\/\*\*\/\s*)?(?:typeof\s+[\w$.]+\s*===?\s*['"]function['"]\s*&&\s*)?)([\w$.]+)(\s*\()/.exec(head);
  if (!m || m[2] !== oldName) return body;
  const start = Buffer.byteLength(m[1]!, 'latin1');
  return Buffer.concat([body.subarray(0, start), Buffer.from(newName, 'latin1'), body.subarray(start + Buffer.byteLength(oldName, 'latin1'))]);
}
