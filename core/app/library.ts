/**
 * The library folder: one directory per crawl or imported archive, as real files an archivist
 * can copy or open with other tools (see crawl-dir.ts for a crawl directory's layout). The app
 * adds one file of its own to a crawl directory, `snapshot.json`: the last progress snapshot,
 * so the library can show counts for crawls that are not running.
 *
 * Ids are directory names. Every id from outside is checked against LIBRARY_ID and resolved
 * inside the library folder, so a payload can never name a path elsewhere.
 */
import fs from 'node:fs';
import type Database from 'better-sqlite3';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { CrawlSettings } from '../api/settings.ts';
import type { CrawlSnapshot, FinishReason } from '../api/crawl-snapshot.ts';
import { RECORD_WARC_PREFIX } from './record-session.ts';
import type { DeleteTicket, LibraryEntry, LibraryFile, LibraryKind, LibraryState } from '../api/app-types.ts';
import { LIBRARY_ID } from '../api/commands.ts';
import { isTroveError, TroveError } from '../errors.ts';
import { crawlDatabasePath, openDatabase, closeDatabase } from '../storage/open-database.ts';
import { getMeta } from '../storage/meta.ts';
import { createCaptureIndex } from '../archive/capture-index.ts';

export const SNAPSHOT_FILE = 'snapshot.json';
export const CUSTOM_ROBOTS_FILE = 'custom-robots.txt';
const DELETE_TOKEN_MS = 60_000;

/** What the library reads from a directory's database without opening it for writing. */
export interface StoredInfo {
  kind: LibraryKind;
  settings: CrawlSettings | null;
  createdAt: number | null;
  lastState: { state: string; reason: FinishReason | null; at: number } | null;
  records: number | null;
  files: LibraryFile[];
}

export class Library {
  readonly dir: string;
  private tickets = new Map<string, { token: string; expiresAt: number }>();

  constructor(dir: string) {
    this.dir = path.resolve(dir);
    fs.mkdirSync(this.dir, { recursive: true });
  }

  /** The absolute directory of an entry; throws LIBRARY_BAD_ID for anything that is not a plain name. */
  pathOf(id: string): string {
    if (typeof id !== 'string' || !LIBRARY_ID.test(id)) throw new TroveError('LIBRARY_BAD_ID', `not a library entry name: ${JSON.stringify(id)}`);
    const p = path.join(this.dir, id);
    if (path.dirname(p) !== this.dir) throw new TroveError('LIBRARY_BAD_ID', `not a library entry name: ${JSON.stringify(id)}`);
    return p;
  }

  exists(id: string): boolean {
    return fs.existsSync(crawlDatabasePath(this.pathOf(id)));
  }

  requireEntry(id: string): string {
    const dir = this.pathOf(id);
    if (!fs.existsSync(crawlDatabasePath(dir))) throw new TroveError('LIBRARY_NOT_FOUND', `no crawl or archive named ${id} in the library`, { id });
    return dir;
  }

  /** Directory names holding a crawl database, newest first by modification time. */
  ids(): string[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return [];
    }
    return names.filter((n) => LIBRARY_ID.test(n) && fs.existsSync(crawlDatabasePath(path.join(this.dir, n))));
  }

  /** A fresh directory name from a display name: `My crawl` → `My crawl`, `My crawl 2`, … */
  allocateId(name: string): string {
    const base =
      name
        .normalize('NFKD')
        .replace(/[^A-Za-z0-9._ -]+/g, '-')
        .replace(/^[^A-Za-z0-9]+/, '')
        .replace(/[-\s]+$/, '')
        .slice(0, 100) || 'crawl';
    for (let n = 1; n < 10_000; n++) {
      const candidate = n === 1 ? base : `${base} ${n}`;
      if (!fs.existsSync(path.join(this.dir, candidate))) return candidate;
    }
    throw new TroveError('LIBRARY_FULL', `cannot find a free name for ${name}`);
  }

  readStored(id: string): StoredInfo {
    const dir = this.requireEntry(id);
    const file = crawlDatabasePath(dir);
    let db: Database.Database;
    try {
      db = openDatabase(file, { readonly: true });
    } catch (err) {
      if (!isTroveError(err, 'DB_NEEDS_MIGRATION')) throw err;
      // Written by an earlier Trove: upgrade it once (a write open migrates), then read it.
      closeDatabase(openDatabase(file));
      db = openDatabase(file, { readonly: true });
    }
    try {
      const settings = getMeta<CrawlSettings>(db, 'settings') ?? null;
      const index = createCaptureIndex(db);
      const files = index.files().map((f) => ({ name: f.name, sizeBytes: f.size ?? 0, records: f.records, source: f.source }));
      let createdAt = getMeta<number>(db, 'createdAt') ?? null;
      if (createdAt === null && files.length > 0) createdAt = Math.min(...index.files().map((f) => f.createdAt));
      return {
        kind: settings ? 'crawl' : 'archive',
        settings,
        createdAt,
        lastState: getMeta<StoredInfo['lastState']>(db, 'lastState') ?? null,
        records: index.count(),
        files,
      };
    } finally {
      closeDatabase(db);
    }
  }

  readSnapshot(id: string): CrawlSnapshot | null {
    try {
      return JSON.parse(fs.readFileSync(path.join(this.pathOf(id), SNAPSHOT_FILE), 'utf8')) as CrawlSnapshot;
    } catch {
      return null;
    }
  }

  writeSnapshot(id: string, snapshot: CrawlSnapshot): void {
    const file = path.join(this.pathOf(id), SNAPSHOT_FILE);
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(snapshot));
    fs.renameSync(tmp, file);
  }

  /** One entry as the library screen lists it. `live` is the running crawl's snapshot, if any; `importing` while an import into it runs. */
  entry(id: string, running: boolean, live: CrawlSnapshot | null, importing = false): LibraryEntry {
    const dir = this.requireEntry(id);
    let stored: StoredInfo | null = null;
    try {
      stored = this.readStored(id);
    } catch {
      stored = null; // a damaged database still lists (and can be deleted)
    }
    const saved = live ?? this.readSnapshot(id);
    const kind: LibraryKind = stored?.kind ?? 'archive';
    let state: LibraryState;
    if (live) state = live.state;
    else if (running) state = 'starting';
    else if (importing) state = 'importing';
    else if (kind === 'archive') state = stored && stored.files.length > 0 && stored.files.every((f) => f.name.startsWith(`${RECORD_WARC_PREFIX}-`)) ? 'recording' : 'imported';
    else if (fs.existsSync(path.join(dir, '.lock'))) state = 'interrupted';
    else state = stored?.lastState?.state === 'failed' ? 'failed' : stored?.lastState ? 'finished' : 'interrupted';
    const size = directorySize(dir);
    return {
      id,
      name: stored?.settings?.name || id,
      kind,
      state,
      finishReason: live?.finishReason ?? stored?.lastState?.reason ?? saved?.finishReason ?? null,
      running,
      sizeBytes: size.bytes,
      createdAt: stored?.createdAt ?? null,
      modifiedAt: size.modified,
      records: stored?.records ?? null,
      warcFiles: stored?.files.length ?? 0,
      seeds: stored?.settings?.seeds.slice(0, 20) ?? [],
      downloaded: saved?.downloaded ?? null,
    };
  }

  prepareDelete(id: string, entry: LibraryEntry): DeleteTicket {
    const token = randomBytes(16).toString('hex');
    const expiresAt = Date.now() + DELETE_TOKEN_MS;
    this.tickets.set(id, { token, expiresAt });
    return { id, name: entry.name, sizeBytes: entry.sizeBytes, warcFiles: entry.warcFiles, token, expiresAt };
  }

  /** Delete with a token from prepareDelete: single use, for this id only, within a minute. */
  delete(id: string, token: string): void {
    const dir = this.requireEntry(id);
    const ticket = this.tickets.get(id);
    this.tickets.delete(id);
    if (!ticket || ticket.token !== token) throw new TroveError('DELETE_NOT_CONFIRMED', `delete of ${id} was not confirmed (ask again)`, { id });
    if (ticket.expiresAt < Date.now()) throw new TroveError('DELETE_EXPIRED', `the confirmation to delete ${id} expired (ask again)`, { id });
    // Retried: a file created inside while the folder is being removed (ENOTEMPTY) or one held for a
    // moment (EBUSY) would otherwise stop the delete half-way, its database already gone.
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  }
}

/** Total bytes of regular files under `dir`, and the latest modification time. */
export function directorySize(dir: string): { bytes: number; modified: number } {
  let bytes = 0;
  let modified = 0;
  const walk = (d: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        try {
          const st = fs.statSync(p);
          bytes += st.size;
          modified = Math.max(modified, st.mtimeMs);
        } catch {
          /* vanished while walking */
        }
      }
    }
  };
  walk(dir);
  return { bytes, modified: Math.round(modified) };
}
