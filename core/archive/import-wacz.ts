/**
 * Importing a WACZ package: check it (datapackage.json, each resource's size and hash), then
 * index the WARCs under `archive/`.
 *
 * - A STORED entry (what WACZ 1.1.1 asks for) is indexed by reference: registered as
 *   `ABS.wacz!/archive/x.warc.gz`, its records' offsets are offsets in the .wacz file, and
 *   replay reads them with one positioned read, no unzip.
 * - A DEFLATED entry cannot be read at offsets, so it is inflated into
 *   `warcs/<package name>/<entry path>` and that file is indexed.
 *
 * Hash or size mismatches are reported, and the package is still imported: the records may be
 * fine, and the report says what did not match. A package with an unsafe entry name is refused
 * before anything is written (see wacz-read.ts).
 *
 * Every file the import creates is removed again when it fails: an entry that is refused (zip
 * bomb, sizes that lie, bad data) leaves no partial WARC and no empty folder behind, and a
 * package of which nothing was imported leaves no `--copy` of itself.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { isCancelled, isTroveError, TroveError } from '../errors.ts';
import { waczEntryPath, WARCS_FOLDER } from './archive-dir.ts';
import { checkEntryBounds, entryTarget, openWacz, verifyWacz, waczWarcEntries } from './wacz-read.ts';
import type { WaczEntry, WaczPackage } from './wacz-read.ts';
import { fileStem, indexStoredFile, referencePath, warcsSlot } from './import-stored-file.ts';
import type { ImportRun } from './import-stored-file.ts';

export async function importWacz(run: ImportRun, given: string, abs: string): Promise<void> {
  const { archive, report } = run;
  let waczPath = abs;
  if (run.opts.copy) {
    const rel = warcsSlot(archive, path.basename(abs));
    waczPath = path.join(archive.dir, rel);
    try {
      await fsp.mkdir(path.dirname(waczPath), { recursive: true });
      run.staging.writing(waczPath);
      if (waczPath !== abs) await fsp.copyFile(abs, waczPath);
    } catch (err) {
      await fsp.rm(waczPath, { force: true });
      throw new TroveError('IMPORT_COPY_FAILED', `cannot copy ${abs} into the archive: ${(err as Error).message}`, { path: abs, errno: (err as NodeJS.ErrnoException).code }, { cause: err });
    }
  }
  // Inside the archive directory (a copy), the package is registered by a relative path.
  const copied = run.opts.copy && waczPath !== abs;
  const filesBefore = report.files.length;
  try {
    await importPackage(run, given, waczPath);
  } finally {
    // Nothing of the package made it in (refused, or every entry failed): drop the copy too.
    if (copied && report.files.length === filesBefore) await fsp.rm(waczPath, { force: true });
  }
}

async function importPackage(run: ImportRun, given: string, waczPath: string): Promise<void> {
  const { archive, report } = run;
  // Inside the archive directory (a copy), the package is registered by a relative path.
  const storedWacz = referencePath(archive, waczPath);
  const pkg = await openWacz(waczPath);
  try {
    for (const check of await verifyWacz(pkg, { ...(run.opts.signal ? { signal: run.opts.signal } : {}), what: 'import' })) {
      if (!check.ok) report.problems.push({ file: `${given}!/${check.path}`, code: check.code!, message: check.message! });
    }
    if (pkg.version === null) {
      report.problems.push({ file: given, code: 'WACZ_NO_VERSION', message: `${given}: datapackage.json has no wacz_version` });
    }
    const warcs = waczWarcEntries(pkg);
    if (warcs.length === 0) {
      report.problems.push({ file: given, code: 'WACZ_NO_WARCS', message: `${given} holds no WARC files under archive/` });
      return;
    }
    const packageName = path.basename(waczPath);
    for (const entry of warcs) {
      const source = `${given}!/${entry.name}`;
      if (entry.encrypted || (entry.compressionMethod !== 0 && entry.compressionMethod !== 8)) {
        report.problems.push({ file: source, code: 'WACZ_ENTRY_UNSUPPORTED', message: `${source} is encrypted or uses compression method ${entry.compressionMethod}` });
        continue;
      }
      try {
        if (entry.compressionMethod === 0) await importStoredEntry(run, pkg, storedWacz, entry, source, packageName);
        else await importDeflatedEntry(run, pkg, entry, source, packageName);
      } catch (err) {
        if (!isTroveError(err) || isCancelled(err)) throw err;
        report.problems.push({ file: source, code: err.code, message: err.message });
      }
    }
  } finally {
    pkg.close();
  }
}

async function importStoredEntry(
  run: ImportRun,
  pkg: WaczPackage,
  storedWacz: string,
  entry: WaczEntry,
  source: string,
  packageName: string,
): Promise<void> {
  checkEntryBounds(pkg.path, entry, (await fsp.stat(pkg.path)).size);
  const storedPath = waczEntryPath(storedWacz, entry.name);
  run.archive.setWaczEntry(storedPath, { wacz: storedWacz, entry: entry.name, dataOffset: entry.dataOffset });
  // The WARC reader reads whole files; give it the entry's bytes as a temporary file and shift
  // its offsets by the entry's data start, so the index points into the .wacz itself.
  const tmp = await copyRange(run.archive.dir, pkg.path, entry.dataOffset, entry.compressedSize);
  try {
    await indexStoredFile(run, {
      source,
      readPath: tmp,
      offsetBase: entry.dataOffset,
      storedPath,
      name: `${packageName}!/${entry.name}`,
      size: entry.size,
      byReference: path.isAbsolute(storedWacz),
      kind: 'wacz-entry',
      stem: `${fileStem(packageName)}-${fileStem(path.posix.basename(entry.name))}`,
      holder: path.resolve(run.archive.dir, storedWacz),
    });
  } finally {
    await fsp.rm(tmp, { force: true });
  }
}

async function importDeflatedEntry(run: ImportRun, pkg: WaczPackage, entry: WaczEntry, source: string, packageName: string): Promise<void> {
  const folder = path.join(run.archive.dir, WARCS_FOLDER, fileStem(packageName));
  const target = entryTarget(folder, entry.name, pkg.path);
  const input = await pkg.openEntry(entry); // refuses impossible sizes before a byte is written
  const firstDir = await fsp.mkdir(path.dirname(target), { recursive: true });
  // Written under a temporary name and renamed once whole: a refused entry never leaves a partial
  // WARC, and a failed re-import never spoils the copy an earlier import left there.
  const part = `${target}.${process.pid}.part`;
  try {
    await pipeline(input, fs.createWriteStream(part));
    await fsp.rename(part, target);
  } catch (err) {
    await fsp.rm(part, { force: true });
    if (firstDir) await removeEmptyDirs(path.dirname(target), firstDir);
    if (isTroveError(err)) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new TroveError('WACZ_ENTRY_WRITE_FAILED', `cannot write ${source} to ${target}: ${(err as Error).message}`, { path: target, entry: entry.name, errno: code }, { cause: err });
  }
  const storedPath = path.relative(run.archive.dir, target).split(path.sep).join('/');
  await indexStoredFile(run, {
    source,
    readPath: target,
    offsetBase: 0,
    storedPath,
    name: `${packageName}!/${entry.name}`,
    size: entry.size,
    byReference: false,
    kind: 'wacz-entry',
    stem: fileStem(path.posix.basename(entry.name)),
  });
}

/** Remove `dir` and its parents up to and including `top` while they are empty. */
async function removeEmptyDirs(dir: string, top: string): Promise<void> {
  for (let d = dir; ; d = path.dirname(d)) {
    try {
      await fsp.rmdir(d);
    } catch {
      return; // not empty (another entry lives there) or already gone
    }
    if (path.resolve(d) === path.resolve(top)) return;
  }
}

let tmpCounter = 0;

/** Copy `length` bytes of `file` from `start` into a temporary file inside the archive dir. */
async function copyRange(dir: string, file: string, start: number, length: number): Promise<string> {
  const tmp = path.join(dir, `.import-${process.pid}-${++tmpCounter}.tmp`);
  if (length === 0) {
    await fsp.writeFile(tmp, '');
    return tmp;
  }
  try {
    await pipeline(fs.createReadStream(file, { start, end: start + length - 1, highWaterMark: 1 << 20 }), fs.createWriteStream(tmp));
  } catch (err) {
    await fsp.rm(tmp, { force: true });
    throw new TroveError('WACZ_ENTRY_WRITE_FAILED', `cannot copy ${length} bytes of ${file} to ${tmp}: ${(err as Error).message}`, { path: file, errno: (err as NodeJS.ErrnoException).code }, { cause: err });
  }
  return tmp;
}
