/**
 * Fixity of WARC files: SHA-256 and CRC-32 of a file's bytes, recorded once the bytes are final
 * (a crawl's WARC when the writer seals it, an imported WARC when it is indexed), together with
 * the size and mtime the file had then.
 *
 * Why: a WACZ lists every WARC with its SHA-256 and a ZIP lists every entry with its CRC-32. With
 * the values recorded at capture time an export streams the WARCs without hashing them again
 * (SHA-256 runs at ~2 GB/s on one core, slower than a page-cache copy), and it carries the
 * fixity the file had when it was made: a file damaged on disk since then fails the package's
 * checks instead of getting a fresh hash of the damaged bytes. When a file's size or mtime has
 * changed, the record no longer counts and the export hashes the bytes as they are;
 * `verifyFixity` (export `--verify`) hashes them always and fails on a mismatch.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type Database from 'better-sqlite3';
import { crc32 } from 'node:zlib';
import { isCancelled, throwIfCancelled } from '../errors.ts';

export interface Fixity {
  /** Hex SHA-256 of the bytes. */
  sha256: string;
  /** CRC-32 (as in ZIP) of the bytes, unsigned. */
  crc32: number;
}

export interface RecordedFixity extends Fixity {
  /** How many bytes were hashed (the WARC's length). */
  bytes: number;
  /** Size and mtime of the file holding the bytes (the .wacz for a stored entry) when hashed. */
  fileSize: number;
  mtimeMs: number;
  /** ms since epoch. */
  recordedAt: number;
}

interface FixityRow {
  sha256: string;
  crc32: number;
  bytes: number;
  file_size: number;
  mtime_ms: number;
  recorded_at: number;
}

/**
 * SHA-256 and CRC-32 of `length` bytes of `file` from `start`, read 1 MiB at a time into one
 * buffer. Not a read stream: each of its chunks is a fresh 1 MiB ArrayBuffer that lives until a
 * collection, and sealing a crawl's 300 MB WARC piled up ~60 MiB of them (the 111,111-page
 * synthetic crawl's peak RSS came at its end, from this).
 */
export async function computeFixity(file: string, start: number, length: number, signal?: AbortSignal): Promise<Fixity> {
  const sha = createHash('sha256');
  let crc = 0;
  let seen = 0;
  if (length > 0) {
    const fh = await fsp.open(file, 'r');
    try {
      const buf = Buffer.allocUnsafe(Math.min(length, 1 << 20));
      while (seen < length) {
        throwIfCancelled(signal, 'hashing');
        const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, length - seen), start + seen);
        if (bytesRead === 0) break;
        const chunk = buf.subarray(0, bytesRead);
        sha.update(chunk);
        crc = crc32(chunk, crc);
        seen += bytesRead;
      }
    } finally {
      await fh.close();
    }
  }
  if (seen !== length) throw Object.assign(new Error(`${file} ends after ${seen} of the ${length} bytes expected at ${start}`), { code: 'SHORT_FILE' });
  return { sha256: sha.digest('hex'), crc32: crc >>> 0 };
}

/** What was recorded for the file with this warc_files id, or null. */
export function recordedFixity(db: Database.Database, fileId: number): RecordedFixity | null {
  const row = db.prepare<[number], FixityRow>('SELECT * FROM file_fixity WHERE file_id = ?').get(fileId);
  if (!row) return null;
  return { sha256: row.sha256, crc32: row.crc32, bytes: row.bytes, fileSize: row.file_size, mtimeMs: row.mtime_ms, recordedAt: row.recorded_at };
}

/** Whether recorded fixity still describes `length` bytes of a file whose size and mtime are unchanged. */
export function fixityStillHolds(f: RecordedFixity, holder: fs.Stats, length: number): boolean {
  // mtime compared to the millisecond: what every file system and copy tool keeps.
  return f.bytes === length && f.fileSize === holder.size && Math.round(f.mtimeMs) === Math.round(holder.mtimeMs);
}

/**
 * Hash `length` bytes of `source` from `start` and record them for `fileId`. Nothing is recorded
 * (null) when the file changed while it was read, or when it cannot be read: fixity is then
 * computed by whoever needs it. With `signal`, an abort stops the hashing (CANCELLED is thrown).
 */
export async function sealFile(db: Database.Database, fileId: number, source: string, start: number, length: number, signal?: AbortSignal): Promise<RecordedFixity | null> {
  try {
    const before = await fsp.stat(source);
    const fixity = await computeFixity(source, start, length, signal);
    const after = await fsp.stat(source);
    if (after.size !== before.size || after.mtimeMs !== before.mtimeMs) return null;
    const recorded: RecordedFixity = { ...fixity, bytes: length, fileSize: after.size, mtimeMs: after.mtimeMs, recordedAt: Date.now() };
    if (!db.open) return null;
    db.prepare(
      `INSERT INTO file_fixity (file_id, sha256, crc32, bytes, file_size, mtime_ms, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (file_id) DO UPDATE SET sha256 = excluded.sha256, crc32 = excluded.crc32, bytes = excluded.bytes,
         file_size = excluded.file_size, mtime_ms = excluded.mtime_ms, recorded_at = excluded.recorded_at`,
    ).run(fileId, recorded.sha256, recorded.crc32, recorded.bytes, recorded.fileSize, recorded.mtimeMs, recorded.recordedAt);
    return recorded;
  } catch (err) {
    // A cancel (an import's signal) stops the hashing of a whole file at once, and is the caller's to handle.
    if (isCancelled(err)) throw err;
    return null;
  }
}
