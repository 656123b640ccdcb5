/**
 * Where the reader's bytes come from: an open file, sniffed by its first bytes (never by its
 * name) as gzip or plain. Both kinds hand out pieces of the decompressed stream; a plain file
 * can also skip bytes without reading them, which is what makes indexing an uncompressed WARC
 * cost little more than reading its headers.
 */
import fs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { readWithin } from './file-range.ts';
import type { FileRange, ReadAt } from './file-range.ts';
import { FastGzipSource } from './gzip-members-fast.ts';
import { ExactGzipSource } from './gzip-members-spans.ts';
import type { MemberSpan } from './gzip-members-spans.ts';
import { isGzipMagic } from './gzip-members.ts';
import { readFailed, WarcReadError } from './read-errors.ts';

export type { MemberSpan } from './gzip-members-spans.ts';

export interface ByteSource {
  readonly compressed: boolean;
  /** The next piece of the (decompressed) stream, or null at the end. */
  next(): Promise<Buffer | null>;
  /** Plain files only: skip up to `n` bytes without reading them; returns how many were skipped. */
  skip?(n: number): number;
  /** Gzip only: the member holding decompressed position `pos` (already handed out). */
  memberAt?(pos: number): MemberSpan | Promise<MemberSpan>;
  /**
   * Gzip only: the member holding the byte before decompressed position `end`, with its end if
   * known. Call once the bytes after `end` have been read (or the stream has ended).
   */
  memberEndingAt?(end: number): MemberSpan | null | Promise<MemberSpan | null>;
  close(): Promise<void>;
}

/** Bytes read at a time from a plain file. */
const PLAIN_CHUNK = 1 << 20;

class PlainSource implements ByteSource {
  readonly compressed = false;
  readonly #file: ReadAt;
  readonly #size: number;
  #pos: number;

  constructor(file: ReadAt, start: number, size: number) {
    this.#file = file;
    this.#pos = start;
    this.#size = size;
  }

  async next(): Promise<Buffer | null> {
    if (this.#pos >= this.#size) return null;
    const b = Buffer.allocUnsafe(Math.min(PLAIN_CHUNK, this.#size - this.#pos));
    const { bytesRead } = await this.#file.read(b, 0, b.length, this.#pos).catch((err: unknown) => {
      throw readFailed(err, this.#pos);
    });
    if (bytesRead === 0) return null; // the file shrank while we read it
    this.#pos += bytesRead;
    return b.subarray(0, bytesRead);
  }

  skip(n: number): number {
    const k = Math.min(n, this.#size - this.#pos);
    this.#pos += k;
    return k;
  }

  async close(): Promise<void> {}
}

export interface OpenedSource {
  file: FileHandle;
  size: number;
  source: ByteSource;
}

/**
 * Open `path` and sniff the bytes at `start`: gzip magic (or a lone 0x1f byte at the very end,
 * a gzip file cut after one byte) means gzip. Reading stops at `end` (exclusive) or the end of
 * the file. Decompressed positions start at `start`. `sequential` (a whole file from offset 0)
 * takes the fast gzip path; otherwise members are inflated one by one. The caller closes `file`.
 * With `within`, only those bytes of the file are read, as a file of their own: `start`, `end`
 * and every position are then within the range (file-range.ts).
 */
export async function openSource(path: string, start = 0, end = Infinity, sequential = false, within?: FileRange): Promise<OpenedSource> {
  let file: FileHandle;
  try {
    file = await fs.open(path, 'r');
  } catch (err) {
    throw new WarcReadError('WARC_OPEN_FAILED', `cannot open ${path}: ${(err as Error).message}`, { offset: 0, path }, { cause: err });
  }
  try {
    const fileSize = (await file.stat()).size;
    const reader: ReadAt = within ? readWithin(file, within) : file;
    const size = Math.min(within ? Math.max(0, Math.min(fileSize, within.end) - within.start) : fileSize, end);
    const head = Buffer.alloc(2);
    const { bytesRead } = await reader.read(head, 0, 2, start);
    const gzip = isGzipMagic(head.subarray(0, bytesRead)) || (bytesRead === 1 && head[0] === 0x1f && start + 1 === size);
    let source: ByteSource;
    if (!gzip) source = new PlainSource(reader, start, size);
    else if (sequential && start === 0) source = new FastGzipSource(reader, size);
    else source = new ExactGzipSource(reader, start, size, start);
    return { file, size, source };
  } catch (err) {
    await file.close();
    if (err instanceof WarcReadError) throw err;
    throw new WarcReadError('WARC_OPEN_FAILED', `cannot read ${path}: ${(err as Error).message}`, { offset: start, path }, { cause: err });
  }
}
