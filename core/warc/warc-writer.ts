/**
 * The crawl's one WARC writer: a serial queue of record groups (one URI's response, request,
 * metadata…), each record its own gzip member, files rotated between groups past `maxBytes`,
 * written as `NAME.warc.gz.open` and renamed on close.
 *
 * Invariant: the file on disk always ends at a group boundary. A group that fails half way
 * (ENOSPC, EIO, a spool that is shorter than declared…) is cut off again with `truncate`, the
 * error surfaces as `WARC_WRITE_FAILED` (or the block's own code), and the writer stays usable
 * for a retry. A crash (kill -9) can still leave a torn tail; recover-open-warc.ts repairs that.
 */
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TroveError, isTroveError } from '../errors.ts';
import { warcFields } from './record-header.ts';
import { OPEN_SUFFIX, warcFileName } from './warc-file-name.ts';
import { prepareRecord } from './write-record-input.ts';
import type { PreparedRecord, RecordInput } from './write-record-input.ts';
import { memberWritten, recordBytesInMemory, writeAllFully, writeRecordAt } from './write-record.ts';
import type { WarcFileHandle } from './write-record.ts';

export type { BlockSource, WarcFileHandle } from './write-record.ts';
export type { RecordInput, RecordType } from './write-record-input.ts';

/** A record validated and, when it was in memory, compressed ahead of time by `precompress`. */
export interface PrecompressedRecord {
  precompressed: true;
  record: PreparedRecord;
  /** Its bytes on disk, built for the file whose warcinfo is `warcinfoId`; null when it is streamed. */
  member: Buffer | null;
  warcinfoId: string | null;
}

function isPrecompressed(r: unknown): r is PrecompressedRecord {
  return typeof r === 'object' && r !== null && (r as { precompressed?: unknown }).precompressed === true;
}

export interface WrittenRecord {
  recordId: string;
  type: string;
  /** Base name of the final file (without `.open`). */
  filename: string;
  /** Where the record (its gzip member) starts in the file. */
  offset: number;
  /** Bytes on disk, including the gzip member's framing. */
  length: number;
  /** The WARC header fields as written (what a reader of the file will see). */
  fields: [string, string][];
}

export interface WarcWriterOptions {
  dir: string;
  /** File name prefix, e.g. `TROVE` or the crawl name. */
  prefix: string;
  /** Rotate to a new file before the next group once the current one reaches this size. */
  maxBytes: number;
  /** One gzip member per record (default true). */
  gzip?: boolean;
  /** zlib level, 0–9 (default 6, zlib's and Heritrix's default). */
  gzipLevel?: number;
  /** Serial of the first file (default 0); a resumed crawl continues numbering from here. */
  startSerial?: number;
  /** The warcinfo body for each new file (WARC-Filename is added by the writer). */
  warcinfo: () => { fields: Record<string, string | number | boolean | string[]> };
  /** Host part of file names (default `os.hostname()`). */
  hostLabel?: string;
  onFileClosed?: (path: string) => void;
  onFileOpened?: (path: string) => void;
  /**
   * Called before a file is closed (its `.open` path), while it is still the current file: the
   * crawl commits the index rows of its records here (waiting, if it must, for rows still on
   * their way: the writer's queue waits with it). If it throws, the file is not closed and the
   * write that would have rotated it fails with that error.
   */
  onFileClosing?: (path: string) => void | Promise<void>;
  /** The fs seam: opens (creating, exclusively) the `.open` file. Default `fs.promises.open(path, 'wx')`. */
  openFile?: (path: string) => Promise<WarcFileHandle>;
}

interface OpenWarc {
  handle: WarcFileHandle;
  name: string;
  openPath: string;
  finalPath: string;
  /** Bytes committed: always the end of a complete group. */
  size: number;
  warcinfoId: string;
}

/** Codes of errors that are about the caller's record, not the disk: passed through unchanged after rollback. */
const INPUT_ERRORS = new Set(['WARC_BLOCK_LENGTH_MISMATCH', 'WARC_BLOCK_DIGEST_MISMATCH', 'WARC_BAD_FIELD', 'WARC_BAD_RECORD']);

function writeFailed(message: string, cause: unknown, details: Record<string, unknown> = {}): TroveError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  const code = (cause as { code?: unknown } | null)?.code;
  return new TroveError('WARC_WRITE_FAILED', `${message}: ${reason}`, { ...details, cause, causeCode: code }, { cause });
}

/** fsync the directory so a rename survives a power cut. Not possible on every OS (Windows): best effort there. */
async function syncDir(dir: string): Promise<void> {
  let h: Awaited<ReturnType<typeof fsp.open>> | undefined;
  try {
    h = await fsp.open(dir, 'r');
    await h.sync();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EACCES') throw err;
  } finally {
    await h?.close();
  }
}

export class WarcWriter {
  readonly #opts: WarcWriterOptions;
  readonly #gzip: boolean;
  readonly #gzipLevel: number;
  readonly #host: string;
  #serial: number;
  #file: OpenWarc | null = null;
  #closedBytes = 0;
  readonly #filesClosed: string[] = [];
  #queue: Promise<unknown> = Promise.resolve();
  #closing: Promise<void> | null = null;

  constructor(opts: WarcWriterOptions) {
    if (!(opts.maxBytes > 0)) throw new TroveError('WARC_BAD_OPTIONS', `maxBytes must be > 0 (got ${opts.maxBytes})`);
    const level = opts.gzipLevel ?? 6;
    if (!Number.isInteger(level) || level < 0 || level > 9) {
      throw new TroveError('WARC_BAD_OPTIONS', `gzipLevel must be 0–9 (got ${opts.gzipLevel})`);
    }
    // Validate prefix and serial now rather than at the first write.
    warcFileName({ prefix: opts.prefix, date: new Date(0), serial: opts.startSerial ?? 0, pid: 0, host: 'h' });
    this.#opts = opts;
    this.#gzip = opts.gzip ?? true;
    this.#gzipLevel = level;
    this.#host = opts.hostLabel ?? os.hostname();
    this.#serial = opts.startSerial ?? 0;
  }

  /** Total bytes of complete groups on disk, across every file this writer opened. */
  get bytesWritten(): number {
    return this.#closedBytes + (this.#file?.size ?? 0);
  }

  /** Full path of the `.open` file being written, or null between files. */
  get currentFile(): string | null {
    return this.#file?.openPath ?? null;
  }

  /** Full paths of the files closed (renamed to their final name) so far. */
  get filesClosed(): string[] {
    return [...this.#filesClosed];
  }

  /**
   * Writes one URI's records, in order, into one file. Groups run one at a time in call order.
   * Resolves with where each record landed; rejects with a TroveError, leaving the file as it
   * was before the group. Records may come from `precompress` (their compressed bytes are reused).
   */
  writeGroup(records: (RecordInput | PrecompressedRecord)[]): Promise<WrittenRecord[]> {
    if (this.#closing) return Promise.reject(new TroveError('WARC_WRITER_CLOSED', 'the WARC writer is closed'));
    let prepared: (PreparedRecord | PrecompressedRecord)[];
    try {
      if (!Array.isArray(records)) throw new TroveError('WARC_BAD_RECORD', 'writeGroup takes an array of records');
      prepared = records.map((r) => (isPrecompressed(r) ? r : prepareRecord(r)));
    } catch (err) {
      return Promise.reject(err);
    }
    return this.#enqueue(() => this.#writeGroupNow(prepared));
  }

  /**
   * Validates records and compresses the in-memory ones now, outside the writer's queue — e.g.
   * while the page's links are still being extracted — for the file being written at this
   * moment. Hand the result to writeGroup; should the file rotate in between, those records are
   * simply compressed again there. Compression runs on the thread pool, so this overlaps with
   * work on the crawl's own thread. Hand each result to writeGroup once: a member's memory is
   * freed when it has been written.
   */
  async precompress(records: RecordInput[]): Promise<PrecompressedRecord[]> {
    const warcinfoId = this.#file?.warcinfoId ?? null;
    const prepared = records.map((r) => prepareRecord(r));
    return Promise.all(
      prepared.map(async (record): Promise<PrecompressedRecord> => {
        if (warcinfoId === null) return { precompressed: true, record, member: null, warcinfoId };
        const header = record.header(record.type === 'warcinfo' ? null : warcinfoId);
        const member = await recordBytesInMemory({ ...record, header }, { gzip: this.#gzip, gzipLevel: this.#gzipLevel });
        return { precompressed: true, record, member, warcinfoId };
      }),
    );
  }

  /** fsync the current file, after the groups queued so far (call before committing a database transaction about them). */
  flush(): Promise<void> {
    return this.#enqueue(async () => {
      const file = this.#file;
      if (!file) return;
      try {
        await file.handle.sync();
      } catch (err) {
        throw writeFailed(`fsync of ${file.name} failed`, err, { file: file.openPath, op: 'fsync' });
      }
    });
  }

  /** Flushes, fsyncs and renames `X.warc.gz.open` → `X.warc.gz`. Later writes are refused (`WARC_WRITER_CLOSED`). */
  close(): Promise<void> {
    this.#closing ??= this.#enqueue(() => this.#closeFile());
    return this.#closing;
  }

  #enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #writeGroupNow(records: (PreparedRecord | PrecompressedRecord)[]): Promise<WrittenRecord[]> {
    if (records.length === 0) return [];
    if (this.#file && this.#file.size >= this.#opts.maxBytes) await this.#closeFile();
    const file = this.#file ?? (await this.#openFile());

    const groupStart = file.size;
    let at = groupStart;
    const written: WrittenRecord[] = [];
    // Consecutive members in memory go to the file with one writev: a URI's response, request and
    // metadata records cost one trip to the thread pool instead of three, and no copy (issue 20).
    let joined: Buffer[] = [];
    let joinedAt = at;
    const writeJoined = async (): Promise<void> => {
      if (joined.length === 0) return;
      await writeAllFully(file.handle, joined, joinedAt);
      // On disk now, and nothing else holds a member (each is made for one write): its memory is
      // freed at once rather than waiting, body-sized, for a collection (issue 20).
      for (const m of joined) memberWritten(m);
      joined = [];
    };
    try {
      for (const item of records) {
        const rec = isPrecompressed(item) ? item.record : item;
        const infoId = rec.type === 'warcinfo' ? null : file.warcinfoId;
        const fields = rec.fields(infoId);
        let member: Buffer | null = null;
        let length = 0;
        if (isPrecompressed(item) && item.member && item.warcinfoId === file.warcinfoId) {
          member = item.member;
        } else {
          const header = rec.header(infoId);
          // A record compressed for another file already had its declared digest checked.
          const check = isPrecompressed(item) && item.member !== null ? null : rec.check;
          const opts = { gzip: this.#gzip, gzipLevel: this.#gzipLevel };
          member = await recordBytesInMemory({ ...rec, header, check }, opts);
          if (member === null) {
            await writeJoined();
            length = await writeRecordAt(file.handle, at, { ...rec, header, check }, opts);
          }
        }
        if (member !== null) {
          if (joined.length === 0) joinedAt = at;
          joined.push(member);
          length = member.length;
        }
        written.push({ recordId: rec.recordId, type: rec.type, filename: file.name, offset: at, length, fields });
        at += length;
      }
      await writeJoined();
    } catch (err) {
      await this.#rollback(file, groupStart, err);
    }
    file.size = at;
    return written;
  }

  /** Cuts the file back to `groupStart`, then throws. If even that fails, the file is abandoned as `.open` for recovery. */
  async #rollback(file: OpenWarc, groupStart: number, err: unknown): Promise<never> {
    try {
      await file.handle.truncate(groupStart);
    } catch (truncErr) {
      this.#file = null;
      await file.handle.close().catch(() => undefined);
      throw writeFailed(`writing to ${file.name} failed and it could not be truncated back (left as .open for recovery)`, err, {
        file: file.openPath,
        offset: groupStart,
        truncated: false,
        truncateError: truncErr,
      });
    }
    if (isTroveError(err) && INPUT_ERRORS.has(err.code)) {
      err.details.file ??= file.openPath;
      throw err;
    }
    throw writeFailed(`writing to ${file.name} failed; file cut back to its last complete group`, err, {
      file: file.openPath,
      offset: groupStart,
      truncated: true,
    });
  }

  /** Opens the next file and writes its warcinfo. On failure nothing is left behind and the serial is not used up. */
  async #openFile(): Promise<OpenWarc> {
    const now = new Date();
    const name = warcFileName({
      prefix: this.#opts.prefix,
      date: now,
      serial: this.#serial,
      pid: process.pid,
      host: this.#host,
      gzip: this.#gzip,
    });
    const finalPath = path.join(this.#opts.dir, name);
    const openPath = finalPath + OPEN_SUFFIX;
    const info = prepareRecord(
      {
        type: 'warcinfo',
        date: now,
        contentType: 'application/warc-fields',
        blockParts: [Buffer.from(warcFields(this.#opts.warcinfo().fields), 'utf8')],
      },
      [['WARC-Filename', name]],
    );

    let handle: WarcFileHandle;
    try {
      await fsp.mkdir(this.#opts.dir, { recursive: true });
      if (await fsp.access(finalPath).then(() => true, () => false)) {
        throw Object.assign(new Error(`${name} already exists`), { code: 'EEXIST' });
      }
      handle = await (this.#opts.openFile ?? ((p: string) => fsp.open(p, 'wx')))(openPath);
    } catch (err) {
      throw writeFailed(`cannot create ${openPath}`, err, { file: openPath, op: 'open' });
    }
    let size: number;
    try {
      size = await writeRecordAt(handle, 0, { ...info, header: info.header(null) }, {
        gzip: this.#gzip,
        gzipLevel: this.#gzipLevel,
      });
    } catch (err) {
      await handle.close().catch(() => undefined);
      await fsp.rm(openPath, { force: true }).catch(() => undefined);
      throw writeFailed(`writing the warcinfo of ${name} failed`, err, { file: openPath, op: 'warcinfo' });
    }
    this.#serial += 1;
    this.#file = { handle, name, openPath, finalPath, size, warcinfoId: info.recordId };
    this.#opts.onFileOpened?.(openPath);
    return this.#file;
  }

  /** fsync, close, rename to the final name. The writer forgets the file even on failure (it stays `.open` for recovery). */
  async #closeFile(): Promise<void> {
    const file = this.#file;
    if (!file) return;
    await this.#opts.onFileClosing?.(file.openPath);
    this.#file = null;
    try {
      await file.handle.sync();
    } catch (err) {
      await file.handle.close().catch(() => undefined);
      throw writeFailed(`fsync of ${file.name} failed (left as .open for recovery)`, err, { file: file.openPath, op: 'fsync' });
    }
    try {
      await file.handle.close();
      await fsp.rename(file.openPath, file.finalPath);
      await syncDir(path.dirname(file.finalPath));
    } catch (err) {
      throw writeFailed(`closing ${file.name} failed`, err, { file: file.openPath, op: 'close' });
    }
    this.#closedBytes += file.size;
    this.#filesClosed.push(file.finalPath);
    this.#opts.onFileClosed?.(file.finalPath);
  }
}
