/**
 * Reading a WACZ package (1.0.0 and 1.1.1): the ZIP directory, `datapackage.json`, and the
 * entries' bytes, with yauzl.
 *
 * Entry names are decoded here (yauzl's `decodeStrings: false`) and checked by `checkEntryName`
 * before anything else looks at them, so one rule decides what is safe: no absolute paths, no
 * drive letters, no backslashes, no `..` segments, no NUL, no symlink entries. A package with
 * any such entry is refused whole (WACZ_UNSAFE_PATH): a WACZ from a real tool never has one, and
 * a half-imported hostile package helps nobody. `entryTarget` repeats the containment check at
 * the moment a name becomes a path on disk.
 *
 * For each entry the data start in the .wacz file is read from its local header: a STORED entry
 * is then a plain byte range of the .wacz, which is what lets the import index WARCs in place.
 *
 * Hostile packages (zip bombs, sizes that lie) are bounded in `openEntry`, before and while an
 * entry's bytes flow: its data must lie inside the file, a DEFLATED entry may not declare more
 * than MAX_INFLATE_RATIO times its compressed size, and the inflated stream stops with a typed
 * error the moment it passes the declared size, ends short of it, or its CRC-32 differs (yauzl
 * counts bytes but never checks the CRC).
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { Transform } from 'node:stream';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import yauzl from 'yauzl';
import { TroveError, isCancelled, throwIfCancelled } from '../errors.ts';

/** How much of `datapackage.json` is read; real ones are a few KB. */
const MAX_DATAPACKAGE_BYTES = 16 << 20;
/**
 * The most a DEFLATED entry may inflate to, as a multiple of its compressed size. Deflate tops
 * out near 1032:1 on runs of one byte; real WARC and index entries inflate 1–20 times. Entries
 * declaring at most INFLATE_FLOOR bytes are not held to the ratio (small files compress oddly).
 */
export const MAX_INFLATE_RATIO = 200;
const INFLATE_FLOOR = 1 << 20;
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

export interface WaczEntry {
  name: string;
  /** 0 = STORED, 8 = DEFLATED. */
  compressionMethod: number;
  compressedSize: number;
  size: number;
  /** Offset of the entry's (compressed) data in the .wacz file. */
  dataOffset: number;
  encrypted: boolean;
  /** CRC-32 of the inflated bytes, from the central directory. */
  crc32: number;
}

/** One `resources[]` item of datapackage.json, in either WACZ version's shape. */
export interface WaczResource {
  path: string;
  /** `sha256:<hex>` (1.1.1) or the 1.0.0 `stats.hash` with its `hashing` algorithm prefixed. */
  hash: string | null;
  bytes: number | null;
}

export interface WaczResourceCheck {
  path: string;
  ok: boolean;
  /** WACZ_RESOURCE_MISSING, WACZ_SIZE_MISMATCH, WACZ_HASH_MISMATCH, WACZ_HASH_UNSUPPORTED, WACZ_ENTRY_UNREADABLE. */
  code?: string;
  message?: string;
}

export interface WaczPackage {
  readonly path: string;
  readonly entries: readonly WaczEntry[];
  /** Parsed datapackage.json. */
  readonly datapackage: Record<string, unknown>;
  /** `wacz_version`, or null when missing (1.0.0 packages from some tools omit it). */
  readonly version: string | null;
  readonly resources: readonly WaczResource[];
  entry(name: string): WaczEntry | undefined;
  /** The entry's bytes, inflated when DEFLATED. */
  openEntry(entry: WaczEntry): Promise<Readable>;
  close(): void;
}

/** Why an entry name is unsafe to write below a folder, or null when it is safe. */
export function unsafeEntryName(name: string): string | null {
  if (name === '') return 'empty name';
  if (name.includes('\0')) return 'NUL in name';
  if (name.includes('\\')) return 'backslash in name';
  if (name.startsWith('/')) return 'absolute path';
  if (/^[A-Za-z]:/.test(name)) return 'drive letter';
  if (name.split('/').some((seg) => seg === '..')) return '".." segment';
  return null;
}

/** Throws WACZ_UNSAFE_PATH for a name that could escape the folder it is written to. */
export function checkEntryName(waczPath: string, name: string, externalAttributes = 0): void {
  const why = unsafeEntryName(name) ?? (((externalAttributes >>> 16) & S_IFMT) === S_IFLNK ? 'symbolic link entry' : null);
  if (why !== null) {
    throw new TroveError('WACZ_UNSAFE_PATH', `unsafe entry in ${waczPath}: ${JSON.stringify(name)} (${why})`, { path: waczPath, entry: name, reason: why });
  }
}

/**
 * The absolute path an entry is written to below `folder`. Checks the name again and checks the
 * resolved path really is inside `folder`, so no caller can write outside it by mistake.
 */
export function entryTarget(folder: string, name: string, waczPath = ''): string {
  checkEntryName(waczPath, name);
  const root = path.resolve(folder);
  const target = path.resolve(root, ...name.split('/'));
  const rel = path.relative(root, target);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) {
    throw new TroveError('WACZ_UNSAFE_PATH', `entry ${JSON.stringify(name)} would be written outside ${root}`, { path: waczPath, entry: name });
  }
  return target;
}

export async function openWacz(file: string): Promise<WaczPackage> {
  const abs = path.resolve(file);
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(abs, { decodeStrings: false, autoClose: false, validateEntrySizes: true });
  } catch (err) {
    throw new TroveError('WACZ_OPEN_FAILED', `cannot open ${abs} as a ZIP file: ${(err as Error).message}`, { path: abs }, { cause: err });
  }
  try {
    const raw = new Map<string, yauzl.Entry>();
    const entries: WaczEntry[] = [];
    for await (const e of zip.eachEntry()) {
      const name = yauzl.getFileNameLowLevel(e.generalPurposeBitFlag, e.fileNameRaw, e.extraFields, true);
      checkEntryName(abs, name, e.externalFileAttributes);
      if (name.endsWith('/')) continue; // a directory entry
      if (e.relativeOffsetOfLocalHeader + 30 + e.compressedSize > zip.fileSize) {
        throw new TroveError('WACZ_ENTRY_TRUNCATED', `${name} in ${abs} claims ${e.compressedSize} bytes of data, past the end of the ${zip.fileSize}-byte file`, {
          path: abs,
          entry: name,
        });
      }
      const { fileDataStart } = await zip.readLocalFileHeaderPromise(e, { minimal: true });
      raw.set(name, e);
      entries.push({
        name,
        compressionMethod: e.compressionMethod,
        compressedSize: e.compressedSize,
        size: e.uncompressedSize,
        dataOffset: fileDataStart,
        encrypted: e.isEncrypted(),
        crc32: e.crc32,
      });
    }
    const openEntry = async (entry: WaczEntry): Promise<Readable> => {
      const e = raw.get(entry.name);
      if (!e) throw new TroveError('WACZ_RESOURCE_MISSING', `${abs} has no entry ${entry.name}`, { path: abs, entry: entry.name });
      if (entry.encrypted || (entry.compressionMethod !== 0 && entry.compressionMethod !== 8)) {
        throw new TroveError('WACZ_ENTRY_UNSUPPORTED', `${entry.name} in ${abs} is encrypted or uses compression method ${entry.compressionMethod}`, {
          path: abs,
          entry: entry.name,
        });
      }
      checkEntryBounds(abs, entry, zip.fileSize);
      return guardEntryStream(abs, entry, await zip.openReadStreamPromise(e));
    };
    const dpEntry = entries.find((e) => e.name === 'datapackage.json');
    if (!dpEntry) throw new TroveError('WACZ_NO_DATAPACKAGE', `${abs} has no datapackage.json: not a WACZ package`, { path: abs });
    const datapackage = await readDatapackage(abs, dpEntry, openEntry);
    const resources = parseResources(abs, datapackage);
    const version = typeof datapackage.wacz_version === 'string' ? datapackage.wacz_version : null;
    return {
      path: abs,
      entries,
      datapackage,
      version,
      resources,
      entry: (name) => entries.find((e) => e.name === name),
      openEntry,
      close: () => zip.close(),
    };
  } catch (err) {
    zip.close();
    if (err instanceof TroveError) throw err;
    throw new TroveError('WACZ_OPEN_FAILED', `cannot read ${abs}: ${(err as Error).message}`, { path: abs }, { cause: err });
  }
}

/** Refuse an entry before reading it: data outside the file, or a declared size no deflate gives. */
export function checkEntryBounds(abs: string, entry: WaczEntry, fileSize: number): void {
  const details = { path: abs, entry: entry.name, size: entry.size, compressedSize: entry.compressedSize };
  if (entry.dataOffset + entry.compressedSize > fileSize) {
    throw new TroveError(
      'WACZ_ENTRY_TRUNCATED',
      `${entry.name} in ${abs} claims ${entry.compressedSize} bytes of data from offset ${entry.dataOffset}, past the end of the ${fileSize}-byte file`,
      details,
    );
  }
  if (entry.compressionMethod === 0 && entry.size !== entry.compressedSize) {
    throw new TroveError('WACZ_ENTRY_SIZE_MISMATCH', `${entry.name} in ${abs} is stored uncompressed but declares ${entry.size} bytes in ${entry.compressedSize}`, details);
  }
  if (entry.compressionMethod === 8 && entry.size > INFLATE_FLOOR && entry.size > entry.compressedSize * MAX_INFLATE_RATIO) {
    throw new TroveError(
      'WACZ_ENTRY_TOO_LARGE',
      `${entry.name} in ${abs} declares ${entry.size} bytes inflated from ${entry.compressedSize}: over the ${MAX_INFLATE_RATIO}:1 limit (a zip bomb?)`,
      details,
    );
  }
}

/**
 * The entry's bytes, stopped with a typed error as soon as they pass the declared size, and
 * checked against the declared size and CRC-32 at the end. yauzl's own errors (bad deflate data,
 * its byte counts) become WACZ_ENTRY_UNREADABLE.
 */
function guardEntryStream(abs: string, entry: WaczEntry, source: Readable): Readable {
  let bytes = 0;
  let crc = 0;
  const details = { path: abs, entry: entry.name, size: entry.size };
  const guard = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      if (bytes > entry.size) {
        done(new TroveError('WACZ_ENTRY_SIZE_MISMATCH', `${entry.name} in ${abs} inflates past its declared ${entry.size} bytes`, details));
        return;
      }
      crc = zlib.crc32(chunk, crc);
      done(null, chunk);
    },
    flush(done) {
      if (bytes !== entry.size) {
        done(new TroveError('WACZ_ENTRY_SIZE_MISMATCH', `${entry.name} in ${abs} holds ${bytes} bytes, its header declares ${entry.size}`, details));
      } else if (crc >>> 0 !== entry.crc32 >>> 0) {
        done(new TroveError('WACZ_ENTRY_CRC_MISMATCH', `${entry.name} in ${abs}: CRC-32 is ${hex8(crc)}, the header says ${hex8(entry.crc32)}`, details));
      } else done();
    },
  });
  source.on('error', (err: Error) => {
    // yauzl counts the inflated bytes too, and may be the first to see them pass the declared size.
    const code = /too many bytes|not enough bytes/.test(err.message) ? 'WACZ_ENTRY_SIZE_MISMATCH' : 'WACZ_ENTRY_UNREADABLE';
    guard.destroy(new TroveError(code, `${entry.name} in ${abs} cannot be read: ${err.message}`, details, { cause: err }));
  });
  guard.on('close', () => source.destroy());
  return source.pipe(guard);
}

const hex8 = (n: number): string => (n >>> 0).toString(16).padStart(8, '0');

async function readDatapackage(
  abs: string,
  entry: WaczEntry,
  openEntry: (e: WaczEntry) => Promise<Readable>,
): Promise<Record<string, unknown>> {
  if (entry.size > MAX_DATAPACKAGE_BYTES) {
    throw new TroveError('WACZ_BAD_DATAPACKAGE', `datapackage.json in ${abs} is ${entry.size} bytes; over the ${MAX_DATAPACKAGE_BYTES} limit`, { path: abs });
  }
  const text = (await readAll(await openEntry(entry), MAX_DATAPACKAGE_BYTES)).toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new TroveError('WACZ_BAD_DATAPACKAGE', `datapackage.json in ${abs} is not valid JSON: ${(err as Error).message}`, { path: abs }, { cause: err });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed) || !Array.isArray((parsed as { resources?: unknown }).resources)) {
    throw new TroveError('WACZ_BAD_DATAPACKAGE', `datapackage.json in ${abs} has no resources list`, { path: abs });
  }
  return parsed as Record<string, unknown>;
}

function parseResources(abs: string, dp: Record<string, unknown>): WaczResource[] {
  const out: WaczResource[] = [];
  for (const item of dp.resources as unknown[]) {
    if (item === null || typeof item !== 'object') continue;
    const r = item as { path?: unknown; hash?: unknown; bytes?: unknown; stats?: { hash?: unknown; bytes?: unknown }; hashing?: unknown };
    if (typeof r.path !== 'string') {
      throw new TroveError('WACZ_BAD_DATAPACKAGE', `datapackage.json in ${abs} lists a resource without a path`, { path: abs });
    }
    checkEntryName(abs, r.path);
    let hash: string | null = null;
    if (typeof r.hash === 'string') hash = r.hash;
    else if (r.stats && typeof r.stats.hash === 'string') hash = `${typeof r.hashing === 'string' ? r.hashing : 'sha256'}:${r.stats.hash}`;
    const bytes = typeof r.bytes === 'number' ? r.bytes : r.stats && typeof r.stats.bytes === 'number' ? r.stats.bytes : null;
    out.push({ path: r.path, hash, bytes });
  }
  return out;
}

/** How a hash pass over a big package reports and stops: bytes hashed so far, and a cancel. */
export interface VerifyOptions {
  /** After each chunk hashed: its size in bytes. */
  onBytes?: (n: number) => void;
  /** Aborting it stops the pass with CANCELLED (`what` names the operation in the message). */
  signal?: AbortSignal;
  what?: string;
}

/** Check every listed resource: present, of the stated size, with the stated hash. */
export async function verifyWacz(pkg: WaczPackage, opts: VerifyOptions = {}): Promise<WaczResourceCheck[]> {
  const checks: WaczResourceCheck[] = [];
  for (const res of pkg.resources) {
    const entry = pkg.entry(res.path);
    const fail = (code: string, message: string) => checks.push({ path: res.path, ok: false, code, message });
    if (!entry) {
      fail('WACZ_RESOURCE_MISSING', `${res.path} is listed in datapackage.json but not in the package`);
      continue;
    }
    if (res.bytes !== null && res.bytes !== entry.size) {
      fail('WACZ_SIZE_MISMATCH', `${res.path}: datapackage.json says ${res.bytes} bytes, the entry has ${entry.size}`);
      continue;
    }
    const m = res.hash === null ? null : /^([A-Za-z0-9-]+):([0-9a-fA-F]+)$/.exec(res.hash);
    const algorithm = m ? m[1]!.toLowerCase().replace('-', '') : null;
    if (!m || !algorithm || !['sha256', 'sha384', 'sha512', 'sha224', 'sha1', 'md5'].includes(algorithm)) {
      fail('WACZ_HASH_UNSUPPORTED', `${res.path}: cannot check hash ${JSON.stringify(res.hash)}`);
      continue;
    }
    let actual: string;
    try {
      const h = createHash(algorithm);
      for await (const chunk of await pkg.openEntry(entry)) {
        throwIfCancelled(opts.signal, opts.what ?? 'check');
        h.update(chunk as Buffer);
        opts.onBytes?.((chunk as Buffer).length);
      }
      actual = h.digest('hex');
    } catch (err) {
      if (isCancelled(err)) throw err;
      fail(err instanceof TroveError ? err.code : 'WACZ_ENTRY_UNREADABLE', `${res.path}: ${(err as Error).message}`);
      continue;
    }
    if (actual !== m[2]!.toLowerCase()) {
      fail('WACZ_HASH_MISMATCH', `${res.path}: ${algorithm} is ${actual}, datapackage.json says ${m[2]}`);
      continue;
    }
    checks.push({ path: res.path, ok: true });
  }
  return checks;
}

async function readAll(stream: Readable, max: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let n = 0;
  for await (const chunk of stream) {
    n += (chunk as Buffer).length;
    if (n > max) {
      stream.destroy();
      throw new TroveError('WACZ_BAD_DATAPACKAGE', `entry is larger than ${max} bytes`, {});
    }
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts);
}

/** The WARC/ARC files of a package: entries under `archive/`. */
export function waczWarcEntries(pkg: WaczPackage): WaczEntry[] {
  return pkg.entries.filter((e) => e.name.startsWith('archive/') && /\.(warc|arc)(\.gz)?$/i.test(e.name));
}
