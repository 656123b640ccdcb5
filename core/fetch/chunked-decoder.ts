/**
 * Incremental decoder for `Transfer-Encoding: chunked` that also says exactly where the
 * message ends in the raw bytes. undici decodes chunking too, but it neither exposes the raw
 * framing nor where the last chunk and trailers end, and the archive needs both: the raw body
 * (framing kept) for the WARC block and the decoded entity for the payload digest, each cut at
 * the same byte. Leniency follows llhttp's defaults: chunk extensions are skipped, spaces
 * before `;` or the line end are allowed, bare LF line ends are accepted.
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
  readonly #onEntity: (chunk: Buffer) => void;

  /** `onEntity` receives decoded bytes as views into the input (copy them to keep them). */
  constructor(onEntity: (chunk: Buffer) => void) {
    this.#onEntity = onEntity;
  }

  get done(): boolean {
    return this.#state === 'done';
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
          if (b !== 0x0a) throw bad('expected LF after chunk size');
          this.#endSizeLine();
          break;
        case 'data-cr':
          if (b === 0x0d) this.#state = 'data-lf';
          else if (b === 0x0a) this.#startLine('size');
          else throw bad('chunk data not followed by CRLF');
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
    if (this.#digits === 0) throw bad(`invalid chunk size byte 0x${b.toString(16).padStart(2, '0')}`);
    if (b === 0x20 || b === 0x09) this.#sawSpace = true;
    else if (b === 0x3b) this.#state = 'ext';
    else if (b === 0x0d) this.#state = 'size-lf';
    else if (b === 0x0a) this.#endSizeLine();
    else throw bad(`invalid chunk size byte 0x${b.toString(16).padStart(2, '0')}`);
  }

  #endSizeLine(): void {
    if (this.#size === 0) {
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
