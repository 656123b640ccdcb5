/**
 * Which character encoding an HTML body is in, in the WHATWG order: byte order mark, then the
 * Content-Type charset, then a `<meta charset>` / `<meta http-equiv=content-type>` in the first
 * 1024 bytes (the "prescan"), then an XML declaration's encoding; with none of these, UTF-8
 * when the body is XML (XHTML MIME type or `<?xml` prolog, where UTF-8 is the XML default) or when
 * its first 64 KiB are valid UTF-8 with some non-ASCII bytes (the autodetection step WHATWG
 * allows before the default, and what browsers do today), else windows-1252.
 *
 * Written by hand because no maintained npm package implements the prescan on bytes without
 * pulling in a full DOM; the labels themselves are resolved by the platform's TextDecoder, which
 * knows every WHATWG encoding label (Node ships full ICU).
 */

export type CharsetSource = 'bom' | 'header' | 'meta' | 'xml' | 'sniffed' | 'default';

export interface SniffedCharset {
  /** Canonical WHATWG encoding name, as `TextDecoder#encoding` reports it (e.g. `shift_jis`). */
  encoding: string;
  source: CharsetSource;
  /** Bytes of BOM to skip before decoding. */
  bomLength: number;
}

const PRESCAN_BYTES = 1024;

/** The canonical name for an encoding label, or null when TextDecoder does not know it. */
export function canonicalEncoding(label: string): string | null {
  try {
    let name = new TextDecoder(label.trim()).encoding;
    // The spec maps UTF-16 labels found in a meta tag to UTF-8 (the bytes were ASCII-compatible to get there).
    if (name === 'utf-16le' || name === 'utf-16be') name = 'utf-8';
    return name;
  } catch {
    return null;
  }
}

/** The `charset` parameter of a Content-Type value, unquoted, or null. */
export function charsetParam(contentType: string | undefined): string | null {
  if (!contentType) return null;
  const m = /;\s*charset\s*=\s*("([^"]*)"|'([^']*)'|[^;,\s]+)/i.exec(contentType);
  if (!m) return null;
  return (m[2] ?? m[3] ?? m[1]!).trim() || null;
}

export function sniffHtmlCharset(body: Uint8Array, contentType?: string): SniffedCharset {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return { encoding: 'utf-8', source: 'bom', bomLength: 3 };
  if (body[0] === 0xfe && body[1] === 0xff) return { encoding: 'utf-16be', source: 'bom', bomLength: 2 };
  if (body[0] === 0xff && body[1] === 0xfe) return { encoding: 'utf-16le', source: 'bom', bomLength: 2 };

  const fromHeader = charsetParam(contentType);
  if (fromHeader) {
    const name = canonicalEncodingFromHeader(fromHeader);
    if (name) return { encoding: name, source: 'header', bomLength: 0 };
  }

  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.length, PRESCAN_BYTES)).toString('latin1');
  const fromMeta = prescanMeta(head);
  if (fromMeta) return { encoding: fromMeta, source: 'meta', bomLength: 0 };

  const xml = /^<\?xml[^>]*?encoding\s*=\s*["']([^"']+)["']/i.exec(head);
  if (xml) {
    const name = canonicalEncoding(xml[1]!);
    if (name) return { encoding: name, source: 'xml', bomLength: 0 };
  }
  if (/xhtml\+xml/i.test(contentType ?? '') || head.startsWith('<?xml')) return { encoding: 'utf-8', source: 'xml', bomLength: 0 };
  if (looksLikeUtf8(body)) return { encoding: 'utf-8', source: 'sniffed', bomLength: 0 };
  return { encoding: 'windows-1252', source: 'default', bomLength: 0 };
}

const SNIFF_BYTES = 64 * 1024;

/** Valid UTF-8 with at least one multi-byte sequence in the first 64 KiB (a cut sequence at the end is fine). */
function looksLikeUtf8(body: Uint8Array): boolean {
  const sample = body.subarray(0, SNIFF_BYTES);
  if (!sample.some((b) => b >= 0x80)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(sample, { stream: sample.length < body.length });
    return true;
  } catch {
    return false;
  }
}

/** A header may name UTF-16 for real, so it is not folded into UTF-8 as a meta label is. */
function canonicalEncodingFromHeader(label: string): string | null {
  try {
    return new TextDecoder(label.trim()).encoding;
  } catch {
    return null;
  }
}

/**
 * A reduced WHATWG prescan over the first 1024 bytes read as latin1: skip comments, look at each
 * `<meta …>` tag's attributes, and take `charset=` or `http-equiv=content-type` + `content=…charset=…`.
 */
function prescanMeta(head: string): string | null {
  let i = 0;
  while (i < head.length) {
    const lt = head.indexOf('<', i);
    if (lt < 0) return null;
    if (head.startsWith('<!--', lt)) {
      const end = head.indexOf('-->', lt + 4);
      if (end < 0) return null;
      i = end + 3;
      continue;
    }
    if (/^<meta[\s/]/i.test(head.slice(lt, lt + 6))) {
      const end = head.indexOf('>', lt);
      const attrs = parseAttributes(head.slice(lt + 5, end < 0 ? head.length : end));
      const found = charsetFromMeta(attrs);
      if (found) return found;
      if (end < 0) return null;
      i = end + 1;
      continue;
    }
    i = lt + 1;
  }
  return null;
}

function charsetFromMeta(attrs: Map<string, string>): string | null {
  const charset = attrs.get('charset');
  if (charset !== undefined) {
    const name = canonicalEncoding(charset);
    if (name) return name;
  }
  if (attrs.get('http-equiv')?.toLowerCase() === 'content-type') {
    const fromContent = /charset\s*=\s*["']?([^"';\s]+)/i.exec(attrs.get('content') ?? '');
    if (fromContent) return canonicalEncoding(fromContent[1]!);
  }
  return null;
}

/** Attributes of one tag: name=value, name="value", name='value' or a bare name; first one wins. */
function parseAttributes(s: string): Map<string, string> {
  const attrs = new Map<string, string>();
  const re = /([^\s=/>]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]+))?/g;
  for (const m of s.matchAll(re)) {
    const name = m[1]!.toLowerCase();
    let value = m[2] ?? '';
    if (value.startsWith('"') || value.startsWith("'")) value = value.slice(1, -1);
    if (!attrs.has(name)) attrs.set(name, value);
  }
  return attrs;
}
