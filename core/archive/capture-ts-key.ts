/**
 * How the capture index stores a record's 14-digit timestamp `ts` (schema version 9): as the
 * integer those digits spell, which takes 6 bytes in the row and in each of the four indexes
 * that hold it (`records_urlkey_ts`, `records_digest`, `records_ts`, `records_pages`) instead of
 * 14 characters, and sorts the same (fixed width, so numeric order is text order). Any other
 * value stays the text it was (the index refuses such a ts since it checks rows, so only a
 * database another build or tool wrote can hold one). The column has no type affinity (a TEXT
 * column would turn the integer back into text). SQLite sorts every integer before every text,
 * so such a row sorts after the 14-digit ones and is greater than any integer bound; lookups and
 * filters bind tsKey's value, an integer for a 14-digit bound. Read back through tsSql
 * (zero-padded, so a year before 1000 keeps its digits). Hand-written, as no library knows this
 * layout.
 */

import { isTimestamp14 } from './capture-timestamp.ts';

/**
 * The stored form of a timestamp: the integer for 14 digits, else the text. A bigint, as
 * better-sqlite3 binds every JS number as a REAL (8 bytes in a column without affinity) and only
 * a bigint as an INTEGER.
 */
export function tsKey(ts: string): string | bigint;
export function tsKey(ts: string | null): string | bigint | null;
export function tsKey(ts: string | null): string | bigint | null {
  return ts !== null && isTimestamp14(ts) ? BigInt(ts) : ts;
}

/** SQL for the timestamp text of a stored key expression `col` (the inverse of tsKey). */
export function tsSql(col: string): string {
  return `CASE WHEN typeof(${col}) = 'integer' THEN printf('%014d', ${col}) ELSE ${col} END`;
}
