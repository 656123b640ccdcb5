/**
 * An archive directory: a crawl directory, or one made only by imports. Both hold `crawl.sqlite`
 * (the same schema, so crawled and imported captures are browsed and replayed alike) and maybe a
 * `warcs/` folder. WARC files are found through `warc_files.path`:
 *
 * - relative (`warcs/NAME`): crawl output and copied imports, resolved against the directory;
 * - absolute: WARCs imported in place, by reference;
 * - a WACZ entry stored without compression: `ABS.wacz!/archive/x.warc.gz` (or
 *   `warcs/x.wacz!/…` for a copied package). Its records' offsets
 *   are offsets in the .wacz file itself (entry data start + offset inside the entry), so reading
 *   a record is one positioned read of the .wacz, no unzip. The entry's data start is kept in
 *   `meta` for tools (CDXJ export) that want offsets relative to the entry.
 *
 * A crawl records its WARC under the final name while the file is still being written as
 * `NAME.open` (renamed on close): resolveFile answers the `.open` name while only that exists, so
 * records of a running crawl can be read. Reads go by committed index rows (offset and length),
 * and the writer has written a group before its rows are committed, so they never reach past
 * the last complete record.
 */
import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { TroveError } from '../errors.ts';
import { closeDatabase, crawlDatabasePath, openDatabase } from '../storage/open-database.ts';
import { createFrontierView } from '../frontier/frontier-view.ts';
import type { FrontierView } from '../frontier/frontier-view.ts';
import { getMeta, setMeta } from '../storage/meta.ts';
import { OPEN_SUFFIX } from '../warc/warc-file-name.ts';
import { createCaptureIndex } from './capture-index.ts';
import { STAGED_SUFFIX } from './staged-path.ts';
import type { CaptureIndex } from './capture-index.ts';

/** Folder of an archive directory where WARC files live (crawl output, copied imports). */
export const WARCS_FOLDER = 'warcs';

/** Separates a WACZ path from an entry name in warc_files.path, as in `jar:` URLs. */
export const WACZ_ENTRY_SEPARATOR = '!/';

const WACZ_ENTRY_META = 'wacz-entry:';

/** Where a WACZ entry's bytes are: the .wacz file and the entry's data start in it. */
export interface WaczEntryLocation {
  /** Absolute, or relative to the archive directory for a copied package. */
  wacz: string;
  entry: string;
  dataOffset: number;
}

/**
 * An open archive directory. Its database is not handed out: the capture index and the
 * frontier view offer the queries callers need, so SQL stays with the tables' owners.
 */
export interface Archive {
  /** Absolute path of the archive directory. */
  readonly dir: string;
  readonly index: CaptureIndex;
  /** The crawl's frontier, read-only (empty for an archive made only by imports). */
  readonly frontier: FrontierView;
  /** A value of the `meta` table (crawl settings, state…), or undefined. */
  meta<T>(key: string): T | undefined;
  /** The file to read a record from, as an absolute path (the .wacz for WACZ entries). */
  resolveFile(file: { path: string } | { filePath: string }): string;
  /** Where a stored WACZ entry lives, when `storedPath` is one. */
  waczEntry(storedPath: string): WaczEntryLocation | null;
  /** Record that `storedPath` is a stored WACZ entry (the import calls this). */
  setWaczEntry(storedPath: string, loc: WaczEntryLocation): void;
  /**
   * The earlier crawls this one repeats (`trove recrawl`), nearest first, opened on first ask and
   * closed with this archive; a crawl directory of the chain that is gone is left out.
   */
  earlier(): readonly Archive[];
  close(): void;
}

/** meta key of a recrawl's link to the crawl directory it repeats: the one home of the chain. */
export const RECRAWL_OF_META = 'recrawlOf';

/** Links followed at most: a chain longer than this is cut (and a loop ends). */
const MAX_CHAIN = 1000;

export interface OpenArchiveOptions {
  /** Create the directory (and database) when missing. Default true. */
  create?: boolean;
}

export function openArchive(dir: string, opts: OpenArchiveOptions = {}): Archive {
  const abs = path.resolve(dir);
  const create = opts.create ?? true;
  if (!fs.existsSync(abs)) {
    if (!create) throw new TroveError('ARCHIVE_NOT_FOUND', `no archive directory at ${abs}`, { dir: abs });
    fs.mkdirSync(abs, { recursive: true });
  } else if (!fs.statSync(abs).isDirectory()) {
    throw new TroveError('ARCHIVE_NOT_A_DIRECTORY', `${abs} is not a directory`, { dir: abs });
  }
  const dbPath = crawlDatabasePath(abs);
  if (!create && !fs.existsSync(dbPath)) {
    throw new TroveError('ARCHIVE_NOT_FOUND', `${abs} is not an archive directory (no ${path.basename(dbPath)})`, { dir: abs });
  }
  const db = openDatabase(dbPath);
  // An import's batch may wait behind another writer's (a crawl in this directory, whose commits
  // can include a WAL checkpoint): half a minute before a write gives up, and the import then
  // stops with ARCHIVE_BUSY rather than a raw "database is locked".
  db.pragma('busy_timeout = 30000');
  const index = createCaptureIndex(db);
  const frontier = createFrontierView(db);
  const entries = new Map<string, WaczEntryLocation | null>();

  const waczEntry = (storedPath: string): WaczEntryLocation | null => {
    if (!storedPath.includes(WACZ_ENTRY_SEPARATOR)) return null;
    let loc = entries.get(storedPath);
    if (loc === undefined) {
      loc = getMeta<WaczEntryLocation>(db, WACZ_ENTRY_META + storedPath) ?? null;
      entries.set(storedPath, loc);
    }
    return loc;
  };

  let earlier: Archive[] | null = null;
  const archive: Archive = {
    dir: abs,
    index,
    frontier,
    meta: (key) => getMeta(db, key),
    resolveFile(file) {
      // A file an import is indexing is registered under a staged path (import-staging.ts): its
      // records are read from the file itself meanwhile.
      const given = 'path' in file ? file.path : file.filePath;
      const stored = given.endsWith(STAGED_SUFFIX) ? given.slice(0, -STAGED_SUFFIX.length) : given;
      const entry = waczEntry(stored);
      if (entry) return path.isAbsolute(entry.wacz) ? entry.wacz : path.join(abs, entry.wacz);
      return liveFile(path.isAbsolute(stored) ? stored : path.join(abs, stored));
    },
    waczEntry,
    setWaczEntry(storedPath, loc) {
      setMeta(db, WACZ_ENTRY_META + storedPath, loc);
      entries.set(storedPath, loc);
    },
    earlier() {
      earlier ??= openChain(abs, getMeta<string>(db, RECRAWL_OF_META));
      return earlier;
    },
    close() {
      for (const e of earlier ?? []) e.close();
      earlier = [];
      closeDatabase(db);
    },
  };
  databases.set(archive, db);
  return archive;
}

/** The crawls a recrawl's link leads to, each followed by its own link, nearest first, no loops. */
function openChain(self: string, first: string | undefined): Archive[] {
  const out: Archive[] = [];
  const seen = new Set([self]);
  let from = self;
  for (let next = first; next && !seen.has(next) && out.length < MAX_CHAIN; ) {
    seen.add(next);
    // The link is absolute; a series moved together is found beside the crawl that links to it.
    const beside = path.join(path.dirname(from), path.basename(next));
    const dir = fs.existsSync(next) ? next : beside;
    let a: Archive;
    try {
      a = openArchive(dir, { create: false });
    } catch {
      break; // A link to a directory that is gone ends the chain there.
    }
    out.push(a);
    from = a.dir;
    next = a.meta<string>(RECRAWL_OF_META);
  }
  return out;
}

const databases = new WeakMap<Archive, Database.Database>();

/**
 * The connection behind an archive, for the archive's own modules (record queries, imports,
 * fixity) that run SQL over its tables. Nothing outside `core/archive/` calls this (the SQL
 * ownership test checks).
 */
export function databaseOf(archive: Archive): Database.Database {
  const db = databases.get(archive);
  if (!db) throw new TroveError('ARCHIVE_NOT_OPEN', 'not an archive opened by openArchive', { dir: archive.dir });
  return db;
}

/** The file as it is now: the final name, or its `.open` name while a crawl is still writing it. */
function liveFile(file: string): string {
  if (fs.existsSync(file)) return file;
  const open = file + OPEN_SUFFIX;
  // Checked again after: the rename to the final name may happen between the two looks.
  return fs.existsSync(open) ? open : file;
}

/** `/abs/x.wacz` + `archive/y.warc.gz` → the warc_files.path of a stored entry. */
export function waczEntryPath(wacz: string, entry: string): string {
  return `${wacz}${WACZ_ENTRY_SEPARATOR}${entry}`;
}
