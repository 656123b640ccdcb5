/**
 * Where a response body goes while it arrives: memory up to a threshold, then a temp file.
 * A crawl runs dozens of fetches at once and a body can be gigabytes, so no body is ever held
 * whole in memory past the threshold.
 *
 * Writes are synchronous (fs.writeSync) on purpose: bytes are recorded from inside the socket's
 * push(), which cannot wait for a promise. The writes land in the page cache, the disk is far
 * faster than the network, and memory stays bounded without backpressure plumbing between the
 * tap and the socket. This is the same trade Heritrix's RecordingInputStream makes. It is
 * written here rather than taken from a library because the ones that do memory-then-file
 * buffering are stream-shaped and asynchronous, which a caller inside push() cannot use.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { TroveError } from '../errors.ts';
import { releaseBuffer } from '../formats/release-buffer.ts';

/** A finished body: in memory or in a temp file. */
export interface Spool {
  /** Bytes held. */
  readonly size: number;
  /** The temp file holding the bytes, or null while they are in memory. */
  readonly path: string | null;
  /** All bytes, streamed (from the file when spooled). */
  stream(): Readable;
  /** The first `maxBytes` bytes (all by default; mind the size before asking for all). */
  read(maxBytes?: number): Promise<Buffer>;
  /**
   * The bytes as the pieces held in memory, in order, without a copy; null when they are in a
   * file. The pieces are the spool's own: do not change them or hand their memory away, and do not
   * keep them past dispose(), which frees them (as it does the pieces stream() yields).
   */
  buffers(): readonly Buffer[] | null;
  /**
   * Remove the temp file, and free the memory of the pieces the spool made or was handed as its own
   * (SpoolWriter), at once rather than at the next garbage collection. Idempotent; the spool is
   * unusable afterwards.
   */
  dispose(): Promise<void>;
}

export const DEFAULT_SPOOL_MEMORY_BYTES = 1024 * 1024;
/** Owned chunks smaller than this are copied all the same (writeOwned). */
const KEEP_MIN_BYTES = 16 * 1024;

/** Collects bytes, spilling to `dir` past `memoryBytes`; `finish()` hands back the Spool. */
export class SpoolWriter {
  readonly #dir: string;
  readonly #memoryBytes: number;
  #chunks: Buffer[] = [];
  /** Per piece: it is a view of a buffer handed over as the spool's own (writeOwned), not a copy. */
  #kept: boolean[] = [];
  #size = 0;
  #fd: number | null = null;
  #path: string | null = null;
  #finished = false;

  constructor(dir: string, memoryBytes: number = DEFAULT_SPOOL_MEMORY_BYTES) {
    this.#dir = dir;
    this.#memoryBytes = memoryBytes;
  }

  get size(): number {
    return this.#size;
  }

  /**
   * Append bytes the caller may reuse: copied (or written to the file). Throws TroveError
   * FETCH_SPOOL_FAILED when the temp file cannot be written.
   */
  write(chunk: Uint8Array): void {
    this.#append(chunk, false);
  }

  /**
   * Append bytes nobody will change again (a socket read: Node allocates each one afresh), kept
   * as they are when they are large and most of their ArrayBuffer. Copying them doubled every
   * in-memory body for as long as the socket's buffer waited for a collection. A small view (a
   * body's first bytes after the head) is copied, so it does not keep a large buffer alive, and
   * so is a small read (a small page): into Node's shared pool, as before, rather than one
   * native allocation per URI.
   */
  writeOwned(chunk: Buffer): void {
    this.#append(chunk, chunk.length >= KEEP_MIN_BYTES && chunk.length * 2 >= chunk.buffer.byteLength);
  }

  #append(chunk: Uint8Array, keep: boolean): void {
    if (this.#finished) throw new Error('SpoolWriter.write() after finish()');
    if (chunk.length === 0) return;
    try {
      if (this.#fd === null && this.#size + chunk.length > this.#memoryBytes) this.#spill();
      if (this.#fd !== null) {
        writeAll(this.#fd, chunk);
      } else {
        // Copy unless kept: the chunk may be reused by the caller, or a small view into a larger
        // buffer we must not keep alive.
        this.#chunks.push(keep ? (chunk as Buffer) : Buffer.from(chunk));
        this.#kept.push(keep);
      }
    } catch (err) {
      this.abandon();
      throw new TroveError('FETCH_SPOOL_FAILED', `cannot spool body to ${this.#dir}: ${(err as Error).message}`, { dir: this.#dir }, { cause: err });
    }
    this.#size += chunk.length;
  }

  /** Close the file (if any) and return the readable spool. */
  finish(): Spool {
    if (this.#finished) throw new Error('SpoolWriter.finish() twice');
    this.#finished = true;
    if (this.#fd !== null) {
      fs.closeSync(this.#fd);
      this.#fd = null;
      return new FileSpool(this.#path as string, this.#size);
    }
    return new MemorySpool(this.#chunks, this.#size, this.#kept);
  }

  /** Drop everything (used when a fetch fails before a result exists). */
  abandon(): void {
    this.#finished = true;
    this.#chunks = [];
    this.#kept = [];
    if (this.#fd !== null) {
      try {
        fs.closeSync(this.#fd);
      } catch {
        /* already closed */
      }
      this.#fd = null;
    }
    if (this.#path !== null) fs.rm(this.#path, { force: true }, () => {});
  }

  #spill(): void {
    const file = path.join(this.#dir, `trove-spool-${process.pid}-${randomBytes(8).toString('hex')}.tmp`);
    this.#fd = fs.openSync(file, 'wx+', 0o600);
    this.#path = file;
    for (const c of this.#chunks) writeAll(this.#fd, c);
    this.#chunks = [];
    this.#kept = [];
  }
}

/** An empty spool, for responses without a body (HEAD, 204, 304). */
export function emptySpool(): Spool {
  return new MemorySpool([], 0, null);
}

/** A spool over bytes already in memory (tests, small synthetic records); the caller's buffer stays the caller's. */
export function spoolFromBuffer(buf: Buffer): Spool {
  return new MemorySpool([buf], buf.length, null);
}

/** A spool over a file that already holds the bytes (a body another component spooled); dispose() removes it. */
export function spoolFromFile(file: string, size: number): Spool {
  return new FileSpool(file, size);
}

/**
 * Frees the pieces' memory: a copy the writer made when it is its own ArrayBuffer, a kept piece's
 * whole ArrayBuffer (a socket read: the bytes before the body, the response head, were copied out
 * by the framer, and a chunked body's entity pieces, views of the same reads, go with it).
 */
function releasePieces(chunks: Buffer[], kept: boolean[] | null): void {
  for (let i = 0; i < chunks.length; i++) releaseBuffer(chunks[i]!, kept?.[i] !== true);
}

function writeAll(fd: number, chunk: Uint8Array): void {
  let off = 0;
  while (off < chunk.length) off += fs.writeSync(fd, chunk, off, chunk.length - off);
}

class MemorySpool implements Spool {
  readonly size: number;
  readonly path = null;
  #chunks: Buffer[];
  /** Which pieces are the spool's own to free (SpoolWriter's), or null: none (a caller's buffer). */
  #owned: boolean[] | null;
  #disposed = false;

  constructor(chunks: Buffer[], size: number, kept: boolean[] | null) {
    this.#chunks = chunks;
    this.size = size;
    this.#owned = kept;
  }

  stream(): Readable {
    this.#check();
    return Readable.from(this.#chunks, { objectMode: false });
  }

  async read(maxBytes: number = this.size): Promise<Buffer> {
    this.#check();
    const all = this.#chunks.length === 1 ? this.#chunks[0] : Buffer.concat(this.#chunks, this.size);
    // The one piece itself goes to the caller, who may keep it: dispose() leaves the memory alone.
    if (this.#chunks.length === 1) this.#owned = null;
    return maxBytes >= all.length ? all : all.subarray(0, Math.max(0, maxBytes));
  }

  buffers(): readonly Buffer[] {
    this.#check();
    return this.#chunks;
  }

  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    if (this.#owned) releasePieces(this.#chunks, this.#owned);
    this.#chunks = [];
  }

  #check(): void {
    if (this.#disposed) throw new TroveError('SPOOL_DISPOSED', 'spool was disposed');
  }
}

class FileSpool implements Spool {
  readonly size: number;
  readonly path: string;
  #disposed = false;

  constructor(file: string, size: number) {
    this.path = file;
    this.size = size;
  }

  stream(): Readable {
    this.#check();
    return fs.createReadStream(this.path);
  }

  async read(maxBytes: number = this.size): Promise<Buffer> {
    this.#check();
    const want = Math.max(0, Math.min(maxBytes, this.size));
    const fh = await fs.promises.open(this.path, 'r');
    try {
      const buf = Buffer.allocUnsafe(want);
      let off = 0;
      while (off < want) {
        const { bytesRead } = await fh.read(buf, off, want - off, off);
        if (bytesRead === 0) break;
        off += bytesRead;
      }
      return buf.subarray(0, off);
    } finally {
      await fh.close();
    }
  }

  buffers(): null {
    this.#check();
    return null;
  }

  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    await fs.promises.rm(this.path, { force: true });
  }

  #check(): void {
    if (this.#disposed) throw new TroveError('SPOOL_DISPOSED', 'spool was disposed');
  }
}
