/**
 * A crawl's database as a build before schema version 10 would have written it: every folded
 * request and metadata record (archive/capture-folds.ts) written out as the compact row it had
 * been (migration 7's form: the capture as parent, its shared columns NULL). The migration tests
 * of earlier versions start from this copy, and the fold's equality tests compare every reader of
 * a folded archive with the same archive unfolded.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { children, FOLD_COLUMNS } from '../../core/archive/capture-folds.ts';
import type { FoldedDbRow } from '../../core/archive/capture-folds.ts';
import { RECORD_COLUMNS, RECORD_FROM } from '../../core/archive/capture-statements.ts';
import { recordIdKey } from '../../core/archive/record-id-key.ts';
import { recordTypeKey } from '../../core/archive/record-type-key.ts';
import { databaseOf } from '../../core/archive/archive-dir.ts';
import type { Archive } from '../../core/archive/archive-dir.ts';

/** Write out every folded child of `db` as its compact row; returns how many. */
export function unfoldRecords(db: Database.Database): number {
  const folded = db
    .prepare(`SELECT ${RECORD_COLUMNS}, ${FOLD_COLUMNS}, '' AS file_path, '' AS file_name FROM ${RECORD_FROM} WHERE r.req_len IS NOT NULL OR r.meta_len IS NOT NULL ORDER BY r.id`)
    .all() as FoldedDbRow[];
  const insert = db.prepare(
    `INSERT INTO records (id, file_id, offset, length, record_type, record_id, status, payload_digest, method, content_length, page, parent_id)
     VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, ?, ?, 0, ?)`,
  );
  let n = 0;
  db.transaction(() => {
    for (const row of folded) {
      for (const c of children(row)) {
        insert.run(c.id, c.file_id, c.offset, c.length, recordTypeKey(c.record_type), recordIdKey(c.record_id), c.method, c.content_length, row.id);
        n++;
      }
    }
    db.exec('UPDATE records SET req_len = NULL, req_clen = NULL, meta_len = NULL, meta_clen = NULL');
  })();
  return n;
}

/** A copy of an archive folder (its WARCs and database) with the database unfolded; returns the copy's database file. */
export async function unfoldedCopy(archive: Archive, from: string, to: string): Promise<string> {
  fs.cpSync(from, to, { recursive: true, filter: (src) => !path.basename(src).startsWith('crawl.sqlite') });
  const file = path.join(to, 'crawl.sqlite');
  await databaseOf(archive).backup(file);
  const db = new Database(file);
  try {
    unfoldRecords(db);
  } finally {
    db.close();
  }
  return file;
}
