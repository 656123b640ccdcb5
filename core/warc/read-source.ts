/**
 * Where the reader's bytes come from: an open file, sniffed by its first bytes (never by its
 * name) as gzip or plain. Both kinds hand out pieces of the decompressed stream; a plain file
 * can also skip bytes without reading them, which is what makes indexing an uncompressed WARC
 * cost little more than reading its headers.
 */
import fs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { GzipMembers, isGzipMagic } from './gzip-members.ts';
import type { InflatedPiece } from './gzip-members.ts';
import { WarcReadError } from './read-errors.ts';

export type SourcePiece = InflatedPiece;

export interface ByteSource {
  readonly compressed: boolean;
  /** The next piece of the (decompressed) stream, or null at the end. */
  next(): Promise<SourcePiece | null>;
  /** Plain files only: skip up to `n` bytes without reading them; returns how many were skipped. */
  skip?(n: number): number;
  close(): Promise<void>;
}

/** Bytes read at a time from a plain file. */
const PLAIN_CHUNK = 1 << 20;

class PlainSource implements ByteSource {
  readonly compressed = false;
  readonly #file: FileHandle;
  readonly #size: number;
  #pos: number;

  constructor(file: FileHandle, start: number, size: number) {
    this.#file = file;
    this.#pos = start;
    this.#size = size;
  }

  async next(): Promise<SourcePiece | null> {
    if (this.#pos >= this.#size) return null;
    const b = Buffer.allocUnsafe(Math.min(PLAIN_CHUNK, this.#size - this.#pos));
    const { bytesRead } = await this.#file.read(b, 0, b.length, this.#pos);
    if (bytesRead === 0) return null; // the file shrank while we read it
    this.#pos += bytesRead;
    return { data: b.subarray(0, bytesRead), memberOffset: -1, first: false, memberEnd: null };
  }

  skip(n: number): number {
    const k = Math.min(n, this.#size - this.#pos);
    this.#pos += k;
    return k;
  }

  async close(): Promise<void> {}
}

class GzipSource implements ByteSource {
  readonly compressed = true;
  readonly #members: GzipMembers;

  constructor(file: FileHandle, start: number, size: number) {
    this.#members = new GzipMembers(file, start, size);
  }

  next(): Promise<SourcePiece | null> {
    return this.#members.next();
  }

  close(): Promise<void> {
    return this.#members.close();
  }
}

export interface OpenedSource {
  file: FileHandle;
  size: number;
  source: ByteSource;
}

/**
 * Open `path` and sniff the bytes at `start`: gzip magic (or a lone 0x1f byte at the very end,
 * a gzip file cut after one byte) means gzip. Reading stops at `end` (exclusive) or the end of
 * the file. The caller closes `file`.
 */
export async function openSource(path: string, start = 0, end = Infinity): Promise<OpenedSource> {
  let file: FileHandle;
  try {
    file = await fs.open(path, 'r');
  } catch (err) {
    throw new WarcReadError('WARC_OPEN_FAILED', `cannot open ${path}: ${(err as Error).message}`, { offset: 0, path }, { cause: err });
  }
  try {
    const size = Math.min((await file.stat()).size, end);
    const head = Buffer.alloc(2);
    const { bytesRead } = await file.read(head, 0, 2, start);
    const gzip = isGzipMagic(head.subarray(0, bytesRead)) || (bytesRead === 1 && head[0] === 0x1f && start + 1 === size);
    const source = gzip ? new GzipSource(file, start, size) : new PlainSource(file, start, size);
    return { file, size, source };
  } catch (err) {
    await file.close();
    if (err instanceof WarcReadError) throw err;
    throw new WarcReadError('WARC_OPEN_FAILED', `cannot read ${path}: ${(err as Error).message}`, { offset: start, path }, { cause: err });
  }
}
