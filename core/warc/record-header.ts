/**
 * WARC/1.1 record headers, built by hand (pure functions, no I/O).
 *
 * A header is `WARC/1.1\r\n`, then `Name: value\r\n` lines, then an empty line. Names are HTTP
 * tokens; values are UTF-8 text on one line. Anything that could inject a line break (CR, LF) or
 * other control characters is refused with `WARC_BAD_FIELD`, so a hostile URL or header value
 * can never forge a second record or a field.
 */
import { randomUUID } from 'node:crypto';
import { TroveError } from '../errors.ts';

export const WARC_VERSION = 'WARC/1.1';

/** RFC 9110 token characters: what a WARC field name may contain. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** C0 controls except HTAB, and DEL. CR and LF are the dangerous ones; the rest are never legitimate. */
const BAD_VALUE_CHAR = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/** A fresh record id, `<urn:uuid:…>` as the spec's examples and every major tool write it. */
export function newRecordId(): string {
  return `<urn:uuid:${randomUUID()}>`;
}

/**
 * WARC 1.1 date (W3C-ISO8601, UTC). 1.1 allows sub-second precision, so the milliseconds are
 * kept: `2026-11-21T09:00:00.123Z`. Invalid dates, and years the format cannot hold, are refused.
 */
export function warcDate(d: Date): string {
  const t = d instanceof Date ? d.getTime() : Number.NaN;
  if (!Number.isFinite(t)) {
    throw new TroveError('WARC_BAD_FIELD', 'WARC-Date: not a valid date', { field: 'WARC-Date' });
  }
  const iso = new Date(t).toISOString();
  if (!/^\d{4}-/.test(iso)) {
    throw new TroveError('WARC_BAD_FIELD', `WARC-Date: year out of range (${iso})`, { field: 'WARC-Date', value: iso });
  }
  return iso;
}

/** Throws `WARC_BAD_FIELD` unless `name` is a token. */
export function checkFieldName(name: string): void {
  if (typeof name !== 'string' || !TOKEN.test(name)) {
    throw new TroveError('WARC_BAD_FIELD', `bad WARC field name: ${JSON.stringify(name)}`, { field: name });
  }
}

/** Throws `WARC_BAD_FIELD` if `value` holds a line break or another control character. */
export function checkFieldValue(name: string, value: string): void {
  if (typeof value !== 'string') {
    throw new TroveError('WARC_BAD_FIELD', `WARC field ${name}: value is not a string`, { field: name });
  }
  if (BAD_VALUE_CHAR.test(value)) {
    throw new TroveError('WARC_BAD_FIELD', `WARC field ${name}: value contains a control character (CR/LF injection?)`, {
      field: name,
      value,
    });
  }
}

/**
 * `WARC/1.1\r\n` + `Name: value\r\n`… + `\r\n`, in the order given. The caller decides which
 * fields a record needs (the writer adds the mandatory ones); this only validates and encodes.
 */
export function buildRecordHeader(fields: [string, string][]): Buffer {
  for (const [name, value] of fields) {
    checkFieldName(name);
    checkFieldValue(name, value);
  }
  return encodeRecordHeader(fields);
}

/**
 * The same bytes as buildRecordHeader, for fields every one of which was checked already:
 * write-record-input.ts checks a record's fields once, when it is prepared, and the writer then
 * encodes its header without checking them a second time (a crawl writes three records per URI).
 */
export function encodeRecordHeader(fields: readonly (readonly [string, string])[]): Buffer {
  let text = `${WARC_VERSION}\r\n`;
  for (const [name, value] of fields) text += `${name}: ${value}\r\n`;
  text += '\r\n';
  return Buffer.from(text, 'utf8');
}

/**
 * An `application/warc-fields` body (for warcinfo and metadata records): one `key: value\r\n`
 * line per entry, in insertion order; an array repeats its key once per element (as Heritrix
 * writes `outlink:` lines). Numbers must be finite; booleans become `true`/`false`.
 */
export function warcFields(map: Record<string, string | number | boolean | string[]>): string {
  let text = '';
  for (const [key, raw] of Object.entries(map)) {
    checkFieldName(key);
    const values = Array.isArray(raw) ? raw : [raw];
    for (const v of values) {
      if (typeof v === 'number' && !Number.isFinite(v)) {
        throw new TroveError('WARC_BAD_FIELD', `warc-fields ${key}: number is not finite`, { field: key, value: String(v) });
      }
      const value = typeof v === 'string' ? v : String(v);
      checkFieldValue(key, value);
      text += `${key}: ${value}\r\n`;
    }
  }
  return text;
}
