/**
 * The records a filter picks, read the way a WARC subset export reads them: counted, tested one
 * by one, walked in keyset pages (records.id order, flat memory), and their neighbours in the
 * same file by offset (over the (file_id, offset) index), where a fetch's request and metadata
 * records sit. The filter is the record browser's (record-query-sql.ts), so both pick alike.
 */
import { databaseOf } from './archive-dir.ts';
import type { Archive } from './archive-dir.ts';
import type { RecordFilter } from '../api/archive-types.ts';
import { RECORD_FROM } from './capture-statements.ts';
import type { CaptureDbRow } from './capture-statements.ts';
import { filterClause, SELECT_RECORD } from './record-query-sql.ts';
import type { WhereClause } from './record-query-sql.ts';
import type Database from 'better-sqlite3';

export class RecordSubset {
  readonly #where: WhereClause;
  readonly #page: Database.Statement<unknown[], CaptureDbRow>;
  readonly #count: Database.Statement<unknown[], { n: number }>;
  readonly #inSubset: Database.Statement<unknown[], { yes: number }>;
  readonly #after: Database.Statement<[number, number, number], CaptureDbRow>;
  readonly #before: Database.Statement<[number, number, number], CaptureDbRow>;

  constructor(archive: Archive, filter: RecordFilter) {
    const db = databaseOf(archive);
    this.#where = filterClause(filter);
    this.#page = db.prepare(`${SELECT_RECORD} WHERE r.id > ? AND ${this.#where.sql} ORDER BY r.id LIMIT ?`);
    this.#count = db.prepare(`SELECT COUNT(*) AS n FROM ${RECORD_FROM} WHERE ${this.#where.sql}`);
    this.#inSubset = db.prepare(`SELECT 1 AS yes FROM ${RECORD_FROM} WHERE r.id = ? AND ${this.#where.sql}`);
    this.#after = db.prepare(`${SELECT_RECORD} WHERE r.file_id = ? AND r.offset > ? ORDER BY r.offset LIMIT ?`);
    this.#before = db.prepare(`${SELECT_RECORD} WHERE r.file_id = ? AND r.offset < ? ORDER BY r.offset DESC LIMIT ?`);
  }

  count(): number {
    return this.#count.get(...this.#where.params)!.n;
  }

  /** Does the filter pick this record (by records.id)? */
  includes(id: number): boolean {
    return this.#inSubset.get(id, ...this.#where.params) !== undefined;
  }

  /** The picked records with records.id > `after`, in id order. */
  page(after: number, limit: number): CaptureDbRow[] {
    return this.#page.all(after, ...this.#where.params, limit);
  }

  /** Up to `n` records of the file on each side of `offset` (any type, picked or not): before it nearest first, then after it. */
  neighbours(fileId: number, offset: number, n: number): { before: CaptureDbRow[]; after: CaptureDbRow[] } {
    return { before: this.#before.all(fileId, offset, n), after: this.#after.all(fileId, offset, n) };
  }
}
