/**
 * Crash recovery for WARC files left as `….warc.gz.open` (kill -9, power cut, a disk that
 * filled up while the writer could not even truncate). Walks the file record by record, keeps
 * every complete one, cuts the torn tail, fsyncs and renames to the final name. The writer only
 * ever appends whole groups, so what survives is always a readable WARC.
 *
 * Streams: a gzip file is inflated member by member in 1 MiB slices; a plain file's blocks are
 * skipped by position. Nothing proportional to the file size is held in memory.
 */
import { promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { TroveError } from '../errors.ts';
import { checkGzipMember, readAt } from './recover-gzip-member.ts';
import { RecordScanner } from './recover-record-scanner.ts';
import { OPEN_SUFFIX, finalNameOf } from './warc-file-name.ts';

export interface RecoveredWarc {
  /** The name the file now has (or would have had, when `removed`). */
  finalPath: string;
  /** Complete records kept. */
  records: number;
  keptBytes: number;
  cutBytes: number;
  /** Why bytes were cut (null when the file was whole). */
  note: string | null;
  /** True when not one complete record was left: the file is deleted rather than renamed to an empty WARC. */
  removed: boolean;
}

const SLICE = 1024 * 1024;
const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);

interface Walk {
  records: number;
  keptBytes: number;
  problem: string | null;
}

async function walkGzip(fh: FileHandle, size: number): Promise<Walk> {
  let pos = 0;
  let records = 0;
  while (pos < size) {
    const member = await checkGzipMember(fh, pos, size);
    if (!member.ok) return { records, keptBytes: pos, problem: member.problem };
    records += member.records;
    pos = member.end;
  }
  return { records, keptBytes: pos, problem: null };
}

async function walkPlain(fh: FileHandle, size: number): Promise<Walk> {
  const scanner = new RecordScanner();
  let pos = 0;
  while (pos < size && !scanner.bad) {
    const skip = Math.min(scanner.blockRemaining, size - pos);
    if (skip > 0) {
      scanner.skip(skip);
      pos += skip;
      continue;
    }
    const slice = await readAt(fh, pos, Math.min(SLICE, size - pos));
    if (slice.length === 0) break;
    scanner.push(slice);
    pos += slice.length;
  }
  const kept = scanner.lastBoundary;
  const problem = kept === size ? null : (scanner.problem ?? `record incomplete (file ends at ${size})`);
  return { records: scanner.records, keptBytes: kept, problem };
}

/** Makes a rename durable; best effort where directories cannot be opened (Windows). */
async function syncDir(dir: string): Promise<void> {
  const h = await fsp.open(dir, 'r').catch(() => null);
  if (!h) return;
  try {
    await h.sync();
  } catch {
    // EISDIR/EPERM/EINVAL on platforms that do not fsync directories.
  } finally {
    await h.close();
  }
}

/**
 * Repairs one `.open` WARC in place and renames it. Throws `WARC_NOT_OPEN_FILE`,
 * `WARC_RECOVER_TARGET_EXISTS` (the final name is taken: nothing is touched) or
 * `WARC_RECOVER_FAILED` (I/O error, with the cause).
 */
export async function recoverOpenWarc(openPath: string): Promise<RecoveredWarc> {
  const finalPath = finalNameOf(openPath);
  if (await fsp.access(finalPath).then(() => true, () => false)) {
    throw new TroveError('WARC_RECOVER_TARGET_EXISTS', `cannot recover ${openPath}: ${finalPath} already exists`, {
      path: openPath,
      finalPath,
    });
  }
  let fh: FileHandle;
  try {
    fh = await fsp.open(openPath, 'r+');
  } catch (err) {
    throw new TroveError('WARC_RECOVER_FAILED', `cannot open ${openPath}: ${(err as Error).message}`, { path: openPath, cause: err }, { cause: err });
  }
  let walk: Walk;
  let size: number;
  try {
    size = (await fh.stat()).size;
    const magic = await readAt(fh, 0, 2);
    if (size === 0) walk = { records: 0, keptBytes: 0, problem: null };
    else if (magic.equals(GZIP_MAGIC)) walk = await walkGzip(fh, size);
    else walk = await walkPlain(fh, size);
    if (walk.keptBytes < size) {
      await fh.truncate(walk.keptBytes);
    }
    await fh.sync();
  } catch (err) {
    await fh.close().catch(() => undefined);
    throw new TroveError('WARC_RECOVER_FAILED', `recovering ${openPath} failed: ${(err as Error).message}`, { path: openPath, cause: err }, { cause: err });
  }
  await fh.close();

  const cutBytes = size - walk.keptBytes;
  const note = cutBytes > 0 ? `cut ${cutBytes} bytes from offset ${walk.keptBytes}: ${walk.problem ?? 'incomplete record'}` : null;
  const removed = walk.records === 0;
  try {
    if (removed) await fsp.rm(openPath);
    else await fsp.rename(openPath, finalPath);
    await syncDir(path.dirname(finalPath));
  } catch (err) {
    throw new TroveError('WARC_RECOVER_FAILED', `cannot finish ${openPath}: ${(err as Error).message}`, { path: openPath, cause: err }, { cause: err });
  }
  return { finalPath, records: walk.records, keptBytes: walk.keptBytes, cutBytes, note, removed };
}

/** Full paths of `.warc.open` / `.warc.gz.open` files in `dir` (sorted; none when `dir` does not exist). */
export async function listOpenWarcs(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new TroveError('WARC_RECOVER_FAILED', `cannot list ${dir}: ${(err as Error).message}`, { path: dir, cause: err }, { cause: err });
  }
  return names
    .filter((n) => n.endsWith(`.warc${OPEN_SUFFIX}`) || n.endsWith(`.warc.gz${OPEN_SUFFIX}`))
    .sort()
    .map((n) => path.join(dir, n));
}
