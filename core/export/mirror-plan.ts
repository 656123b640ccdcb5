/**
 * The mirror's plan: which URL goes to which file, decided before any file is written so links
 * can be rewritten to files that will exist. Kept in a temporary SQLite file (not in memory: a
 * big crawl has millions of URLs), looked up by URL key while pages are rewritten.
 *
 * Collisions are settled here, deterministically (URLs are placed in URL-key order):
 * - a file where a folder is needed (`/a` saved as file `a`, then `/a/b`): the folder becomes `a_`;
 * - a second URL on the same file name (`/x` and `/x?` with an empty query): `name-1.ext`, …;
 * - names that differ only in case count as the same, so the mirror also works on case-folding
 *   file systems (macOS, Windows).
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { surtKey } from '../scope/surt.ts';
import { mirrorSegments, splitExt } from './mirror-paths.ts';

export interface PlannedFile {
  urlkey: string;
  url: string;
  ts: string;
  /** Relative path in the mirror, `/`-separated. */
  path: string;
  mime: string | null;
}

export class MirrorPlan {
  readonly file: string;
  readonly #db: Database.Database;
  readonly #getNode: Database.Statement<[string], { kind: string }>;
  readonly #addNode: Database.Statement<[string, string]>;
  readonly #addUrl: Database.Statement<[string, string, string, string, string | null]>;
  readonly #lookup: Database.Statement<[string], { path: string }>;
  readonly #page: Database.Statement<[string, number], PlannedFile>;
  readonly #count: Database.Statement<[], { n: number }>;

  constructor(file: string) {
    this.file = file;
    fs.rmSync(file, { force: true });
    this.#db = new Database(file);
    this.#db.pragma('journal_mode = OFF');
    this.#db.pragma('synchronous = OFF');
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

  /** Place a URL; returns its path. Call inside `batch()` for speed. */
  add(urlkey: string, url: URL, ts: string, mime: string | null): string {
    const known = this.#lookup.get(urlkey);
    if (known) return known.path;
    const segs = mirrorSegments(url, mime);
    let dir = '';
    for (const seg of segs.slice(0, -1)) {
      let name = seg;
      for (;;) {
        const candidate = dir ? `${dir}/${name}` : name;
        const node = this.#getNode.get(candidate.toLowerCase());
        if (!node) {
          this.#addNode.run(candidate.toLowerCase(), 'd');
          dir = candidate;
          break;
        }
        if (node.kind === 'd') {
          dir = candidate;
          break;
        }
        name = `${name}_`;
      }
    }
    const file = segs.at(-1)!;
    const { stem, ext } = splitExt(file);
    let path = '';
    for (let n = 0; ; n++) {
      const name = n === 0 ? file : `${stem}-${n}${ext ? `.${ext}` : ''}`;
      path = `${dir}/${name}`;
      if (!this.#getNode.get(path.toLowerCase())) break;
    }
    this.#addNode.run(path.toLowerCase(), 'f');
    this.#addUrl.run(urlkey, url.href, ts, path, mime);
    return path;
  }

  batch<T>(fn: () => T): T {
    return this.#db.transaction(fn)();
  }

  /** The mirror path of a URL (any scheme variant of it: the key is the SURT), or null. */
  pathFor(url: string): string | null {
    return this.#lookup.get(surtKey(url))?.path ?? null;
  }

  count(): number {
    return this.#count.get()!.n;
  }

  /** Every planned file, in URL-key order, read in pages. */
  *files(pageSize = 500): Generator<PlannedFile> {
    let after = '';
    for (;;) {
      const rows = this.#page.all(after, pageSize);
      if (rows.length === 0) return;
      after = rows.at(-1)!.urlkey;
      yield* rows;
    }
  }

  close(): void {
    this.#db.close();
    fs.rmSync(this.file, { force: true });
  }
}
