/**
 * HTTP/1.x message heads (status or request line, then field lines in wire order, names' case
 * and repeats kept), parsed by one set of line rules in two modes:
 *
 * - stored (`parseHttpHead`): the head at the start of a WARC response, request or revisit
 *   block, read as tolerantly as pywb and warcio read it: CR CR LF line ends, a status line with
 *   no reason phrase (`HTTP/1.1 200 `), lines that are not fields skipped, and null (never a
 *   throw) for bytes that are not an HTTP head;
 * - live (`parseResponseHead`): a response head just received, strict where llhttp is strict
 *   (a malformed field line is an error), with the reason phrase exactly as sent.
 *
 * Why by hand: undici and llhttp parse live sockets, not bytes at rest, and hand back normalised
 * values, not the wire's, which the archive records. Bytes are read as latin1 so every octet
 * survives.
 */
import { TroveError } from '../errors.ts';
import { listFieldTokens } from './http-fields.ts';

export interface HttpHead {
  kind: 'response' | 'request';
  /** `1.1`, `1.0`, `2` … */
  httpVersion: string;
  status?: number;
  /** The reason phrase; empty when the producer wrote none. */
  statusText?: string;
  method?: string;
  requestTarget?: string;
  /** Header fields in order, repeated ones kept, names as written. */
  headers: [string, string][];
  /** Bytes of the head, through the empty line that ends it. */
  headLength: number;
  /** False when `blockEnd` let a head with no empty line end at the end of the bytes. */
  terminated: boolean;
}

const STATUS_LINE = /^HTTP\/(\d+(?:\.\d+)?)[ \t]+(\d{3})(?:[ \t]+(.*?))?[ \t]*$/i;
const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)[ \t]+(\S+)[ \t]+HTTP\/(\d+(?:\.\d+)?)[ \t]*$/i;
/** The head of an HTTP message never needs more than this many lines. */
const MAX_LINES = 2000;

/**
 * Parse an HTTP request or response head from the first bytes of a block. Returns null when the
 * bytes do not start with a status or request line, or when the empty line ending the head is not
 * within `bytes` (give it more bytes). With `blockEnd` (the bytes are the whole block), a head cut
 * off by the end of the block is accepted as ending there, with an empty body: pywb reads
 * `missing-status-text.warc`, whose Content-Length stops inside the head, that way.
 */
export function parseHttpHead(bytes: Buffer, opts: { blockEnd?: boolean } = {}): HttpHead | null {
  // Find the empty line first on the bytes, then decode the head once.
  let lf = bytes.indexOf(0x0a);
  if (lf < 0) return null;
  let headEnd = -1;
  for (let lines = 0; lines < MAX_LINES; lines++) {
    const next = bytes.indexOf(0x0a, lf + 1);
    if (next < 0) break;
    let k = lf + 1;
    while (k < next && bytes[k] === 0x0d) k++;
    if (k === next) {
      headEnd = next + 1;
      break;
    }
    lf = next;
  }
  if (headEnd < 0 && !opts.blockEnd) return null;
  const text = bytes.toString('latin1', 0, headEnd < 0 ? bytes.length : headEnd);
  const lines = text.split('\n');
  const head = headOf(trimEnd(lines[0]!));
  if (!head) return null;
  for (let i = 1; i < lines.length; i++) {
    const line = trimEnd(lines[i]!);
    if (line === '') break;
    addField(head.headers, line, false);
  }
  head.headLength = headEnd < 0 ? bytes.length : headEnd;
  head.terminated = headEnd >= 0;
  return head;
}

/**
 * Add one field line (without its line end) to `headers`. A folded line (obs-fold) continues
 * the previous value, joined with a space. Stored heads skip what is not a field, as browsers
 * and pywb do; live ones throw FETCH_BAD_HEADERS, as llhttp refuses it.
 */
function addField(headers: [string, string][], line: string, strict: boolean): void {
  const c = line.charCodeAt(0);
  if (c === 0x20 || c === 0x09) {
    const last = headers.at(-1);
    if (last) last[1] = `${last[1]} ${line.trim()}`.trim();
    else if (strict) throw new TroveError('FETCH_BAD_HEADERS', 'header continuation line before any header');
    return;
  }
  const colon = line.indexOf(':');
  if (colon <= 0 || (strict && /\s/.test(line.slice(0, colon)))) {
    if (strict) throw new TroveError('FETCH_BAD_HEADERS', `malformed header line: ${JSON.stringify(line.slice(0, 80))}`);
    return;
  }
  headers.push([line.slice(0, colon).trim(), line.slice(colon + 1).trim()]);
}

/** True when chunked is the last transfer coding named (RFC 9112 §6.3: then the body is chunked). */
export function isChunked(head: { headers: readonly (readonly [string, string])[] }): boolean {
  return listFieldTokens(head.headers, 'transfer-encoding').at(-1) === 'chunked';
}

/** A live response head, as the fetcher reads it. */
export interface ResponseHead {
  /** `1.1`, `1.0`, as on the status line. */
  httpVersion: string;
  status: number;
  /** Reason phrase as sent (may be empty). */
  statusText: string;
  /** Header fields in wire order; names keep their case, duplicates are kept. */
  headers: [string, string][];
}

const LIVE_STATUS_LINE = /^HTTP\/(\d)\.(\d)[ \t]+(\d{3})(?:[ \t](.*))?$/;

/**
 * Parse a complete live response head (status line, fields, empty line). Line ends may be CRLF
 * or bare LF, as llhttp accepts both. Throws TroveError FETCH_BAD_STATUS_LINE or FETCH_BAD_HEADERS.
 */
export function parseResponseHead(head: Buffer): ResponseHead {
  const lines = head.toString('latin1').split('\n');
  for (let i = 0; i < lines.length; i++) if (lines[i]!.endsWith('\r')) lines[i] = lines[i]!.slice(0, -1);
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();

  const m = LIVE_STATUS_LINE.exec(lines[0] ?? '');
  if (!m) {
    throw new TroveError('FETCH_BAD_STATUS_LINE', `not an HTTP status line: ${JSON.stringify((lines[0] ?? '').slice(0, 80))}`);
  }
  const headers: [string, string][] = [];
  for (let i = 1; i < lines.length; i++) addField(headers, lines[i]!, true);
  return { httpVersion: `${m[1]}.${m[2]}`, status: Number(m[3]), statusText: m[4] ?? '', headers };
}

function headOf(line: string): HttpHead | null {
  let m = STATUS_LINE.exec(line);
  if (m) {
    return { kind: 'response', httpVersion: m[1]!, status: Number(m[2]), statusText: m[3] ?? '', headers: [], headLength: 0, terminated: true };
  }
  m = REQUEST_LINE.exec(line);
  if (m) {
    return { kind: 'request', httpVersion: m[3]!, method: m[1]!, requestTarget: m[2]!, headers: [], headLength: 0, terminated: true };
  }
  return null;
}

function trimEnd(s: string): string {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 0x0d) end--;
  return s.slice(0, end);
}
