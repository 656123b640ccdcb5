/**
 * Importing WARC, ARC and WACZ files into an archive directory, into the same capture index a
 * crawl writes, so imported captures are browsed, searched and replayed like crawled ones.
 *
 * - By reference (default): the file stays where it is and is registered by absolute path (or by
 *   a path relative to the archive when it already lives inside it).
 * - `copy`: the file is copied into `warcs/` first and registered as `warcs/NAME`.
 * - Re-importing a registered file replaces its rows; nothing is indexed twice.
 * - A broken file keeps every record read before the break; the typed reader error, with its
 *   offset, goes into the report. One bad file never stops the others.
 * - A file that cannot be read at record offsets (whole-file gzip) is rewritten with one gzip
 *   member per record into `warcs/` and that copy is indexed, since replay needs to seek.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { isCancelled, isTroveError, throwIfCancelled, TroveError } from '../errors.ts';
import { describeOwner, tryLock } from '../storage/owner-lock.ts';
import { databaseOf, openArchive } from './archive-dir.ts';
import type { Archive } from './archive-dir.ts';
import type { ImportReport } from '../api/archive-types.ts';
import { fileStem, indexStoredFile, referencePath, warcsSlot } from './import-stored-file.ts';
import type { ImportOptions, ImportRun } from './import-stored-file.ts';
import { importWacz } from './import-wacz.ts';
import { ImportStaging } from './import-staging.ts';

export type { ImportOptions } from './import-stored-file.ts';

/** Import `files` into the archive at `archiveDir` (created when missing). */
export async function importFiles(archiveDir: string, files: string[], opts: ImportOptions = {}): Promise<ImportReport> {
  const archive = openArchive(archiveDir);
  try {
    return await importIntoArchive(archive, files, opts);
  } finally {
    archive.close();
  }
}

/** The lock an import holds in the archive directory (a crawl holds `.lock`). */
export const IMPORT_LOCK_FILE = '.import.lock';

// One import at a time per open archive: batches of two imports must not interleave.
const running = new WeakMap<Archive, Promise<unknown>>();

/** Import into an archive that is already open (the desktop app keeps one open). */
export function importIntoArchive(archive: Archive, files: string[], opts: ImportOptions = {}): Promise<ImportReport> {
  const before = running.get(archive) ?? Promise.resolve();
  const next = before.catch(() => {}).then(() => runImport(archive, files, opts));
  running.set(archive, next);
  return next;
}

/**
 * SQLite page cache while importing. openDatabase gives a connection 64 MiB for the frontier's
 * random-access index; an import writes mostly in order, and at that size the cache alone is a
 * quarter of the import's memory budget.
 */
const IMPORT_CACHE_KIB = 16 * 1024;

/** How often a waiting import looks whether the one before it has finished. */
const IMPORT_WAIT_POLL_MS = 250;

async function runImport(archive: Archive, files: string[], opts: ImportOptions): Promise<ImportReport> {
  const release = await takeImportLock(archive, opts);
  const db = databaseOf(archive);
  const previousCache = db.pragma('cache_size', { simple: true }) as number;
  db.pragma(`cache_size = -${IMPORT_CACHE_KIB}`);
  try {
    return await importEach(archive, files, opts);
  } catch (err) {
    // Something outside Trove (a crawl or another tool) kept the database's write lock past
    // busy_timeout: say so in words, never as a raw SqliteError.
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))) {
      throw new TroveError(
        'ARCHIVE_BUSY',
        `the archive database in ${archive.dir} stayed busy: another process is writing to it; the import stopped, run it again once that process is done (files imported so far are kept)`,
        { dir: archive.dir },
        { cause: err },
      );
    }
    throw err;
  } finally {
    if (db.open) db.pragma(`cache_size = ${previousCache}`);
    release();
  }
}

/**
 * One import at a time per archive, across processes (two `trove import`s, the app and the
 * CLI): the second waits for the first, saying so once, for as long as the first one runs (a
 * dead holder's lock is broken; see owner-lock.ts).
 */
async function takeImportLock(archive: Archive, opts: ImportOptions): Promise<() => void> {
  const file = path.join(archive.dir, IMPORT_LOCK_FILE);
  let said = false;
  while (true) {
    const got = tryLock(file);
    if (got.ok) return got.release;
    throwIfCancelled(opts.signal, 'import');
    if (!said) {
      said = true;
      opts.onWait?.(`waiting for another import into ${archive.dir} (${describeOwner(got.owner)}) to finish…`);
    }
    await new Promise((r) => setTimeout(r, IMPORT_WAIT_POLL_MS));
  }
}

async function importEach(archive: Archive, files: string[], opts: ImportOptions): Promise<ImportReport> {
  const run: ImportRun = { archive, staging: new ImportStaging(archive), opts, report: { files: [], records: 0, pages: 0, problems: [] } };
  try {
    await importEachFile(run, files);
    // A cancel that came while the last file was being sealed (hashed whole) still holds: nothing is committed yet.
    throwIfCancelled(opts.signal, 'import');
  } catch (err) {
    if (isCancelled(err)) await run.staging.discard();
    else run.staging.commit();
    throw err;
  }
  run.staging.commit();
  return run.report;
}

async function importEachFile(run: ImportRun, files: string[]): Promise<void> {
  for (const given of files) {
    const abs = path.resolve(given);
    try {
      const stat = await fsp.stat(abs).catch(() => null);
      if (!stat || !stat.isFile()) {
        run.report.problems.push({ file: given, code: 'IMPORT_FILE_NOT_FOUND', message: `no such file: ${abs}` });
        continue;
      }
      if (await isZip(abs)) await importWacz(run, given, abs);
      else await importWarc(run, given, abs, stat.size);
    } catch (err) {
      if (!isTroveError(err) || isCancelled(err)) throw err;
      const offset = typeof err.details.offset === 'number' ? err.details.offset : undefined;
      run.report.problems.push({ file: given, code: err.code, message: err.message, ...(offset !== undefined ? { offset } : {}) });
    }
  }
}

async function isZip(file: string): Promise<boolean> {
  if (/\.wacz$/i.test(file)) return true;
  const fh = await fsp.open(file, 'r');
  try {
    const b = Buffer.alloc(4);
    const { bytesRead } = await fh.read(b, 0, 4, 0);
    return bytesRead === 4 && b[0] === 0x50 && b[1] === 0x4b && ((b[2] === 3 && b[3] === 4) || (b[2] === 5 && b[3] === 6));
  } finally {
    await fh.close();
  }
}

async function importWarc(run: ImportRun, given: string, abs: string, size: number): Promise<void> {
  const { archive } = run;
  const name = path.basename(abs);
  let storedPath: string;
  let readPath = abs;
  if (run.opts.copy) {
    storedPath = warcsSlot(archive, name);
    readPath = path.join(archive.dir, storedPath);
    await fsp.mkdir(path.dirname(readPath), { recursive: true });
    run.staging.writing(readPath);
    if (path.resolve(readPath) !== abs) await fsp.copyFile(abs, readPath);
  } else {
    storedPath = referencePath(archive, abs);
  }
  await indexStoredFile(run, {
    source: given,
    readPath,
    offsetBase: 0,
    storedPath,
    name,
    size,
    byReference: !run.opts.copy && path.isAbsolute(storedPath),
    kind: 'warc',
    stem: fileStem(name),
  });
}
