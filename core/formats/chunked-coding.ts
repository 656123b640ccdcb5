/**
 * HTTP/1.1 chunked transfer coding (RFC 9112 §7.1), decoded one way for live responses and for
 * bodies read back from WARC records.
 *
 * `ChunkedDecoder` is incremental and says exactly where the message ends in the raw bytes.
 * undici decodes chunking too, but it neither exposes the raw framing nor where the last chunk
 * and trailers end, and the archive needs both: the raw body (framing kept) for the WARC block
 * and the decoded entity for the payload digest, each cut at the same byte; and neither undici
 * nor llhttp accepts a buffer at rest. Leniency follows llhttp's defaults: chunk extensions are
 * skipped, spaces before `;` or the line end are allowed, bare LF line ends are accepted.
 *
 * `dechunk` decodes a stored body (replay, the archive reader) as tolerantly as pywb and warcio:
 * besides the above, whitespace before a size, extra CRs and a missing CRLF after chunk data are
 * accepted, and data that does not start with a chunk-size line is returned unchanged, because
 * producers sometimes write `Transfer-Encoding: chunked` over a body they already de-chunked.
 */
import { TroveError } from '../errors.ts';

type State = 'size' | 'ext' | 'size-lf' | 'data' | 'data-cr' | 'data-lf' | 'trailer-start' | 'trailer' | 'trailer-lf' | 'done';

/** A chunk-size line longer than this is an attack or garbage, not a size. */
const MAX_SIZE_LINE = 4096;

export class ChunkedDecoder {
  #state: State = 'size';
  #size = 0;
  #digits = 0;
  #lineLength = 0;
  #remaining = 0;
  #sawSpace = false;
  #sizeLines = 0;
  #lastChunk = false;
  readonly #onEntity: (chunk: Buffer) => void;
  readonly #lenient: boolean;

  /**
   * `onEntity` receives decoded bytes as views into the input (copy them to keep them).
   * `lenient` (for stored bodies) also accepts whitespace before a size, extra CRs before a
   * line's LF and chunk data not followed by a line end.
   */
  constructor(onEntity: (chunk: Buffer) => void, opts: { lenient?: boolean } = {}) {
    this.#onEntity = onEntity;
    this.#lenient = opts.lenient ?? false;
  }

  get done(): boolean {
    return this.#state === 'done';
  }

  /** The zero-size last chunk has been read (trailers may still follow). */
  get lastChunkSeen(): boolean {
    return this.#lastChunk;
  }

  /** A size line has ended (so the input did start as chunked coding). */
  get sawSizeLine(): boolean {
    return this.#sizeLines > 0;
  }

  /** At the end of the input: whether a `0` size line was cut off before its line end. */
  get endsInLastChunkLine(): boolean {
    return this.#state === 'size' && this.#digits > 0 && this.#size === 0;
  }

  /**
   * Decode raw bytes. Returns how many bytes of `buf` belong to the message: all of it unless
   * the message ended inside `buf`. Throws TroveError FETCH_BAD_CHUNKING on malformed framing.
   */
  write(buf: Buffer): number {
    let i = 0;
    while (i < buf.length && this.#state !== 'done') {
      if (this.#state === 'data') {
        const n = Math.min(this.#remaining, buf.length - i);
        this.#onEntity(buf.subarray(i, i + n));
        this.#remaining -= n;
        i += n;
        if (this.#remaining === 0) this.#state = 'data-cr';
        continue;
      }
      const b = buf[i++];
      if (++this.#lineLength > MAX_SIZE_LINE && this.#state !== 'data-cr' && this.#state !== 'data-lf') {
        throw bad('chunk size or trailer line too long');
      }
      switch (this.#state) {
        case 'size':
          this.#size_(b);
          break;
        case 'ext':
          // Chunk extensions are skipped up to the line end (quoted strings are not special-cased,
          // which only matters for an extension containing a newline, which is itself invalid).
          if (b === 0x0d) this.#state = 'size-lf';
          else if (b === 0x0a) this.#endSizeLine();
          break;
        case 'size-lf':
          if (b === 0x0d && this.#lenient) break;
          if (b !== 0x0a) throw bad('expected LF after chunk size');
          this.#endSizeLine();
          break;
        case 'data-cr':
          if (b === 0x0d) this.#state = 'data-lf';
          else if (b === 0x0a) this.#startLine('size');
          else if (this.#lenient) {
            // No line end after the data: the next size line starts here.
            this.#startLine('size');
            i--;
          } else throw bad('chunk data not followed by CRLF');
          break;
        case 'data-lf':
          if (b !== 0x0a) throw bad('chunk data not followed by CRLF');
          this.#startLine('size');
          break;
        case 'trailer-start':
          if (b === 0x0d) this.#state = 'trailer-lf';
          else if (b === 0x0a) this.#state = 'done';
          else this.#state = 'trailer';
          break;
        case 'trailer':
          if (b === 0x0a) this.#startLine('trailer-start');
          break;
        case 'trailer-lf':
          if (b !== 0x0a) throw bad('expected LF after trailers');
          this.#state = 'done';
          break;
      }
    }
    return i;
  }

  #size_(b: number): void {
    const hex = hexValue(b);
    if (hex >= 0 && !this.#sawSpace) {
      if (++this.#digits > 13) throw bad('chunk size too large'); // 13 hex digits: under 2^53
      this.#size = this.#size * 16 + hex;
      return;
    }
    if (this.#digits === 0 && this.#lenient && (b === 0x20 || b === 0x09)) return;
    if (this.#digits === 0) throw bad(`invalid chunk size byte 0x${b.toString(16).padStart(2, '0')}`);
    if (b === 0x20 || b === 0x09) this.#sawSpace = true;
    else if (b === 0x3b) this.#state = 'ext';
    else if (b === 0x0d) this.#state = 'size-lf';
    else if (b === 0x0a) this.#endSizeLine();
    else throw bad(`invalid chunk size byte 0x${b.toString(16).padStart(2, '0')}`);
  }

  #endSizeLine(): void {
    this.#sizeLines++;
    if (this.#size === 0) {
      this.#lastChunk = true;
      this.#startLine('trailer-start');
      return;
    }
    this.#remaining = this.#size;
    this.#state = 'data';
    this.#lineLength = 0;
  }

  #startLine(state: State): void {
    this.#state = state;
    this.#lineLength = 0;
    if (state === 'size') {
      this.#size = 0;
      this.#digits = 0;
      this.#sawSpace = false;
    }
  }
}

function hexValue(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x61 && b <= 0x66) return b - 0x57;
  if (b >= 0x41 && b <= 0x46) return b - 0x37;
  return -1;
}

function bad(message: string): TroveError {
  return new TroveError('FETCH_BAD_CHUNKING', `bad chunked encoding: ${message}`);
}

export interface Dechunked {
  body: Buffer;
  /** True when the terminating zero-size chunk was seen. */
  complete: boolean;
}

/**
 * De-chunk a stored body, tolerantly (see the top of this file): what decodes before any
 * malformation or the end of the bytes is returned; unchanged when it is not chunked at all.
 */
export function dechunk(raw: Buffer): Dechunked {
  const parts: Buffer[] = [];
  const decoder = new ChunkedDecoder((b) => parts.push(b), { lenient: true });
  try {
    decoder.write(raw);
  } catch {
    if (!decoder.sawSizeLine) return { body: raw, complete: false };
  }
  return { body: Buffer.concat(parts), complete: decoder.lastChunkSeen || decoder.endsInLastChunkLine };
}
