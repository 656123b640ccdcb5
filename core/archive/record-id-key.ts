/**
 * How the capture index stores a WARC-Record-ID (schema version 7). Nearly every record id is a
 * `<urn:uuid:…>` in lower-case hex (what Trove, Heritrix, wget, warcio and Browsertrix write):
 * 47 characters of text that carry 16 bytes, stored in every row and in `records_record_id`.
 * Such an id is stored as its 16 bytes (a BLOB); any other id (upper-case hex, another URI
 * scheme) stays the text it was, so every id reads back exactly as written. Hand-written: no
 * library maps a UUID URN to bytes and back in SQL, which the readers need (recordIdSql).
 */

const PREFIX = '<urn:uuid:';
/** Where the hex digits of `<urn:uuid:xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx>` start, in pairs. */
const PAIRS = [10, 12, 14, 16, 19, 21, 24, 26, 29, 31, 34, 36, 38, 40, 42, 44];

/**
 * The stored form of a record id: 16 bytes for a lower-case `<urn:uuid:…>`, else the text.
 * Read by character codes rather than a regex, its groups joined and hex-decoded: the crawl
 * stores three ids per URI and looks up parents by id (issue 20).
 */
export function recordIdKey(id: string): string | Buffer;
export function recordIdKey(id: string | null): string | Buffer | null;
export function recordIdKey(id: string | null): string | Buffer | null {
  if (id === null) return null;
  if (id.length !== 47 || !id.startsWith(PREFIX) || id.charCodeAt(46) !== 0x3e) return id;
  if (id.charCodeAt(18) !== 0x2d || id.charCodeAt(23) !== 0x2d || id.charCodeAt(28) !== 0x2d || id.charCodeAt(33) !== 0x2d) return id;
  const out = Buffer.alloc(16);
  for (let i = 0; i < 16; i++) {
    const hi = hexValue(id.charCodeAt(PAIRS[i]!));
    const lo = hexValue(id.charCodeAt(PAIRS[i]! + 1));
    if (hi < 0 || lo < 0) return id;
    out[i] = (hi << 4) | lo;
  }
  return out;
}

/** A lower-case hex digit's value, else -1 (upper case stays text: it would not read back as written). */
function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

/** SQL for the record id text of a stored key column `col` (the inverse of recordIdKey). */
export function recordIdSql(col: string): string {
  const hex = (from: number, n?: number) => `substr(hex(${col}), ${from}${n === undefined ? '' : `, ${n}`})`;
  return `CASE WHEN typeof(${col}) = 'blob' THEN '<urn:uuid:' || lower(${hex(1, 8)} || '-' || ${hex(9, 4)} || '-' || ${hex(13, 4)} || '-' || ${hex(17, 4)} || '-' || ${hex(21)}) || '>' ELSE ${col} END`;
}
