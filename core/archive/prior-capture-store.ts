/**
 * The `prior_captures` table (schema in storage/migrations.ts, version 4): captures of earlier
 * crawls loaded with `--dedup-from`, kept apart from `records`, which holds only what this
 * archive's own WARCs contain. Also the read of an earlier crawl's capture index that fills it.
 * crawl/prior-captures.ts decides what to load and how a crawl uses it; the SQL is here. `+?`
 * is a parameter SQLite must not compile against (storage/open-database.ts says why).
 */
import Database from 'better-sqlite3';
import { digestFromKey } from '../formats/digest.ts';
import { dateFromKey } from './capture-date-key.ts';
import { recordIdSql } from './record-id-key.ts';
import { recordTypeCode } from './record-type-key.ts';
import { tsSql } from './capture-ts-key.ts';

/** One earlier capture, as crawl/prior-captures.ts hands it to the crawl. */
export interface PriorCaptureRow {
  source: string;
  urlkey: string;
  url: string;
  ts: string;
  date: string;
  status: number | null;
  digest: string | null;
  recordId: string | null;
}

/** A row to insert: source, urlkey, url, ts, date, status, digest, record id, file, offset, length. */
export type PriorCaptureInsert = [
  string, string, string, string, string, number | null, string | null, string | null, string | null, number | null, number | null,
];

/** A response of an earlier crawl's index: urlkey, url, ts, WARC-Date, status, digest, record id, file path, offset, length. */
export type SourceResponseRow = [string, string, string, string | null, number | null, string | null, string | null, string, number, number];

// Columns named as PriorCaptureRow's fields, so a row is a capture as it comes.
const COLS = 'source, urlkey, url, ts, date, status, digest, record_id AS recordId';

export class PriorCaptureStore {
  readonly #db: Database.Database;
  readonly #insert: Database.Statement<PriorCaptureInsert>;
  readonly #latest: Database.Statement<[string], PriorCaptureRow>;
  readonly #latestOfUrl: Database.Statement<[string, string], PriorCaptureRow>;
  readonly #byDigest: Database.Statement<[string], PriorCaptureRow>;
  readonly #byDigestUrl: Database.Statement<[string, string], PriorCaptureRow>;
  readonly #deleteSource: Database.Statement<[string]>;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#insert = db.prepare(
      'INSERT INTO prior_captures (source, urlkey, url, ts, date, status, digest, record_id, file, offset, length) VALUES (?,?,?,?,?,?,?,?,?,?,?)',
    );
    this.#latest = db.prepare(`SELECT ${COLS} FROM prior_captures WHERE urlkey = +? AND status BETWEEN 200 AND 299 ORDER BY ts DESC LIMIT 1`);
    this.#latestOfUrl = db.prepare(`SELECT ${COLS} FROM prior_captures WHERE urlkey = +? AND url = +? AND status BETWEEN 200 AND 299 ORDER BY ts DESC LIMIT 1`);
    this.#byDigest = db.prepare(`SELECT ${COLS} FROM prior_captures WHERE digest = +? ORDER BY ts LIMIT 1`);
    this.#byDigestUrl = db.prepare(`SELECT ${COLS} FROM prior_captures WHERE digest = +? AND url = +? ORDER BY ts LIMIT 1`);
    this.#deleteSource = db.prepare('DELETE FROM prior_captures WHERE source = ?');
  }

  /** Insert rows in one transaction. */
  insert(rows: readonly PriorCaptureInsert[]): void {
    this.#db.transaction(() => {
      for (const r of rows) this.#insert.run(...r);
    })();
  }

  /** Forget everything loaded from one source (a load that failed half way). */
  deleteSource(source: string): void {
    this.#deleteSource.run(source);
  }

  /** The latest 2xx capture with this URL key. */
  latest(urlkey: string): PriorCaptureRow | null {
    return this.#latest.get(urlkey) ?? null;
  }

  /** The latest 2xx capture of exactly this URL among those with its URL key (http and https share one). */
  latestOfUrl(urlkey: string, url: string): PriorCaptureRow | null {
    return this.#latestOfUrl.get(urlkey, url) ?? null;
  }

  /** The earliest capture with this payload digest (of this URL only, when given). */
  byDigest(digest: string, url?: string): PriorCaptureRow | null {
    return (url === undefined ? this.#byDigest.get(digest) : this.#byDigestUrl.get(digest, url)) ?? null;
  }
}

/**
 * The responses an earlier crawl's database indexes (those with a URL key, URL and time, and
 * not marked WARC-Truncated: a cut payload is neither a revisit's original nor a capture a 304
 * may stand for), read in one pass from a read-only connection that is closed when the
 * iteration ends. The database
 * is read as it is (no migration): only `records` and `warc_files`, whose response rows are
 * full rows in every version (version 7 stores their record ids as record-id-key.ts says,
 * version 8 their dates and payload digests as capture-date-key.ts and formats/digest.ts say,
 * version 9 their types and timestamps as record-type-key.ts and capture-ts-key.ts say: the
 * type condition names both the text and the code, and tsSql reads either back as text).
 */
export function* sourceResponses(dbPath: string): Generator<SourceResponseRow> {
  const src = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    // The date and digest as stored (text before version 8; capture-date-key.ts and
    // formats/digest.ts from it on) back to their text.
    for (const row of src
      .prepare(
        `SELECT r.urlkey, r.target_uri, ${tsSql('r.ts')}, r.date, r.status, r.payload_digest, ${recordIdSql('r.record_id')}, f.path, r.offset, r.length
         FROM records r JOIN warc_files f ON f.id = r.file_id
         WHERE r.record_type IN ('response', ${recordTypeCode('response')}) AND r.truncated IS NULL AND r.urlkey IS NOT NULL AND r.target_uri IS NOT NULL AND r.ts IS NOT NULL`,
      )
      .raw()
      .iterate() as Iterable<SourceResponseRow>) {
      row[3] = dateFromKey(row[3] as string | Buffer | null, row[2]);
      row[5] = digestFromKey(row[5] as string | Buffer | null);
      yield row;
    }
  } finally {
    src.close();
  }
}
