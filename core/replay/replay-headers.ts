/**
 * The headers replay hands to a browser: the archived ones, less those that describe the
 * connection (hop-by-hop) or the stored bytes rather than the decoded body replay serves
 * (Transfer-Encoding, Content-Encoding, Content-Length), plus a Content-Length for that body.
 */

/** RFC 9110 §7.6.1 hop-by-hop fields, and the old ones browsers still know. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'trailers', 'upgrade']);
/** Fields about the stored bytes: replay serves the body de-chunked and decoded. */
const STORED_FORM = new Set(['transfer-encoding', 'content-encoding', 'content-length']);

/** `bodyLength` null: the length is not known (a HEAD-like answer that did not decode the body); no Content-Length is added. */
export function replayHeaders(archived: readonly [string, string][], bodyLength: number | null): [string, string][] {
  const named = new Set<string>();
  for (const [k, v] of archived) {
    if (k.toLowerCase() === 'connection') for (const t of v.split(',')) named.add(t.trim().toLowerCase());
  }
  const out: [string, string][] = [];
  for (const [k, v] of archived) {
    const lower = k.toLowerCase();
    if (HOP_BY_HOP.has(lower) || STORED_FORM.has(lower) || named.has(lower)) continue;
    out.push([k, v]);
  }
  if (bodyLength !== null) out.push(['Content-Length', String(bodyLength)]);
  return out;
}

export interface ByteRange {
  start: number;
  /** Inclusive. */
  end: number;
}

/**
 * A single `bytes=` range of a body of `size` bytes (RFC 9110 §14.1.2), or null when there is
 * no usable range (several ranges, other units, garbage: the whole body is served, as allowed),
 * or 'unsatisfiable'.
 */
export function parseRange(value: string | null, size: number): ByteRange | 'unsatisfiable' | null {
  if (!value) return null;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(value);
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}
