/**
 * The offline mirror's scratch database (export/mirror-plan.ts decides what goes in it): planned
 * URLs by URL key, and every file and folder name taken, lower-cased. A temporary SQLite file,
 * not memory, because a big crawl has millions of URLs; no journal and no fsync, since it is
 * thrown away when the export ends (or fails).
 */
import fs from 'node:fs';
import type Database from 'better-sqlite3';
import { openScratchDatabase } from './scratch-database.ts';

export interface PlannedUrl {
  urlkey: string;
  url: string;
  ts: string;
  /** Relative path in the mirror, `/`-separated. */
  path: string;
  mime: string | null;
}

export class MirrorPlanStore {
  readonly file: string;
  readonly #db: Database.Database;
  readonly #getNode: Database.Statement<[string], { kind: string }>;
  readonly #addNode: Database.Statement<[string, string]>;
  readonly #addUrl: Database.Statement<[string, string, string, string, string | null]>;
  readonly #lookup: Database.Statement<[string], { path: string }>;
  readonly #page: Database.Statement<[string, number], PlannedUrl>;
  readonly #count: Database.Statement<[], { n: number }>;

  /** A new, empty store in `file` (an existing file there is replaced). */
  constructor(file: string) {
    this.file = file;
    this.#db = openScratchDatabase(file);
    this.#db.exec(`
      CREATE TABLE urls (urlkey TEXT PRIMARY KEY, url TEXT NOT NULL, ts TEXT NOT NULL, path TEXT NOT NULL, mime TEXT) WITHOUT ROWID;
      CREATE TABLE nodes (key TEXT PRIMARY KEY, kind TEXT NOT NULL) WITHOUT ROWID;
    `);
    this.#getNode = this.#db.prepare('SELECT kind FROM nodes WHERE key = ?');
    this.#addNode = this.#db.prepare('INSERT INTO nodes (key, kind) VALUES (?, ?)');
    this.#addUrl = this.#db.prepare('INSERT INTO urls (urlkey, url, ts, path, mime) VALUES (?, ?, ?, ?, ?)');
    this.#lookup = this.#db.prepare('SELECT path FROM urls WHERE urlkey = ?');
    this.#page = this.#db.prepare('SELECT urlkey, url, ts, path, mime FROM urls WHERE urlkey > ? ORDER BY urlkey LIMIT ?');
    this.#count = this.#db.prepare('SELECT COUNT(*) AS n FROM urls');
  }

  /** What a (lower-cased) name is taken as: `d` a folder, `f` a file; undefined when free. */
  nodeKind(key: string): string | undefined {
    return this.#getNode.get(key)?.kind;
  }

  addNode(key: string, kind: 'd' | 'f'): void {
    this.#addNode.run(key, kind);
  }

  addUrl(u: PlannedUrl): void {
    this.#addUrl.run(u.urlkey, u.url, u.ts, u.path, u.mime);
  }

  /** The planned path of a URL key, or null. */
  pathOf(urlkey: string): string | null {
    return this.#lookup.get(urlkey)?.path ?? null;
  }

  /** Planned URLs with a key after `afterKey`, in key order. */
  urlsAfter(afterKey: string, limit: number): PlannedUrl[] {
    return this.#page.all(afterKey, limit);
  }

  count(): number {
    return this.#count.get()!.n;
  }

  transaction<T>(fn: () => T): T {
    return this.#db.transaction(fn)();
  }

  /** Close and delete the file. */
  close(): void {
    this.#db.close();
    fs.rmSync(this.file, { force: true });
  }
}
