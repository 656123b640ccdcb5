/**
 * How the capture index stores a WARC-Record-ID (schema version 7). Nearly every record id is a
 * `<urn:uuid:…>` in lower-case hex (what Trove, Heritrix, wget, warcio and Browsertrix write):
 * 47 characters of text that carry 16 bytes, stored in every row and in `records_record_id`.
 * Such an id is stored as its 16 bytes (a BLOB); any other id (upper-case hex, another URI
 * scheme) stays the text it was, so every id reads back exactly as written. Hand-written: no
 * library maps a UUID URN to bytes and back in SQL, which the readers need (recordIdSql).
 */

const UUID_ID = /^<urn:uuid:([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})>$/;

/** The stored form of a record id: 16 bytes for a lower-case `<urn:uuid:…>`, else the text. */
export function recordIdKey(id: string): string | Buffer;
export function recordIdKey(id: string | null): string | Buffer | null;
export function recordIdKey(id: string | null): string | Buffer | null {
  if (id === null) return null;
  const m = UUID_ID.exec(id);
  return m ? Buffer.from(m.slice(1).join(''), 'hex') : id;
}

/** SQL for the record id text of a stored key column `col` (the inverse of recordIdKey). */
export function recordIdSql(col: string): string {
  const hex = (from: number, n?: number) => `substr(hex(${col}), ${from}${n === undefined ? '' : `, ${n}`})`;
  return `CASE WHEN typeof(${col}) = 'blob' THEN '<urn:uuid:' || lower(${hex(1, 8)} || '-' || ${hex(9, 4)} || '-' || ${hex(13, 4)} || '-' || ${hex(17, 4)} || '-' || ${hex(21)}) || '>' ELSE ${col} END`;
}
