/**
 * A throw-away SQLite file for one long operation's working set (a WACZ check's records, a
 * mirror's plan): what would not fit in memory at tens of gigabytes goes to disk instead. Nothing
 * in it must survive a crash, so it is written without a journal and without syncs; an existing
 * file at the path (a crashed run's) is replaced.
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';

export function openScratchDatabase(file: string): Database.Database {
  fs.rmSync(file, { force: true });
  const db = new Database(file);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  return db;
}
