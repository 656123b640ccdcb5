/**
 * WARC header fields checked against ISO 28500 (WARC 1.1 §5 named fields, §6 record types):
 * mandatory fields per record type, fields that may not repeat, and the syntax of each value.
 * Names and WARC-Type values compare case-insensitively (JWAT accepts `WARC-TYPE: RESPONSE`).
 */
import { isIP } from 'node:net';
import { parseLabelledDigest } from './read-digest.ts';
import type { WarcRecordHead } from './read-record.ts';

export interface FieldProblem {
  level: 'error' | 'warning';
  code: string;
  message: string;
}

/** Record types WARC 1.1 defines. */
const WARC_TYPES = new Set(['warcinfo', 'response', 'resource', 'request', 'metadata', 'revisit', 'conversion', 'continuation']);

/** Fields every record must have (§5.1). */
const MANDATORY = ['WARC-Record-ID', 'Content-Length', 'WARC-Date', 'WARC-Type'];

/** Fields a record type must add (§6). */
const MANDATORY_BY_TYPE: Record<string, string[]> = {
  response: ['WARC-Target-URI'],
  resource: ['WARC-Target-URI'],
  request: ['WARC-Target-URI'],
  revisit: ['WARC-Target-URI', 'WARC-Profile'],
  conversion: ['WARC-Target-URI'],
  continuation: ['WARC-Target-URI', 'WARC-Segment-Origin-ID', 'WARC-Segment-Number'],
};

/** Fields the standard defines; all but WARC-Concurrent-To and WARC-Protocol may appear once. */
const NAMED_FIELDS = [
  'WARC-Type', 'WARC-Record-ID', 'WARC-Date', 'Content-Length', 'Content-Type', 'WARC-Concurrent-To',
  'WARC-Block-Digest', 'WARC-Payload-Digest', 'WARC-IP-Address', 'WARC-Refers-To', 'WARC-Refers-To-Target-URI',
  'WARC-Refers-To-Date', 'WARC-Target-URI', 'WARC-Truncated', 'WARC-Warcinfo-ID', 'WARC-Filename', 'WARC-Profile',
  'WARC-Identified-Payload-Type', 'WARC-Segment-Number', 'WARC-Segment-Origin-ID', 'WARC-Segment-Total-Length',
  'WARC-Protocol', 'WARC-Cipher-Suite',
];
const REPEATABLE = new Set(['warc-concurrent-to', 'warc-protocol']);
const CANONICAL = new Map(NAMED_FIELDS.map((n) => [n.toLowerCase(), n]));

/** `<scheme:…>`, as WARC-Record-ID and the fields pointing at records are written. */
const RECORD_ID = /^<[A-Za-z][A-Za-z0-9+.-]*:[^<>\s]+>$/;
/** W3C-ISO8601 to the second, with optional fractions (WARC 1.1 §5.4). */
const DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/i;
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>"]*$/;
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}\\s*(;.*)?$`);
const TRUNCATED_REASONS = new Set(['length', 'time', 'disconnect', 'unspecified']);
const REVISIT_PROFILE = /^https?:\/\/netpreserve\.org\/warc\/(0\.17|0\.18|1\.0|1\.1)\/revisit\/(identical-payload-digest|server-not-modified|uri-agnostic-identical-payload-digest)$/i;

/** Problems with one WARC record's fields (ARC records are not checked: their fields are made up). */
export function checkRecordFields(r: WarcRecordHead): FieldProblem[] {
  const out: FieldProblem[] = [];
  const error = (code: string, message: string) => out.push({ level: 'error', code, message });
  const warning = (code: string, message: string) => out.push({ level: 'warning', code, message });

  const counts = new Map<string, number>();
  for (const [name] of r.headers) counts.set(name.toLowerCase(), (counts.get(name.toLowerCase()) ?? 0) + 1);
  for (const [lower, n] of counts) {
    const canonical = CANONICAL.get(lower);
    if (canonical && n > 1 && !REPEATABLE.has(lower)) error('WARC_REPEATED_FIELD', `${canonical} appears ${n} times but may appear only once`);
  }

  const missing = [...MANDATORY, ...(MANDATORY_BY_TYPE[r.type] ?? [])].filter((f) => !counts.has(f.toLowerCase()));
  for (const f of missing) error('WARC_MISSING_FIELD', `${r.type || 'record'} has no ${f}`);

  if (r.type && !WARC_TYPES.has(r.type)) warning('WARC_UNKNOWN_TYPE', `unknown WARC-Type ${JSON.stringify(r.get('WARC-Type'))}`);
  if (r.contentLength > 0 && r.type !== 'continuation' && !counts.has('content-type')) {
    warning('WARC_NO_CONTENT_TYPE', 'a record with a block should have a Content-Type');
  }

  const bad = (field: string, value: string, why: string) => error('WARC_BAD_FIELD', `${field} ${JSON.stringify(value.slice(0, 80))} ${why}`);
  for (const [name, value] of r.headers) {
    const field = CANONICAL.get(name.toLowerCase());
    if (!field) continue;
    switch (field) {
      case 'WARC-Record-ID':
      case 'WARC-Concurrent-To':
      case 'WARC-Refers-To':
      case 'WARC-Warcinfo-ID':
      case 'WARC-Segment-Origin-ID':
        if (!RECORD_ID.test(value)) bad(field, value, 'is not a <URI>');
        break;
      case 'WARC-Date':
      case 'WARC-Refers-To-Date':
        if (!DATE.test(value)) bad(field, value, 'is not a YYYY-MM-DDThh:mm:ssZ date');
        break;
      case 'WARC-Target-URI':
      case 'WARC-Refers-To-Target-URI':
        checkUri(field, value, bad, warning);
        break;
      case 'WARC-IP-Address':
        if (isIP(value) === 0) bad(field, value, 'is not an IPv4 or IPv6 address');
        break;
      case 'Content-Type':
      case 'WARC-Identified-Payload-Type':
        if (!MEDIA_TYPE.test(value)) bad(field, value, 'is not a media type');
        break;
      case 'WARC-Block-Digest':
      case 'WARC-Payload-Digest':
        if (!parseLabelledDigest(value)) bad(field, value, 'is not algorithm:value');
        break;
      case 'WARC-Segment-Number':
        if (!/^[1-9]\d*$/.test(value)) bad(field, value, 'is not a positive integer');
        break;
      case 'WARC-Segment-Total-Length':
        if (!/^\d+$/.test(value)) bad(field, value, 'is not an integer');
        break;
      case 'WARC-Truncated':
        if (!TRUNCATED_REASONS.has(value.toLowerCase())) warning('WARC_BAD_FIELD', `WARC-Truncated ${JSON.stringify(value)} is not length, time, disconnect or unspecified`);
        break;
      case 'WARC-Profile':
        if (r.type === 'revisit' && !REVISIT_PROFILE.test(value)) warning('WARC_UNKNOWN_PROFILE', `unknown revisit profile ${JSON.stringify(value)}`);
        break;
    }
  }
  return out;
}

function checkUri(
  field: string,
  value: string,
  bad: (field: string, value: string, why: string) => void,
  warning: (code: string, message: string) => void,
): void {
  if (value.startsWith('<') && value.endsWith('>') && URI.test(value.slice(1, -1))) {
    warning('WARC_WRAPPED_URI', `${field} is wrapped in <> (a known wget 1.14–1.20 bug); readers strip them`);
  } else if (/\s/.test(value)) {
    bad(field, value, 'contains white space (should be percent-encoded)');
  } else if (!URI.test(value)) {
    bad(field, value, 'is not an absolute URI');
  }
}
