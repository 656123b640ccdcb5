/**
 * Reads an HTTP/1.x response head from the exact bytes received: version, status, reason
 * phrase and header lines in wire order, case and duplicates kept. Written by hand because the
 * libraries that parse heads (llhttp inside undici, node:http) hand back normalised values, not
 * the wire's, and the archive records the wire's. Bytes are decoded as latin1 so every byte
 * maps to one character and nothing is lost.
 */
import { TroveError } from '../errors.ts';

export interface ResponseHead {
  /** `1.1`, `1.0`, as on the status line. */
  httpVersion: string;
  status: number;
  /** Reason phrase as sent (may be empty). */
  statusText: string;
  /** Header fields in wire order; names keep their case, duplicates are kept. */
  headers: [string, string][];
}

/** How the message body after the head is delimited (RFC 9112 §6.3). */
export type BodyFraming =
  | { kind: 'none' }
  | { kind: 'length'; length: number }
  | { kind: 'chunked' }
  | { kind: 'close' };

const STATUS_LINE = /^HTTP\/(\d)\.(\d)[ \t]+(\d{3})(?:[ \t](.*))?$/;

/**
 * Parse a complete head (status line, fields, empty line). Line ends may be CRLF or bare LF,
 * as llhttp accepts both. Folded lines (obs-fold) are joined to the previous value with a space.
 * Throws TroveError FETCH_BAD_STATUS_LINE or FETCH_BAD_HEADERS.
 */
export function parseResponseHead(head: Buffer): ResponseHead {
  const lines = head.toString('latin1').split('\n');
  for (let i = 0; i < lines.length; i++) if (lines[i].endsWith('\r')) lines[i] = lines[i].slice(0, -1);
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();

  const m = STATUS_LINE.exec(lines[0] ?? '');
  if (!m) {
    throw new TroveError('FETCH_BAD_STATUS_LINE', `not an HTTP status line: ${JSON.stringify((lines[0] ?? '').slice(0, 80))}`);
  }
  const httpVersion = `${m[1]}.${m[2]}`;
  const status = Number(m[3]);
  const statusText = m[4] ?? '';

  const headers: [string, string][] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    if (line[0] === ' ' || line[0] === '\t') {
      const last = headers[headers.length - 1];
      if (!last) throw new TroveError('FETCH_BAD_HEADERS', 'header continuation line before any header');
      last[1] = `${last[1]} ${line.trim()}`.trim();
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0 || /[\s]/.test(line.slice(0, colon))) {
      throw new TroveError('FETCH_BAD_HEADERS', `malformed header line: ${JSON.stringify(line.slice(0, 80))}`);
    }
    headers.push([line.slice(0, colon), line.slice(colon + 1).trim()]);
  }
  return { httpVersion, status, statusText, headers };
}

/**
 * Decide how the body is delimited. Throws TroveError FETCH_BAD_HEADERS on conflicting or
 * invalid Content-Length values, as llhttp does.
 */
export function bodyFraming(head: ResponseHead, method: string): BodyFraming {
  const { status, headers } = head;
  if (method === 'HEAD' || (status >= 100 && status < 200) || status === 204 || status === 304) return { kind: 'none' };

  const te: string[] = [];
  const lengths: string[] = [];
  for (const [k, v] of headers) {
    const lower = k.toLowerCase();
    if (lower === 'transfer-encoding') te.push(...v.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean));
    else if (lower === 'content-length') lengths.push(...v.split(',').map((s) => s.trim()));
  }
  if (te.length > 0) return te[te.length - 1] === 'chunked' ? { kind: 'chunked' } : { kind: 'close' };
  if (lengths.length > 0) {
    const distinct = new Set(lengths);
    const only = lengths[0];
    if (distinct.size > 1 || !/^\d{1,15}$/.test(only)) {
      throw new TroveError('FETCH_BAD_HEADERS', `invalid Content-Length: ${JSON.stringify(lengths.join(', ').slice(0, 80))}`);
    }
    const length = Number(only);
    return length === 0 ? { kind: 'none' } : { kind: 'length', length };
  }
  return { kind: 'close' };
}
