/**
 * A streaming ZIP writer for WACZ packages: STORED or DEFLATED entries, ZIP64 past 4 GiB, CRC-32
 * and SHA-256 computed while the bytes pass, memory flat whatever the entry size.
 *
 * Every entry's local header and central directory record agree (APPNOTE 6.3.10 §4.3.7, §4.3.12,
 * §4.5.3): the same version needed, flags, method, time, CRC-32 and sizes, and a ZIP64 extra field
 * only where a value needs it. Readers differ in which of the two they trust: ReplayWeb.page
 * (wabac.js ziprangereader) takes sizes from the central directory and, when its record has no
 * extra field, assumes the local header has none either; Python's zipfile and Info-ZIP read the
 * local header to find the data; Java's ZipInputStream reads only local headers. So:
 * - the headers are written only once the sizes are known. A STORED entry of declared size gets
 *   its header first and only its CRC-32 patched in place afterwards (the file is seekable); an
 *   entry whose size is not known in advance (deflated, or a stream of unknown length) is
 *   spooled first (memory up to SPOOL_MEMORY, then a temporary file beside the archive) and then
 *   written with its final header. No data descriptors (general purpose bit 3) anywhere.
 * - an entry whose size or compressed size reaches 0xFFFFFFFF has a ZIP64 extra field with both
 *   sizes in its local header and the same (plus the offset when that needs it) in the central
 *   directory, 0xFFFFFFFF in both headers' 32-bit fields. A local header past 4 GiB gets its
 *   offset in a central ZIP64 extra; its local header needs none (APPNOTE §4.5.3).
 *
 * Why not yazl (a dependency, and it does ZIP64): a WACZ export copies WARCs whose SHA-256 and
 * CRC-32 were recorded when they were written (file-fixity.ts), and yazl has no way to take a
 * CRC-32 known in advance: it always hashes the bytes again, in JavaScript (buffer-crc32, measured
 * here at ~210 MB/s against ~1.2 GB/s for Node's native `zlib.crc32`), which alone would make a
 * 50 GB export take four minutes longer than reading the WARCs. And yazl streams every entry from
 * a stream with data descriptors (bit 3), since it cannot seek back, which some streaming readers
 * (Java's ZipInputStream) cannot handle for STORED entries. The archive is written as `NAME.part`
 * and renamed on close, so a failed export never leaves a plausible-looking file behind.
 */
import { createHash } from 'node:crypto';
import fsp from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createDeflateRaw, crc32, deflateRawSync } from 'node:zlib';
import { TroveError } from '../errors.ts';
import { readFileRange } from './file-range.ts';

export interface ZipEntryOptions {
  /** Deflate the entry (default false: STORED). */
  compress?: boolean;
  /** Uncompressed size, when known; checked against the bytes that arrive. */
  size?: number;
  mtime?: Date;
  /**
   * CRC-32 and SHA-256 of the entry's bytes known beforehand (a WARC's fixity recorded when it
   * was written): used as given instead of hashing the bytes again. STORED entries only.
   */
  known?: { crc32: number; sha256: string };
}

export interface ZipEntryInfo {
  name: string;
  compressed: boolean;
  /** Uncompressed bytes. */
  size: number;
  compressedSize: number;
  crc32: number;
  /** SHA-256 (hex) of the uncompressed bytes. */
  sha256: string;
  /** Offset of the local header in the ZIP file. */
  headerOffset: number;
  /** Offset of the entry's (compressed) data in the ZIP file. */
  dataOffset: number;
}

const U32_MAX = 0xffffffff;
const U16_MAX = 0xffff;
const LOCAL_HEADER = 30;
const CENTRAL_HEADER = 46;
const FLAG_UTF8 = 1 << 11;
const VERSION_MADE_BY = (3 << 8) | 63; // unix, APPNOTE 6.3
const VERSION_PLAIN = 20;
const VERSION_ZIP64 = 45;
/** Bytes gathered before they go to deflate. */
const DEFLATE_BATCH = 256 << 10;
/** Small writes are gathered up to this size before they hit the disk. */
const WRITE_BUFFER = 1 << 20;
/**
 * An entry of unknown size is held in memory up to this size, then spooled to a file. 4 MiB, not
 * 16: past ~200,000 captures a WACZ's index.cdx.gz and pages.jsonl go to the file anyway, and
 * while 16 MiB of pages.jsonl's deflate output was held, ArrayBuffers reached 42 MB (the chunks,
 * and copies not yet collected): WACZ export of 1.18M captures, peak RSS 203, 204, 206 MB at
 * 16 MiB, 190, 193, 193 MB at 4.
 */
export const SPOOL_MEMORY = 4 << 20;

interface EntryHeader {
  name: string;
  nameBytes: Buffer;
  compressed: boolean;
  dosTime: number;
  dosDate: number;
  headerOffset: number;
  /** Sizes and the CRC as the local header has them (the CRC may be patched later). */
  size: number;
  compressedSize: number;
}

interface CentralEntry extends ZipEntryInfo {
  nameBytes: Buffer;
  dosTime: number;
  dosDate: number;
}

/** Sizes that need a ZIP64 extra field (both sizes go in it then, in both headers). */
const zip64Sizes = (size: number, compressedSize: number) => size >= U32_MAX || compressedSize >= U32_MAX;
/** The same "version needed" in the local and central header: 4.5 when the entry uses ZIP64 at all. */
const versionNeeded = (size: number, compressedSize: number, headerOffset: number) =>
  zip64Sizes(size, compressedSize) || headerOffset >= U32_MAX ? VERSION_ZIP64 : VERSION_PLAIN;

export class ZipWriter {
  readonly path: string;
  readonly #partPath: string;
  readonly #fh: FileHandle;
  #pos = 0;
  #buf = Buffer.allocUnsafe(WRITE_BUFFER);
  #bufLen = 0;
  #pending: Promise<void> = Promise.resolve();
  readonly #entries: CentralEntry[] = [];
  readonly #names = new Set<string>();
  #spools = 0;
  #busy = false;
  #done = false;

  private constructor(path: string, partPath: string, fh: FileHandle) {
    this.path = path;
    this.#partPath = partPath;
    this.#fh = fh;
  }

  /** Create `path` (written as `path.part` until `close()`). */
  static async create(path: string): Promise<ZipWriter> {
    const part = `${path}.part`;
    try {
      return new ZipWriter(path, part, await fsp.open(part, 'w'));
    } catch (err) {
      throw new TroveError('EXPORT_WRITE_FAILED', `cannot create ${part}: ${(err as Error).message}`, { path: part }, { cause: err });
    }
  }

  /** Bytes of the ZIP written so far. */
  get bytesWritten(): number {
    return this.#pos + this.#bufLen;
  }

  get entries(): ZipEntryInfo[] {
    return this.#entries.map(({ nameBytes: _n, dosTime: _t, dosDate: _d, ...info }) => info);
  }

  /** Add an entry from a stream of chunks; resolves once all of it is written. One entry at a time. */
  async addStream(name: string, source: AsyncIterable<Uint8Array>, opts: ZipEntryOptions = {}): Promise<ZipEntryInfo> {
    this.#checkAdd(name);
    this.#busy = true;
    try {
      const compressed = opts.compress === true;
      if (opts.known && compressed) throw new TroveError('EXPORT_ZIP_BAD_OPTIONS', `${name}: known hashes are for STORED entries`, { name });
      return opts.size !== undefined && !compressed ? await this.#addSized(name, source, opts.size, opts) : await this.#addSpooled(name, source, opts);
    } finally {
      this.#busy = false;
    }
  }

  /** Add an entry held in memory (small files: datapackage.json, the idx…), without stream machinery. */
  async addBuffer(name: string, data: Uint8Array, opts: Omit<ZipEntryOptions, 'size'> = {}): Promise<ZipEntryInfo> {
    this.#checkAdd(name);
    this.#busy = true;
    try {
      const b = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      const compressed = opts.compress === true;
      const body = compressed ? deflateRawSync(b, { level: 6 }) : b;
      const crc = opts.known && !compressed ? opts.known.crc32 : crc32(b);
      const sha = opts.known && !compressed ? opts.known.sha256 : createHash('sha256').update(b).digest('hex');
      const h = await this.#header(name, compressed, b.length, body.length, crc, opts.mtime);
      await this.#write(body);
      return this.#record(h, crc, sha);
    } finally {
      this.#busy = false;
    }
  }

  #checkAdd(name: string): void {
    if (this.#done) throw new TroveError('EXPORT_ZIP_CLOSED', 'the ZIP file is already closed');
    if (this.#busy) throw new TroveError('EXPORT_ZIP_BUSY', 'one ZIP entry at a time');
    checkName(name);
    if (this.#names.has(name)) throw new TroveError('EXPORT_ZIP_DUPLICATE', `duplicate ZIP entry ${name}`, { name });
  }

  /**
   * A STORED entry of declared size (a WARC): the header with its final sizes first, then the
   * bytes straight through; only the CRC-32 is patched in once the bytes are out, unless it was
   * known in advance.
   */
  async #addSized(name: string, source: AsyncIterable<Uint8Array>, declared: number, opts: ZipEntryOptions): Promise<ZipEntryInfo> {
    const known = opts.known;
    const h = await this.#header(name, false, declared, declared, known ? known.crc32 : 0, opts.mtime);
    let crc = 0;
    let size = 0;
    const sha = known ? null : createHash('sha256');
    const mismatch = () =>
      new TroveError('EXPORT_SIZE_MISMATCH', `${name}: expected ${declared} bytes, got ${size > declared ? 'more' : size}`, { name, expected: declared, actual: size });
    for await (const chunk of source) {
      const b = toBuffer(chunk);
      size += b.length;
      if (size > declared) throw mismatch();
      if (sha) {
        crc = crc32(b, crc);
        sha.update(b);
      }
      await this.#write(b);
    }
    if (size !== declared) throw mismatch();
    if (!known) {
      const patch = Buffer.alloc(4);
      patch.writeUInt32LE(crc >>> 0, 0);
      await this.#patch(h.headerOffset + 14, patch);
    }
    return this.#record(h, known ? known.crc32 : crc, known ? known.sha256 : sha!.digest('hex'));
  }

  /**
   * An entry whose (compressed) size is not known in advance: its bytes are spooled — in memory
   * up to SPOOL_MEMORY, beyond that in a temporary file beside the archive — hashed and counted,
   * then written after a header that already carries the final CRC-32 and sizes.
   */
  async #addSpooled(name: string, source: AsyncIterable<Uint8Array>, opts: ZipEntryOptions): Promise<ZipEntryInfo> {
    const compressed = opts.compress === true;
    let crc = 0;
    let size = 0;
    const sha = createHash('sha256');
    const batch: Buffer[] = [];
    let batched = 0;
    const tapped = (async function* (): AsyncGenerator<Buffer> {
      for await (const chunk of source) {
        const b = toBuffer(chunk);
        crc = crc32(b, crc);
        sha.update(b);
        size += b.length;
        // Deflate gets batches: each chunk is a round trip to the thread pool, which made
        // pages.jsonl, one small chunk per page, slow. The copy also keeps a source free to
        // reuse its buffers (readFileRange).
        batch.push(Buffer.from(b));
        batched += b.length;
        if (batched >= DEFLATE_BATCH) {
          yield Buffer.concat(batch, batched);
          batch.length = 0;
          batched = 0;
        }
      }
      if (batched > 0) yield Buffer.concat(batch, batched);
    })();
    const spool = new Spool(`${this.#partPath}.spool${this.#spools++}`);
    try {
      if (compressed) {
        await pipeline(Readable.from(tapped, { objectMode: false }), createDeflateRaw({ level: 6 }), async (out: AsyncIterable<Buffer>) => {
          for await (const c of out) await spool.add(c);
        });
      } else {
        for await (const c of tapped) await spool.add(c);
      }
      if (opts.size !== undefined && opts.size !== size) {
        throw new TroveError('EXPORT_SIZE_MISMATCH', `${name}: expected ${opts.size} bytes, got ${size}`, { name, expected: opts.size, actual: size });
      }
      const h = await this.#header(name, compressed, size, spool.bytes, crc >>> 0, opts.mtime);
      for await (const c of spool.read()) await this.#write(c);
      return this.#record(h, crc, sha.digest('hex'));
    } finally {
      await spool.remove();
    }
  }

  /** Write a local header with its final sizes (ZIP64 extra field when they need one). */
  async #header(name: string, compressed: boolean, size: number, compressedSize: number, crc: number, mtime: Date | undefined): Promise<EntryHeader> {
    const nameBytes = Buffer.from(name, 'utf8');
    const { time: dosTime, date: dosDate } = dosDateTime(mtime ?? new Date());
    const headerOffset = this.bytesWritten;
    const zip64 = zip64Sizes(size, compressedSize);
    const extraLen = zip64 ? 20 : 0; // id, length, uncompressed, compressed (both, §4.5.3)
    const header = Buffer.alloc(LOCAL_HEADER + nameBytes.length + extraLen);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(versionNeeded(size, compressedSize, headerOffset), 4);
    header.writeUInt16LE(FLAG_UTF8, 6);
    header.writeUInt16LE(compressed ? 8 : 0, 8);
    header.writeUInt16LE(dosTime, 10);
    header.writeUInt16LE(dosDate, 12);
    header.writeUInt32LE(crc >>> 0, 14);
    header.writeUInt32LE(zip64 ? U32_MAX : compressedSize, 18);
    header.writeUInt32LE(zip64 ? U32_MAX : size, 22);
    header.writeUInt16LE(nameBytes.length, 26);
    header.writeUInt16LE(extraLen, 28);
    nameBytes.copy(header, LOCAL_HEADER);
    if (zip64) {
      const at = LOCAL_HEADER + nameBytes.length;
      header.writeUInt16LE(0x0001, at);
      header.writeUInt16LE(16, at + 2);
      header.writeBigUInt64LE(BigInt(size), at + 4);
      header.writeBigUInt64LE(BigInt(compressedSize), at + 12);
    }
    await this.#write(header);
    return { name, nameBytes, compressed, dosTime, dosDate, headerOffset, size, compressedSize };
  }

  /** Remember a finished entry for the central directory. */
  #record(h: EntryHeader, crc: number, sha256: string): ZipEntryInfo {
    const info: ZipEntryInfo = {
      name: h.name,
      compressed: h.compressed,
      size: h.size,
      compressedSize: h.compressedSize,
      crc32: crc >>> 0,
      sha256,
      headerOffset: h.headerOffset,
      dataOffset: h.headerOffset + LOCAL_HEADER + h.nameBytes.length + (zip64Sizes(h.size, h.compressedSize) ? 20 : 0),
    };
    this.#entries.push({ ...info, nameBytes: h.nameBytes, dosTime: h.dosTime, dosDate: h.dosDate });
    this.#names.add(h.name);
    return info;
  }

  /** Write the central directory, close and rename `NAME.part` → `NAME`. */
  async close(): Promise<void> {
    if (this.#done) return;
    if (this.#busy) throw new TroveError('EXPORT_ZIP_BUSY', 'an entry is still being written');
    this.#done = true;
    try {
      const cdStart = this.bytesWritten;
      for (const e of this.#entries) await this.#write(centralHeader(e));
      const cdSize = this.bytesWritten - cdStart;
      const count = this.#entries.length;
      const zip64 = count >= U16_MAX || cdStart >= U32_MAX || cdSize >= U32_MAX;
      if (zip64) {
        const recordAt = this.bytesWritten;
        const rec = Buffer.alloc(56);
        rec.writeUInt32LE(0x06064b50, 0);
        rec.writeBigUInt64LE(44n, 4);
        rec.writeUInt16LE(VERSION_MADE_BY, 12);
        rec.writeUInt16LE(VERSION_ZIP64, 14);
        rec.writeBigUInt64LE(BigInt(count), 24);
        rec.writeBigUInt64LE(BigInt(count), 32);
        rec.writeBigUInt64LE(BigInt(cdSize), 40);
        rec.writeBigUInt64LE(BigInt(cdStart), 48);
        const loc = Buffer.alloc(20);
        loc.writeUInt32LE(0x07064b50, 0);
        loc.writeBigUInt64LE(BigInt(recordAt), 8);
        loc.writeUInt32LE(1, 16);
        await this.#write(rec);
        await this.#write(loc);
      }
      const eocd = Buffer.alloc(22);
      eocd.writeUInt32LE(0x06054b50, 0);
      eocd.writeUInt16LE(Math.min(count, U16_MAX), 8);
      eocd.writeUInt16LE(Math.min(count, U16_MAX), 10);
      eocd.writeUInt32LE(Math.min(cdSize, U32_MAX), 12);
      eocd.writeUInt32LE(Math.min(cdStart, U32_MAX), 16);
      await this.#write(eocd);
      await this.#flush();
      // No fsync: an export can be made again, and a package torn by a power cut fails its
      // hash checks on import; the crawl's own WARCs are what must survive a crash.
      await this.#fh.close();
      await fsp.rename(this.#partPath, this.path);
    } catch (err) {
      await this.#pending.catch(() => undefined);
      await this.#fh.close().catch(() => undefined);
      await fsp.rm(this.#partPath, { force: true }).catch(() => undefined);
      if (err instanceof TroveError) throw err;
      throw new TroveError('EXPORT_WRITE_FAILED', `cannot finish ${this.path}: ${(err as Error).message}`, { path: this.path }, { cause: err });
    }
  }

  /** Give up: close and delete the partial file. */
  async abort(): Promise<void> {
    if (this.#done) return;
    this.#done = true;
    await this.#pending.catch(() => undefined);
    await this.#fh.close().catch(() => undefined);
    await fsp.rm(this.#partPath, { force: true }).catch(() => undefined);
  }

  /**
   * Large chunks are written behind: the write is started and the caller goes on (hashing the
   * next chunk) while it runs; the next write waits for it. So a chunk must stay unchanged until
   * the chunk after it has been passed in (readFileRange's buffers do).
   */
  async #write(chunk: Buffer): Promise<void> {
    if (chunk.length >= WRITE_BUFFER / 4) {
      await this.#flush();
      await this.#pending;
      this.#behind(this.#writeAt(chunk, this.#pos));
      this.#pos += chunk.length;
      return;
    }
    if (this.#bufLen + chunk.length > WRITE_BUFFER) await this.#flush();
    chunk.copy(this.#buf, this.#bufLen);
    this.#bufLen += chunk.length;
  }

  async #flush(): Promise<void> {
    await this.#pending;
    if (this.#bufLen === 0) return;
    const n = this.#bufLen;
    this.#bufLen = 0;
    await this.#writeAt(this.#buf.subarray(0, n), this.#pos);
    this.#pos += n;
  }

  /** Remember a write in flight; its error surfaces at the next await of #pending. */
  #behind(write: Promise<void>): void {
    write.catch(() => undefined); // handled when #pending is awaited
    this.#pending = write;
  }

  /** Overwrite bytes already written (in the buffer or on disk). */
  async #patch(at: number, bytes: Buffer): Promise<void> {
    await this.#pending;
    if (at >= this.#pos) {
      bytes.copy(this.#buf, at - this.#pos);
      return;
    }
    await this.#flush();
    await this.#writeAt(bytes, at);
  }

  async #writeAt(data: Buffer, position: number): Promise<void> {
    let done = 0;
    try {
      while (done < data.length) {
        const { bytesWritten } = await this.#fh.write(data, done, data.length - done, position + done);
        if (!(bytesWritten > 0)) throw new Error(`write returned ${bytesWritten}`);
        done += bytesWritten;
      }
    } catch (err) {
      throw new TroveError('EXPORT_WRITE_FAILED', `writing ${this.#partPath} failed: ${(err as Error).message}`, { path: this.#partPath }, { cause: err });
    }
  }
}

function checkName(name: string): void {
  if (name === '' || name.startsWith('/') || name.includes('\\') || name.includes('\0') || name.split('/').some((s) => s === '..' || s === '.' || s === '')) {
    throw new TroveError('EXPORT_ZIP_BAD_NAME', `bad ZIP entry name ${JSON.stringify(name)}`, { name });
  }
}

function centralHeader(e: CentralEntry): Buffer {
  const sizes64 = zip64Sizes(e.size, e.compressedSize);
  const extra: bigint[] = sizes64 ? [BigInt(e.size), BigInt(e.compressedSize)] : [];
  if (e.headerOffset >= U32_MAX) extra.push(BigInt(e.headerOffset));
  const extraLen = extra.length > 0 ? 4 + 8 * extra.length : 0;
  const b = Buffer.alloc(CENTRAL_HEADER + e.nameBytes.length + extraLen);
  b.writeUInt32LE(0x02014b50, 0);
  b.writeUInt16LE(VERSION_MADE_BY, 4);
  b.writeUInt16LE(versionNeeded(e.size, e.compressedSize, e.headerOffset), 6);
  b.writeUInt16LE(FLAG_UTF8, 8);
  b.writeUInt16LE(e.compressed ? 8 : 0, 10);
  b.writeUInt16LE(e.dosTime, 12);
  b.writeUInt16LE(e.dosDate, 14);
  b.writeUInt32LE(e.crc32, 16);
  b.writeUInt32LE(sizes64 ? U32_MAX : e.compressedSize, 20);
  b.writeUInt32LE(sizes64 ? U32_MAX : e.size, 24);
  b.writeUInt16LE(e.nameBytes.length, 28);
  b.writeUInt16LE(extraLen, 30);
  // comment length, disk number, internal attributes: 0
  b.writeUInt32LE((0o100644 << 16) >>> 0, 38);
  b.writeUInt32LE(Math.min(e.headerOffset, U32_MAX), 42);
  e.nameBytes.copy(b, CENTRAL_HEADER);
  if (extraLen > 0) {
    let at = CENTRAL_HEADER + e.nameBytes.length;
    b.writeUInt16LE(0x0001, at);
    b.writeUInt16LE(8 * extra.length, at + 2);
    at += 4;
    for (const v of extra) {
      b.writeBigUInt64LE(v, at);
      at += 8;
    }
  }
  return b;
}

const toBuffer = (c: Uint8Array): Buffer => (Buffer.isBuffer(c) ? c : Buffer.from(c.buffer, c.byteOffset, c.byteLength));

/** An entry's bytes held until its header can be written: in memory, then in a file once large. */
class Spool {
  readonly #path: string;
  #mem: Buffer[] = [];
  #fh: FileHandle | null = null;
  bytes = 0;

  constructor(path: string) {
    this.#path = path;
  }

  async add(chunk: Buffer): Promise<void> {
    if (!this.#fh && this.bytes + chunk.length > SPOOL_MEMORY) {
      this.#fh = await fsp.open(this.#path, 'w');
      for (const m of this.#mem) await this.#append(m);
      this.#mem = [];
    }
    if (this.#fh) await this.#append(chunk);
    else this.#mem.push(chunk);
    this.bytes += chunk.length;
  }

  async #append(b: Buffer): Promise<void> {
    let done = 0;
    while (done < b.length) done += (await this.#fh!.write(b, done, b.length - done)).bytesWritten;
  }

  async *read(): AsyncGenerator<Buffer> {
    if (!this.#fh) {
      yield* this.#mem;
      return;
    }
    await this.#fh.close();
    this.#fh = null;
    yield* readFileRange(this.#path, 0, this.bytes);
  }

  async remove(): Promise<void> {
    this.#mem = [];
    await this.#fh?.close().catch(() => undefined);
    this.#fh = null;
    await fsp.rm(this.#path, { force: true }).catch(() => undefined);
  }
}

/** MS-DOS date and time (local time, 2-second resolution), as ZIP stores them. */
function dosDateTime(d: Date): { time: number; date: number } {
  const year = Math.min(Math.max(d.getFullYear(), 1980), 2107);
  return {
    date: ((year - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | Math.floor(d.getSeconds() / 2),
  };
}
