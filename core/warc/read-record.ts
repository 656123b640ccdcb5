/**
 * One record as the reader hands it out: its parsed head, and its block as a stream that is
 * read straight from the file (or the inflated gzip member) only if the caller asks for it.
 */
import type { ReadCursor } from './read-cursor.ts';
import { WarcReadError } from './read-errors.ts';
import { parseContentLength, unwrapTargetUri } from './read-headers.ts';
import { fieldValue } from '../formats/http-fields.ts';
import type { HeaderList } from './read-headers.ts';

export interface WarcRecordHead {
  /**
   * Where the record starts in the file: the start of its gzip member, or of the record itself
   * in an uncompressed file.
   */
  offset: number;
  /**
   * Bytes the record takes on disk from `offset`: the whole gzip member (so `offset + length`
   * is the next member), or for an uncompressed file the header and block without the CRLF CRLF
   * that follows (as pywb's and warcio's CDX `length`). In a gzip file read in sequence it is
   * known once the iterator has moved past the record (the member's end is confirmed then) and
   * 0 before. For a record that shares a gzip member with others, or spans members (a file that
   * is not random-access), it covers the members holding the record.
   */
  length: number;
  /** `WARC/1.0`, `WARC/1.1`, `WARC/0.17` …, or `ARC/1.0` / `ARC/1.1` for ARC files. */
  version: string;
  /** Fields in file order, repeated ones kept, folded lines unfolded. ARC: synthesized WARC fields. */
  headers: HeaderList;
  /** First value of a field, case-insensitively. */
  get(name: string): string | null;
  /** All values of a field, case-insensitively. */
  getAll(name: string): string[];
  /** WARC-Type, lower-cased (`''` when missing). ARC: `warcinfo` for filedesc, else `response`. */
  type: string;
  /** WARC-Target-URI with wget's `<…>` removed. */
  targetUri: string | null;
  /** WARC-Date as written. ARC: the 14-digit date as `YYYY-MM-DDThh:mm:ssZ`. */
  date: string | null;
  /** Block length (0 when Content-Length is missing or invalid: a warning says so). */
  contentLength: number;
  format: 'warc' | 'arc';
  compressed: boolean;
  /** Decompressed bytes of the version line and header block (to seek to the block). */
  headerLength: number;
}

export interface WarcRecord extends WarcRecordHead {
  /**
   * The rest of the block, streamed as views into the reader's buffers (copy what you keep past
   * the next chunk). Bytes not read before the iterator moves on are skipped without being
   * copied; reading afterwards throws WARC_BLOCK_GONE.
   */
  block(): AsyncIterable<Buffer>;
  /** Up to `maxBytes` of the rest of the block as one buffer; `truncated` when more remained. */
  readBlock(maxBytes: number): Promise<{ bytes: Buffer; truncated: boolean }>;
}

export interface RecordHeadInit {
  offset: number;
  length: number;
  version: string;
  headers: HeaderList;
  contentLength: number;
  format: 'warc' | 'arc';
  compressed: boolean;
  headerLength: number;
}

/** Fields shared by both kinds of record. */
abstract class RecordHeadBase implements WarcRecordHead {
  offset: number;
  length: number;
  readonly version: string;
  readonly headers: HeaderList;
  readonly type: string;
  readonly targetUri: string | null;
  readonly date: string | null;
  readonly contentLength: number;
  readonly format: 'warc' | 'arc';
  readonly compressed: boolean;
  readonly headerLength: number;

  constructor(init: RecordHeadInit) {
    this.offset = init.offset;
    this.length = init.length;
    this.version = init.version;
    this.headers = init.headers;
    this.contentLength = init.contentLength;
    this.format = init.format;
    this.compressed = init.compressed;
    this.headerLength = init.headerLength;
    this.type = (this.get('WARC-Type') ?? '').toLowerCase();
    this.targetUri = unwrapTargetUri(this.get('WARC-Target-URI'));
    this.date = this.get('WARC-Date');
  }

  get(name: string): string | null {
    return this.#index().get(name.toLowerCase())?.[0] ?? null;
  }

  getAll(name: string): string[] {
    return [...(this.#index().get(name.toLowerCase()) ?? [])];
  }

  #byName: Map<string, string[]> | null = null;

  /** Values by lower-cased name, built once (`headers` is not meant to change after reading). */
  #index(): Map<string, string[]> {
    if (this.#byName) return this.#byName;
    const m = new Map<string, string[]>();
    for (const [k, v] of this.headers) {
      const lower = k.toLowerCase();
      const list = m.get(lower);
      if (list) list.push(v);
      else m.set(lower, [v]);
    }
    this.#byName = m;
    return m;
  }
}

/** A head known from its fields alone, with no block to read. */
class FieldsHead extends RecordHeadBase {}

/**
 * The head of a record this process has just written, from the header fields the writer wrote
 * (WrittenRecord.fields): what a reader of the file will see, without reading the file.
 */
export function headOfWrittenFields(fields: HeaderList, at: { offset: number; length: number; compressed: boolean }): WarcRecordHead {
  const contentLength = parseContentLength(fieldValue(fields, 'Content-Length')) ?? 0;
  return new FieldsHead({ offset: at.offset, length: at.length, version: 'WARC/1.1', headers: fields, contentLength, format: 'warc', compressed: at.compressed, headerLength: 0 });
}

/** The largest view handed out by block() at once. */
const BLOCK_PIECE = 1 << 20;

/** A record read in sequence: its block comes from the iterator's own cursor. */
export class StreamedRecord extends RecordHeadBase implements WarcRecord {
  readonly #cursor: ReadCursor;
  #remaining: number;
  #gone = false;
  #error: unknown = null;

  constructor(init: RecordHeadInit, cursor: ReadCursor) {
    super(init);
    this.#cursor = cursor;
    this.#remaining = init.contentLength;
  }

  async *block(): AsyncGenerator<Buffer> {
    this.#checkGone();
    while (this.#remaining > 0) {
      const b = await this.#guard(this.#cursor.readSome(Math.min(this.#remaining, BLOCK_PIECE)));
      if (b.length === 0) throw this.#fail(this.#truncated());
      this.#remaining -= b.length;
      yield b;
      this.#checkGone();
    }
  }

  async readBlock(maxBytes: number): Promise<{ bytes: Buffer; truncated: boolean }> {
    this.#checkGone();
    const want = Math.min(Math.max(0, maxBytes), this.#remaining);
    let bytes: Buffer;
    if (want <= this.#cursor.buffered) {
      bytes = this.#cursor.view.subarray(0, want);
      this.#cursor.advance(want);
    } else {
      bytes = await this.#guard(this.#cursor.readBytes(want));
    }
    if (bytes.length < want) throw this.#fail(this.#truncated());
    this.#remaining -= want;
    return { bytes, truncated: this.#remaining > 0 };
  }

  /** Skip what is left of the block (the iterator calls this before moving on). */
  async finish(): Promise<void> {
    this.#gone = true;
    if (this.#error) throw this.#error;
    const left = this.#remaining;
    this.#remaining = 0;
    if (left <= this.#cursor.buffered) {
      this.#cursor.advance(left);
      return;
    }
    if ((await this.#guard(this.#cursor.skip(left))) < left) throw this.#fail(this.#truncated());
  }

  #checkGone(): void {
    if (this.#gone) {
      throw new WarcReadError('WARC_BLOCK_GONE', `the block of the record at offset ${this.offset} was read after the reader moved on`, { offset: this.offset });
    }
  }

  async #guard<T>(p: Promise<T>): Promise<T> {
    try {
      return await p;
    } catch (err) {
      throw this.#fail(err);
    }
  }

  #fail(err: unknown): unknown {
    this.#error ??= err;
    return err;
  }

  #truncated(): WarcReadError {
    return new WarcReadError('WARC_TRUNCATED', `file ends inside the block of the record at offset ${this.offset} (Content-Length ${this.contentLength})`, { offset: this.offset });
  }
}

/**
 * A record read at an offset (random access). It holds no open file: each block()/readBlock()
 * call opens the file, seeks to the block and reads it from its first byte, so it can be read any
 * number of times and never leaks a file handle.
 */
export class DetachedRecord extends RecordHeadBase implements WarcRecord {
  readonly #openBlock: () => Promise<{ cursor: ReadCursor; close: () => Promise<void> }>;

  constructor(init: RecordHeadInit, openBlock: () => Promise<{ cursor: ReadCursor; close: () => Promise<void> }>) {
    super(init);
    this.#openBlock = openBlock;
  }

  async *block(): AsyncGenerator<Buffer> {
    const { cursor, close } = await this.#openBlock();
    try {
      let left = this.contentLength;
      while (left > 0) {
        const b = await cursor.readSome(Math.min(left, BLOCK_PIECE));
        if (b.length === 0) throw this.#truncated();
        left -= b.length;
        yield b;
      }
    } finally {
      await close();
    }
  }

  async readBlock(maxBytes: number): Promise<{ bytes: Buffer; truncated: boolean }> {
    const { cursor, close } = await this.#openBlock();
    try {
      const want = Math.min(Math.max(0, maxBytes), this.contentLength);
      const bytes = Buffer.from(await cursor.readBytes(want));
      if (bytes.length < want) throw this.#truncated();
      return { bytes, truncated: want < this.contentLength };
    } finally {
      await close();
    }
  }

  #truncated(): WarcReadError {
    return new WarcReadError('WARC_TRUNCATED', `file ends inside the block of the record at offset ${this.offset} (Content-Length ${this.contentLength})`, { offset: this.offset });
  }
}
