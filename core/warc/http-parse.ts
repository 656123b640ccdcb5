/**
 * The HTTP message head stored at the start of a response, request or revisit block.
 *
 * Why by hand: undici and llhttp parse live sockets, not bytes at rest, and refuse what archives
 * hold: a status line with no reason phrase (`HTTP/1.1 200 `), CR CR LF line ends, folded
 * headers, non-ASCII bytes in values. Bytes are read as latin1 so every octet survives.
 */
import { mediaType } from '../formats/media-type.ts';
import type { WarcRecordHead } from './read-record.ts';

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
    addField(head, line);
  }
  head.headLength = headEnd < 0 ? bytes.length : headEnd;
  head.terminated = headEnd >= 0;
  return head;
}

function addField(head: HttpHead, line: string): void {
  const c = line.charCodeAt(0);
  if (c === 0x20 || c === 0x09) {
    const last = head.headers.at(-1);
    if (last) last[1] = `${last[1]} ${line.trim()}`.trim();
    return;
  }
  const colon = line.indexOf(':');
  if (colon <= 0) return; // not a field: skipped, as browsers and pywb do
  head.headers.push([line.slice(0, colon).trim(), line.slice(colon + 1).trim()]);
}

/**
 * Whether a record's block is an HTTP message: a response, request or revisit whose
 * Content-Type says so (application/http, message/http), or that has no Content-Type and an
 * http(s) target (older producers). dns: responses and the like are not.
 */
export function blockIsHttp(r: WarcRecordHead): boolean {
  if (r.type !== 'response' && r.type !== 'request' && r.type !== 'revisit') return false;
  const type = mediaType(r.get('Content-Type'));
  if (type === 'application/http' || type === 'message/http') return true;
  return type === null && /^https?:/i.test(r.targetUri ?? '');
}

/** True when the head says the body is sent with chunked transfer coding. */
export function isChunked(head: HttpHead): boolean {
  for (const [k, v] of head.headers) {
    if (k.toLowerCase() === 'transfer-encoding' && /(^|,)\s*chunked\s*$/i.test(v)) return true;
  }
  return false;
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
