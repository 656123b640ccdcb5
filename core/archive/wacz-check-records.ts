/**
 * The capture records of the WARCs in a WACZ being checked (wacz-check.ts), by WARC and offset,
 * for its index and pages checks: each index line is looked up here and its record marked seen,
 * and the records no line named are counted at the end. A temporary SQLite file rather than a
 * Map, because a package of 20 GB holds a million or two records and the check's memory must not
 * grow with them (a Map of them took hundreds of MB); no journal and no fsync, since the file is
 * thrown away when the check ends. Writes are grouped into transactions of BATCH statements.
 */
import fs from 'node:fs';
import type Database from 'better-sqlite3';
import { openScratchDatabase } from '../storage/scratch-database.ts';

export interface CheckedRecord {
  /** The record's length in the WARC (a gzip member's, or up to the next record). */
  length: number;
  /** Its payload digest as the indexer gives it, or null. */
  digest: string | null;
  url: string;
}

/** Statements per transaction. */
const BATCH = 10_000;
/** SQLite's page cache, KiB: the lookups run in the index's order, not the WARCs', so some cache helps; it is a fixed cost. */
const CACHE_KIB = 8 * 1024;

export class CheckRecordStore {
  readonly file: string;
  readonly #db: Database.Database;
  readonly #add: Database.Statement<[number, number, number, string | null, string]>;
  readonly #take: Database.Statement<[number, number], CheckedRecord>;
  readonly #hasUrl: Database.Statement<[string], { one: number }>;
  readonly #counts: Database.Statement<[], { total: number; unseen: number }>;
  #inBatch = 0;
  #urlIndex = false;

  /** A new, empty store in `file` (an existing file there is replaced). */
  constructor(file: string) {
    this.file = file;
    this.#db = openScratchDatabase(file);
    this.#db.pragma(`cache_size = -${CACHE_KIB}`);
    this.#db.exec(`
      CREATE TABLE checked (
        warc INTEGER NOT NULL, pos INTEGER NOT NULL, length INTEGER NOT NULL, digest TEXT, url TEXT NOT NULL,
        seen INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (warc, pos)
      ) WITHOUT ROWID;
    `);
    this.#add = this.#db.prepare('INSERT OR REPLACE INTO checked (warc, pos, length, digest, url) VALUES (?, ?, ?, ?, ?)');
    this.#take = this.#db.prepare('UPDATE checked SET seen = 1 WHERE warc = ? AND pos = ? RETURNING length, digest, url');
    this.#hasUrl = this.#db.prepare('SELECT 1 AS one FROM checked WHERE url = ? LIMIT 1');
    this.#counts = this.#db.prepare('SELECT COUNT(*) AS total, COALESCE(SUM(seen = 0), 0) AS unseen FROM checked');
  }

  /** Keep the record at `offset` of WARC number `warc`. */
  add(warc: number, offset: number, r: CheckedRecord): void {
    this.#write();
    this.#add.run(warc, offset, r.length, r.digest, r.url);
  }

  /** The record at `offset` of WARC number `warc`, now marked seen; undefined when none starts there. */
  take(warc: number, offset: number): CheckedRecord | undefined {
    this.#write();
    return this.#take.get(warc, offset);
  }

  /** Is there a record of this URL? (The first call indexes the URLs, once every record is in.) */
  hasUrl(url: string): boolean {
    this.#commit();
    if (!this.#urlIndex) {
      this.#db.exec('CREATE INDEX checked_url ON checked (url)');
      this.#urlIndex = true;
    }
    return this.#hasUrl.get(url) !== undefined;
  }

  /** How many records there are, and how many no index line named. */
  counts(): { total: number; unseen: number } {
    this.#commit();
    return this.#counts.get()!;
  }

  /** Close and delete the file. */
  close(): void {
    if (this.#db.open) this.#db.close();
    fs.rmSync(this.file, { force: true });
  }

  #write(): void {
    if (this.#inBatch >= BATCH) this.#commit();
    if (this.#inBatch === 0) this.#db.exec('BEGIN');
    this.#inBatch++;
  }

  #commit(): void {
    if (this.#inBatch === 0) return;
    this.#db.exec('COMMIT');
    this.#inBatch = 0;
  }
}
