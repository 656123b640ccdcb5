/**
 * The HTTP message head stored at the start of a response, request or revisit block.
 *
 * Why by hand: undici and llhttp parse live sockets, not bytes at rest, and refuse what archives
 * hold: a status line with no reason phrase (`HTTP/1.1 200 `), CR CR LF line ends, folded
 * headers, non-ASCII bytes in values. Bytes are read as latin1 so every octet survives.
 */

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
  let lf = bytes.indexOf(0x0a);
  if (lf < 0) return null;
  const first = trimEnd(bytes.toString('latin1', 0, lf));
  const head = headOf(first);
  if (!head) return null;
  let pos = lf + 1;
  for (let n = 0; n < MAX_LINES; n++) {
    lf = bytes.indexOf(0x0a, pos);
    if (lf < 0) {
      if (!opts.blockEnd) return null;
      if (pos < bytes.length) addField(head, trimEnd(bytes.toString('latin1', pos)));
      head.headLength = bytes.length;
      head.terminated = false;
      return head;
    }
    const line = trimEnd(bytes.toString('latin1', pos, lf));
    pos = lf + 1;
    if (line === '') {
      head.headLength = pos;
      return head;
    }
    addField(head, line);
  }
  return null;
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

/** First value of an HTTP header, case-insensitively. */
export function httpHeader(head: HttpHead, name: string): string | null {
  const lower = name.toLowerCase();
  for (const [k, v] of head.headers) if (k.toLowerCase() === lower) return v;
  return null;
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
