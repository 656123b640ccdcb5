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
import { pickPage, recordMatch, SELECT_RECORD } from './record-query-sql.ts';
import type { RecordMatch } from './record-query-sql.ts';
import { expand, FOLD_REACH } from './capture-folds.ts';
import type { FoldedDbRow } from './capture-folds.ts';
import type Database from 'better-sqlite3';

export class RecordSubset {
  readonly #match: RecordMatch;
  readonly #page: Database.Statement<unknown[], Flagged>;
  readonly #count: Database.Statement<unknown[], { n: number }>;
  readonly #inSubset: Database.Statement<unknown[], Flagged>;
  readonly #after: Database.Statement<[number, number, number], FoldedDbRow>;
  readonly #at: Database.Statement<[number, number], FoldedDbRow>;
  readonly #before: Database.Statement<[number, number, number], FoldedDbRow>;

  constructor(archive: Archive, filter: RecordFilter) {
    const db = databaseOf(archive);
    // Every record a row stands for, folded children included (capture-folds.ts): each row with flags for which of them match.
    this.#match = recordMatch(filter, archive.index.textMatchSql());
    const flagged = SELECT_RECORD.replace(' FROM ', `, ${this.#match.flags.sql} FROM `);
    this.#page = db.prepare(`${flagged} WHERE r.id > ? AND ${this.#match.any.sql} ORDER BY r.id LIMIT ?`);
    this.#count = db.prepare(`SELECT COALESCE(SUM(${this.#match.count.sql}), 0) AS n FROM ${RECORD_FROM} WHERE ${this.#match.any.sql}`);
    this.#inSubset = db.prepare(`${flagged} WHERE r.id BETWEEN ? AND ? AND ${this.#match.any.sql} ORDER BY r.id`);
    this.#after = db.prepare(`${SELECT_RECORD} WHERE r.file_id = ? AND r.offset > ? ORDER BY r.offset LIMIT ?`);
    this.#at = db.prepare(`${SELECT_RECORD} WHERE r.file_id = ? AND r.offset <= ? ORDER BY r.offset DESC LIMIT 1`);
    this.#before = db.prepare(`${SELECT_RECORD} WHERE r.file_id = ? AND r.offset < ? ORDER BY r.offset DESC LIMIT ?`);
  }

  count(): number {
    return this.#count.get(...this.#match.count.params, ...this.#match.any.params)!.n;
  }

  /** Does the filter pick this record (by records.id)? */
  includes(id: number): boolean {
    const rows = this.#inSubset.all(...this.#match.flags.params, id - FOLD_REACH, id, ...this.#match.any.params);
    return rows.some((r) => this.#match.pick(r).some((x) => x.id === id));
  }

  /** The picked records with records.id > `after`, in id order. */
  page(after: number, limit: number): CaptureDbRow[] {
    const rows = this.#page.all(...this.#match.flags.params, after - FOLD_REACH, ...this.#match.any.params, limit + FOLD_REACH);
    return pickPage(rows, this.#match, after, limit);
  }

  /**
   * Up to `n` records of the file on each side of `offset` (any type, picked or not): before it
   * nearest first, then after it. Folded children lie right after their row, so the `n` rows on
   * each side (and the row at or before `offset`, for what follows it) hold the `n` nearest records.
   */
  neighbours(fileId: number, offset: number, n: number): { before: CaptureDbRow[]; after: CaptureDbRow[] } {
    const before = this.#before.all(fileId, offset, n).flatMap(expand).filter((r) => r.offset < offset);
    const after = [...this.#at.all(fileId, offset), ...this.#after.all(fileId, offset, n)].flatMap(expand).filter((r) => r.offset > offset);
    return {
      before: before.sort((a, b) => b.offset - a.offset).slice(0, n),
      after: after.sort((a, b) => a.offset - b.offset).slice(0, n),
    };
  }
}

type Flagged = FoldedDbRow & Record<string, unknown>;
