/**
 * How the capture index stores a record's WARC-Type (schema version 9). Each of the eight types
 * WARC 1.1 defines (section 6) is stored as a small integer: SQLite stores 0 and 1 with no payload
 * byte at all and 2–7 in one, against 7–8 characters of text in every row and again in
 * `records_type`. The three a crawl writes per URI come first (response, request, metadata). Any
 * other value (a foreign WARC's differently-cased or unknown type) stays the text it was, so
 * every type reads back exactly as written; the column has no type affinity (a TEXT column would
 * turn the integer back into text). Readers read it through recordTypeSql; filters bind
 * recordTypeKey's value, and SQL that names types spells their codes with recordTypeList.
 * Hand-written: the table is this schema's own.
 */

/** The code of each WARC 1.1 record type. Released codes never change. */
const CODES: ReadonlyMap<string, number> = new Map([
  ['response', 0],
  ['request', 1],
  ['metadata', 2],
  ['revisit', 3],
  ['resource', 4],
  ['warcinfo', 5],
  ['conversion', 6],
  ['continuation', 7],
]);

/**
 * The stored form of a record type: its code for a WARC 1.1 type as the spec spells it, else the
 * text. A bigint, as better-sqlite3 binds every JS number as a REAL (8 bytes in a column without
 * affinity) and only a bigint as an INTEGER.
 */
export function recordTypeKey(type: string): string | bigint {
  const code = CODES.get(type);
  return code === undefined ? type : BigInt(code);
}

/** The codes of `types` as an SQL list, `(0, 3, 4)`: each must be a WARC 1.1 type. */
export function recordTypeList(types: Iterable<string>): string {
  return `(${[...types].map((t) => recordTypeCode(t)).join(', ')})`;
}

/** The code of a WARC 1.1 type, for SQL written out (a partial index's WHERE, a fixed filter). */
export function recordTypeCode(type: string): number {
  const code = CODES.get(type);
  if (code === undefined) throw new Error(`not a WARC 1.1 record type: ${type}`);
  return code;
}

/** SQL for the record type text of a stored key column `col` (the inverse of recordTypeKey). */
export function recordTypeSql(col: string): string {
  return `CASE ${col} ${[...CODES].map(([type, code]) => `WHEN ${code} THEN '${type}'`).join(' ')} ELSE ${col} END`;
}
