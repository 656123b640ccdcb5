/**
 * A push parser that only answers "where does the last complete WARC record end?". It is fed
 * the (decompressed) bytes of a file in order and follows header → block (Content-Length bytes,
 * counted, never kept) → `\r\n\r\n` → next header. It holds at most one header in memory, so a
 * 1 GiB block costs nothing but the time to count it.
 *
 * Written by hand: the reader module and warcio.js both parse records to hand them out, and
 * treat a torn tail as an error or a warning; recovery needs the exact byte where the last
 * whole record ends, and to stop at the first byte that is not a whole record.
 */

const CRLFCRLF = Buffer.from('\r\n\r\n');

/** Bigger than any header Trove writes (URLs are capped far below this); past it the bytes are not a header. */
const MAX_HEADER_BYTES = 1024 * 1024;

type State = 'header' | 'block' | 'trailer' | 'bad';

export class RecordScanner {
  #state: State = 'header';
  #header: Buffer = Buffer.alloc(0);
  #blockLeft = 0;
  #trailerSeen = 0;
  #offset = 0;
  #lastBoundary = 0;
  #records = 0;
  #problem: string | null = null;

  /** Complete records seen. */
  get records(): number {
    return this.#records;
  }

  /** Bytes (of the fed stream) up to the end of the last complete record. */
  get lastBoundary(): number {
    return this.#lastBoundary;
  }

  /** Why the stream stopped being whole records, once it has. */
  get problem(): string | null {
    return this.#problem;
  }

  get bad(): boolean {
    return this.#state === 'bad';
  }

  /** True when everything fed so far is complete records (nothing pending, nothing wrong). */
  get atBoundary(): boolean {
    return this.#state === 'header' && this.#header.length === 0 && this.#offset === this.#lastBoundary;
  }

  /** Block bytes still expected: a caller reading a plain file may skip them instead of feeding them. */
  get blockRemaining(): number {
    return this.#state === 'block' ? this.#blockLeft : 0;
  }

  /** Accounts for `n` block bytes the caller skipped (at most `blockRemaining`). */
  skip(n: number): void {
    const take = Math.min(n, this.blockRemaining);
    this.#blockLeft -= take;
    this.#offset += take;
    if (this.#state === 'block' && this.#blockLeft === 0) this.#state = 'trailer';
  }

  push(chunk: Buffer): void {
    let i = 0;
    while (i < chunk.length && this.#state !== 'bad') {
      if (this.#state === 'header') {
        i = this.#pushHeader(chunk, i);
      } else if (this.#state === 'block') {
        const take = Math.min(this.#blockLeft, chunk.length - i);
        this.#blockLeft -= take;
        this.#offset += take;
        i += take;
        if (this.#blockLeft === 0) this.#state = 'trailer';
      } else {
        if (chunk[i] !== CRLFCRLF[this.#trailerSeen]) {
          this.#fail(`record at ${this.#lastBoundary} is not followed by \\r\\n\\r\\n`);
          return;
        }
        this.#trailerSeen += 1;
        this.#offset += 1;
        i += 1;
        if (this.#trailerSeen === CRLFCRLF.length) {
          this.#trailerSeen = 0;
          this.#records += 1;
          this.#lastBoundary = this.#offset;
          this.#state = 'header';
        }
      }
    }
  }

  /** Consumes header bytes from `chunk[i…]`; returns the index after what it used. */
  #pushHeader(chunk: Buffer, i: number): number {
    const searchFrom = Math.max(0, this.#header.length - 3);
    const room = MAX_HEADER_BYTES - this.#header.length;
    const piece = chunk.subarray(i, i + Math.min(room + 1, chunk.length - i));
    const combined = this.#header.length ? Buffer.concat([this.#header, piece]) : piece;
    if (this.#header.length === 0 && !startsLikeWarc(combined)) {
      this.#fail(`no WARC record starts at ${this.#offset}`);
      return chunk.length;
    }
    const end = combined.indexOf(CRLFCRLF, searchFrom);
    if (end < 0) {
      if (combined.length > MAX_HEADER_BYTES) {
        this.#fail(`header at ${this.#offset} longer than ${MAX_HEADER_BYTES} bytes`);
        return chunk.length;
      }
      this.#header = Buffer.from(combined);
      this.#offset += piece.length;
      return i + piece.length;
    }
    const headerLen = end + CRLFCRLF.length;
    const used = headerLen - this.#header.length;
    const length = contentLength(combined.subarray(0, end).toString('latin1'));
    if (length === null) {
      this.#fail(`record at ${this.#lastBoundary} has no valid WARC version line or Content-Length`);
      return chunk.length;
    }
    this.#header = Buffer.alloc(0);
    this.#offset += used;
    this.#blockLeft = length;
    this.#state = length > 0 ? 'block' : 'trailer';
    return i + used;
  }

  #fail(problem: string): void {
    this.#state = 'bad';
    this.#problem = problem;
  }
}

/** The bytes so far could be the start of `WARC/`. */
function startsLikeWarc(buf: Buffer): boolean {
  const n = Math.min(buf.length, 5);
  return buf.subarray(0, n).equals(Buffer.from('WARC/').subarray(0, n));
}

/** Content-Length of a header block, or null when the version line or the field is missing or malformed. */
function contentLength(header: string): number | null {
  const lines = header.split('\r\n');
  if (!/^WARC\/\d+\.\d+$/.test(lines[0] ?? '')) return null;
  let found: number | null = null;
  for (const line of lines.slice(1)) {
    const m = /^content-length[ \t]*:[ \t]*(\d+)[ \t]*$/i.exec(line);
    if (!m) continue;
    if (found !== null) return null;
    found = Number(m[1]);
  }
  return found !== null && Number.isSafeInteger(found) ? found : null;
}
