/**
 * How the capture index stores a record's WARC-Date (schema version 8). The row's `ts` already
 * holds its first 14 digits (`yyyyMMddHHmmss`), so a date written as the ISO form of those
 * digits, with three digits of milliseconds (what Trove writes) or none (what wget, Heritrix and
 * warcio write), is stored as the milliseconds alone: a BLOB of 2 bytes (big-endian 0–999), or
 * of none for no fraction, instead of 20–24 characters (a BLOB, as the column's TEXT affinity
 * would turn an integer into text). Any other date (another precision, an offset, digits that
 * differ from `ts`) stays the text it was, so every date reads back exactly as written. Read in JS by the row mappers with the row's own `ts` (a
 * compact row takes both from its parent); hand-written, as no library knows this layout.
 */

import { isoFromTimestamp14 } from '../formats/timestamp.ts';

const ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{3}))?Z$/;

/** The stored form of `date` in a row whose timestamp is `ts`. */
export function dateKey(date: string | null, ts: string | null): string | Buffer | null {
  if (date === null || ts === null) return date;
  const m = ISO.exec(date);
  if (!m || m.slice(1, 7).join('') !== ts) return date;
  if (m[7] === undefined) return Buffer.alloc(0);
  const ms = Number(m[7]);
  return Buffer.from([ms >> 8, ms & 0xff]);
}

/** The WARC-Date of a stored key (the inverse of dateKey), given the row's timestamp. */
export function dateFromKey(key: string | Uint8Array | null, ts: string | null): string | null {
  if (key === null || typeof key === 'string') return key;
  if (ts === null) throw new Error('a date stored as milliseconds needs the row timestamp');
  const fraction = key.length === 0 ? '' : `.${String((key[0]! << 8) | key[1]!).padStart(3, '0')}`;
  return isoFromTimestamp14(ts, fraction);
}
