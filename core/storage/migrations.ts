/**
 * The schema, as an ordered list of migrations keyed on `PRAGMA user_version`: migration i
 * brings a database from version i to i+1. Released migrations never change; a schema change is
 * a new function at the end of the list. Each runs in its own IMMEDIATE transaction together with
 * the version bump, so a crash mid-migration leaves the old version intact, and two processes
 * opening the same file at once cannot both migrate.
 */
import type Database from 'better-sqlite3';
import { TroveError } from '../errors.ts';
import { digestKey } from '../formats/digest.ts';

type Migration = (db: Database.Database) => void;

/** Version 1: crawl-wide key/value state and the robots.txt cache. */
function metaAndRobots(db: Database.Database): void {
  db.exec(`
    -- Crawl settings JSON, crawl state, counters: anything a resume needs that has no table.
    CREATE TABLE meta (
      key   TEXT PRIMARY KEY,
      value TEXT NOT NULL            -- JSON
    ) WITHOUT ROWID;

    -- One row per origin (scheme://host:port), so a resumed crawl keeps its robots cache.
    CREATE TABLE robots (
      origin     TEXT PRIMARY KEY,
      state_json TEXT NOT NULL,
      updated_at INTEGER NOT NULL    -- ms since epoch
    ) WITHOUT ROWID;
  `);
}

/**
 * Version 2: the frontier. Counters live beside the rows they count and change in the same
 * transaction, so resuming never counts rows.
 */
function frontier(db: Database.Database): void {
  db.exec(`
    CREATE TABLE queues (
      id            INTEGER PRIMARY KEY,
      key           TEXT NOT NULL UNIQUE,
      pending       INTEGER NOT NULL DEFAULT 0,  -- URIs that may be claimed now (as far as the URI goes)
      waiting       INTEGER NOT NULL DEFAULT 0,  -- URIs held back until their not_before (retries, defers)
      in_flight     INTEGER NOT NULL DEFAULT 0,
      max_in_flight INTEGER NOT NULL,            -- 0 retires the queue
      ready_at      INTEGER NOT NULL DEFAULT 0,  -- politeness: no claim before this (ms)
      done          INTEGER NOT NULL DEFAULT 0,
      failed        INTEGER NOT NULL DEFAULT 0
    );
    -- The claim index: only queues that could give out a URI, ordered by how long they have been ready.
    CREATE INDEX queues_claimable ON queues(ready_at) WHERE pending > 0 AND in_flight < max_in_flight;

    CREATE TABLE uris (
      id          INTEGER PRIMARY KEY,            -- discovery order
      fingerprint INTEGER UNIQUE,                 -- seen-set key; NULL on a forced re-fetch row
      refetch_of  INTEGER REFERENCES uris(id),    -- forced re-fetch: the original row
      queue_id    INTEGER NOT NULL REFERENCES queues(id),
      state       INTEGER NOT NULL,               -- 0 pending, 1 waiting, 2 in flight, 3 finished
      directive   INTEGER NOT NULL DEFAULT 0,     -- 2 prerequisite, 1 redirect, 0 normal
      not_before  INTEGER,                        -- waiting rows: claimable from this time (ms)
      attempts    INTEGER NOT NULL DEFAULT 0,
      seed        INTEGER NOT NULL DEFAULT 0,
      url         TEXT NOT NULL,
      hops_path   TEXT NOT NULL,
      via         TEXT,
      via_context TEXT,
      status      INTEGER,                        -- final outcome (or last attempt's, while waiting)
      bytes       INTEGER,
      mime        TEXT,
      digest      TEXT,
      note        TEXT
    );
    CREATE INDEX uris_pending ON uris(queue_id, directive DESC) WHERE state = 0;
    CREATE INDEX uris_waiting ON uris(not_before) WHERE state = 1;
    CREATE INDEX uris_in_flight ON uris(queue_id) WHERE state = 2;
    CREATE INDEX uris_refetch ON uris(refetch_of) WHERE refetch_of IS NOT NULL;

    -- Crawl-wide counters, one row.
    CREATE TABLE frontier_stats (
      id        INTEGER PRIMARY KEY CHECK (id = 1),
      pending   INTEGER NOT NULL DEFAULT 0,
      waiting   INTEGER NOT NULL DEFAULT 0,
      in_flight INTEGER NOT NULL DEFAULT 0,
      done      INTEGER NOT NULL DEFAULT 0,
      failed    INTEGER NOT NULL DEFAULT 0,
      seen      INTEGER NOT NULL DEFAULT 0,
      queues    INTEGER NOT NULL DEFAULT 0
    );
    INSERT INTO frontier_stats (id) VALUES (1);
  `);
}

/**
 * Version 3: the capture index, shared by crawls and imports so both are browsed alike.
 * `records` holds one row per WARC record (every type), located by file + offset + length.
 */
function captureIndex(db: Database.Database): void {
  db.exec(`
    CREATE TABLE warc_files (
      id           INTEGER PRIMARY KEY,
      path         TEXT NOT NULL UNIQUE,  -- relative to the archive dir (crawl), absolute (import by reference)
      name         TEXT NOT NULL,
      size         INTEGER,
      records      INTEGER NOT NULL DEFAULT 0,  -- rows in records for this file, kept by the index
      created_at   INTEGER NOT NULL,            -- ms since epoch
      source       TEXT NOT NULL CHECK (source IN ('crawl', 'import')),
      by_reference INTEGER NOT NULL DEFAULT 0
    );

    CREATE TABLE records (
      id             INTEGER PRIMARY KEY,
      file_id        INTEGER NOT NULL REFERENCES warc_files(id) ON DELETE CASCADE,
      offset         INTEGER NOT NULL,
      length         INTEGER NOT NULL,
      record_type    TEXT NOT NULL,
      record_id      TEXT,
      target_uri     TEXT,
      urlkey         TEXT,          -- SURT key, pywb style
      ts             TEXT,          -- 14 digits, from WARC-Date
      date           TEXT,          -- WARC-Date as written
      mime           TEXT,
      status         INTEGER,
      payload_digest TEXT,
      refers_to      TEXT,
      refers_to_uri  TEXT,
      refers_to_date TEXT,
      concurrent_to  TEXT,
      method         TEXT,
      content_length INTEGER,
      truncated      TEXT,
      title          TEXT,
      page           INTEGER NOT NULL DEFAULT 0   -- 1 when an HTML 200 page
    );
    CREATE INDEX records_urlkey_ts ON records(urlkey, ts);
    CREATE INDEX records_target_uri ON records(target_uri);
    CREATE INDEX records_type ON records(record_type);
    CREATE INDEX records_digest ON records(payload_digest, ts);
    CREATE INDEX records_status ON records(status);
    CREATE INDEX records_ts ON records(ts);
    CREATE INDEX records_record_id ON records(record_id);
    CREATE INDEX records_file ON records(file_id, offset);
    CREATE INDEX records_pages ON records(ts) WHERE page = 1;

    -- Page text for search; rowid = records.id.
    CREATE VIRTUAL TABLE page_text USING fts5(title, text, tokenize = 'unicode61 remove_diacritics 2');
  `);
}

/**
 * Version 4: captures of earlier crawls loaded with --dedup-from (a crawl directory or a CDXJ
 * file), for cross-crawl revisits and conditional requests. Kept apart from `records`, which
 * holds only what this archive's own WARCs contain.
 */
function priorCaptures(db: Database.Database): void {
  db.exec(`
    CREATE TABLE prior_captures (
      id         INTEGER PRIMARY KEY,
      source     TEXT NOT NULL,          -- the crawl directory or CDXJ file it came from
      urlkey     TEXT NOT NULL,
      url        TEXT NOT NULL,
      ts         TEXT NOT NULL,          -- 14 digits
      date       TEXT NOT NULL,          -- WARC-Date (ISO) of the original
      status     INTEGER,
      digest     TEXT,                   -- sha1:BASE32 payload digest
      record_id  TEXT,                   -- WARC-Record-ID when known (crawl directories)
      file       TEXT,                   -- absolute path of the WARC, when it can be read
      offset     INTEGER,
      length     INTEGER
    );
    CREATE INDEX prior_captures_urlkey ON prior_captures(urlkey, ts);
    CREATE INDEX prior_captures_digest ON prior_captures(digest);
  `);
}

/**
 * Version 5: fixity of each WARC file, recorded once its bytes are final (a crawl file when it is
 * sealed, an import when it is indexed): SHA-256 and CRC-32 of the whole file, with the size and
 * mtime it had then. An export reuses them while the file is unchanged (file-fixity.ts).
 */
function fileFixity(db: Database.Database): void {
  db.exec(`
    CREATE TABLE file_fixity (
      file_id     INTEGER PRIMARY KEY REFERENCES warc_files(id) ON DELETE CASCADE,
      sha256      TEXT NOT NULL,     -- hex, of the WARC's bytes
      crc32       INTEGER NOT NULL,
      bytes       INTEGER NOT NULL,  -- how many bytes were hashed (the WARC's length)
      file_size   INTEGER NOT NULL,  -- size and mtime of the file holding the bytes
      mtime_ms    REAL NOT NULL,     -- (the .wacz for a stored entry) when they were hashed
      recorded_at INTEGER NOT NULL   -- ms since epoch
    );
  `);
}

/**
 * Version 6: the pending URIs of each queue that cannot be pages, for a page limit whose slots
 * are all taken (frontier ClaimOptions.pages = false): without it each such claim read every
 * pending page of a queue (300 ms per claim at 200,000). The condition is page-hops.ts's
 * MAY_BE_PAGE_SQL, negated, written out as it was when this shipped; the frontier's queries must
 * spell it the same way for SQLite to use the index (a test checks the query plan).
 */
function pendingNonPages(db: Database.Database): void {
  db.exec(`
    CREATE INDEX IF NOT EXISTS uris_pending_non_page ON uris(queue_id, directive DESC)
      WHERE state = 0 AND NOT (substr(rtrim(hops_path, 'R'), -1) IN ('', 'L', 'M'));
  `);
}

/**
 * Version 7: compact rows and partial indexes (issue 20: database bytes per URI). A request or
 * metadata record written with a capture (WARC-Concurrent-To it, in the same file, after it and
 * at most 16 rows later) shares its target URI, URL key, timestamp and date with that capture,
 * its concurrent_to is the capture's record id and its media type is its type's
 * (application/http, application/warc-fields): such a row keeps `parent_id` and NULL in those
 * six columns, and readers fill them in (archive/capture-statements.ts). A row whose values differ stays a full row, so nothing is
 * lost. A lower-case `<urn:uuid:…>` record id is stored as its 16 bytes. The indexes keep only
 * the rows their lookups can want (each index's query is named beside it); compact rows are in
 * none but `records_type`, `records_file` and `records_record_id`, and the records browser
 * reaches them from their parents by id (children sit within the window after them).
 * Written out as it was when this shipped, like every migration.
 */
function compactRecords(db: Database.Database): void {
  const x4 = '[0-9a-f]'.repeat(4);
  const UUID_GLOB = `${x4}${x4}-${x4}-${x4}-${x4}-${x4}${x4}${x4}`;
  // Every step can run again over its own result (a database whose version was set back, as
  // version 6's IF NOT EXISTS allows): only the column must not be added twice.
  const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('records') as string[];
  // parent_id: on a compact row, the capture row it was written with.
  if (!columns.includes('parent_id')) db.exec('ALTER TABLE records ADD COLUMN parent_id INTEGER');
  db.exec(`
    UPDATE records AS c SET parent_id = (
      SELECT p.id FROM records p
      WHERE p.record_id = c.concurrent_to AND p.record_type IN ('response', 'revisit', 'resource') AND p.parent_id IS NULL
        AND p.file_id = c.file_id AND p.offset < c.offset AND p.id < c.id AND p.id >= c.id - 16
        AND p.target_uri IS c.target_uri AND p.urlkey IS c.urlkey AND p.ts IS c.ts AND p.date IS c.date
      ORDER BY p.id DESC LIMIT 1)
    WHERE c.concurrent_to IS NOT NULL
      AND ((c.record_type = 'request' AND c.mime = 'application/http') OR (c.record_type = 'metadata' AND c.mime = 'application/warc-fields'));
    UPDATE records SET target_uri = NULL, urlkey = NULL, ts = NULL, date = NULL, concurrent_to = NULL, mime = NULL WHERE parent_id IS NOT NULL;

    -- A lower-case <urn:uuid:…> record id as its 16 bytes (archive/record-id-key.ts).
    UPDATE records SET record_id = unhex(replace(substr(record_id, 11, 36), '-', ''))
    WHERE record_id GLOB '<urn:uuid:${UUID_GLOB}>';

    DROP INDEX IF EXISTS records_urlkey_ts;
    DROP INDEX IF EXISTS records_target_uri;
    DROP INDEX IF EXISTS records_digest;
    DROP INDEX IF EXISTS records_status;
    DROP INDEX IF EXISTS records_ts;
    DROP INDEX IF EXISTS records_record_id;
    -- Lookups by URL (replay, timeline, fuzzy match, mirror, records browser URL filters).
    CREATE INDEX records_urlkey_ts ON records(urlkey, ts) WHERE urlkey IS NOT NULL;
    -- Screenshots by page URL (urn:view: resources); nothing else looks a record up by target URI.
    CREATE INDEX records_target_uri ON records(target_uri) WHERE record_type = 'resource';
    -- Dedup and revisit resolution (the earliest response with a payload digest).
    CREATE INDEX records_digest ON records(payload_digest, ts) WHERE payload_digest IS NOT NULL;
    -- The records browser's status filter.
    CREATE INDEX records_status ON records(status) WHERE status IS NOT NULL;
    -- The records browser's date filter.
    CREATE INDEX records_ts ON records(ts) WHERE ts IS NOT NULL;
    -- Lookups by WARC-Record-ID (Refers-To, Concurrent-To, parents of compact rows): every row.
    CREATE INDEX records_record_id ON records(record_id);
  `);
}

/**
 * Version 8 (issue 20: database bytes per URI): payload digests as bytes, WARC-Dates as their
 * milliseconds when the rest is the row's `ts`, and the via of unfinished URIs beside `uris`.
 * A `sha1:` + 32 characters of upper-case base32 (37 bytes of text, in the row and in
 * `records_digest`) is stored as its 20 bytes; any other digest stays its text
 * (formats/digest.ts digestKey, whose digestFromKey reads both back as written). SQLite has no
 * base32, so those rows are converted here in JS, one statement per row; `records_digest` keeps
 * its definition and is rebuilt so its pages are as full as a version-8 crawl's. Dates are
 * converted in SQL (the rule of archive/capture-date-key.ts spelled out). Every step runs again
 * over its own result unchanged. The space freed inside existing pages is reused only by a
 * VACUUM (a migration runs inside a transaction, where SQLite cannot vacuum).
 */
function bytesDatesAndVia(db: Database.Database): void {
  const B32 = '[A-Z2-7]'.repeat(32);
  const rows = db
    .prepare(`SELECT id, payload_digest AS d FROM records WHERE typeof(payload_digest) = 'text' AND payload_digest GLOB 'sha1:${B32}'`)
    .all() as { id: number; d: string }[];
  const set = db.prepare('UPDATE records SET payload_digest = ? WHERE id = ?');
  for (const { id, d } of rows) {
    const key = digestKey(d);
    if (typeof key !== 'string') set.run(key, id);
  }
  db.exec('REINDEX records_digest');

  // A WARC-Date that is the ISO form of the row's `ts` with three digits of milliseconds or none
  // is stored as those milliseconds (2 bytes, or none), as archive/capture-date-key.ts dateKey does.
  const D = '[0-9]';
  const iso19 = `substr(ts, 1, 4) || '-' || substr(ts, 5, 2) || '-' || substr(ts, 7, 2) || 'T' || substr(ts, 9, 2) || ':' || substr(ts, 11, 2) || ':' || substr(ts, 13, 2)`;
  db.exec(`
    UPDATE records SET date = CASE WHEN length(date) = 24 THEN unhex(printf('%04X', CAST(substr(date, 21, 3) AS INTEGER))) ELSE X'' END
    WHERE typeof(date) = 'text' AND ts GLOB '${D.repeat(14)}'
      AND ((length(date) = 24 AND substr(date, 21, 3) GLOB '${D.repeat(3)}' AND date = ${iso19} || '.' || substr(date, 21, 3) || 'Z')
        OR date = ${iso19} || 'Z');
  `);

  // An unfinished URI's via and via_context live in `uri_via` until it finishes (its row is then
  // deleted): a `uris` row that dropped them when it finished left that space unused inside its
  // page, ~40 bytes per URI, since new rows are appended after it. A redirect's target keeps its
  // via in `uris`, as a finished one always has (the report's redirectFrom); nothing else of a
  // finished row changes (`via_context` and any other via are already NULL there, and cleared
  // here for a row an older build finished before it cleared them).
  db.exec(`
    CREATE TABLE IF NOT EXISTS uri_via (
      id          INTEGER PRIMARY KEY,  -- uris.id of an unfinished URI
      via         TEXT,                 -- unless uris keeps it (a redirect's target)
      via_context TEXT
    );
    INSERT OR REPLACE INTO uri_via (id, via, via_context)
      SELECT id, CASE WHEN hops_path LIKE '%R' THEN NULL ELSE via END, via_context FROM uris
      WHERE state < 3 AND (via_context IS NOT NULL OR (via IS NOT NULL AND hops_path NOT LIKE '%R'));
    UPDATE uris SET via_context = NULL, via = CASE WHEN hops_path LIKE '%R' THEN via END
      WHERE via_context IS NOT NULL OR (via IS NOT NULL AND hops_path NOT LIKE '%R');
  `);
}

/**
 * Version 9 (issue 20: database bytes per URI): record types and timestamps as integers. A WARC
 * 1.1 record type is stored as its code (archive/record-type-key.ts: 0 response, 1 request,
 * 2 metadata, 3 revisit, 4 resource, 5 warcinfo, 6 conversion, 7 continuation), a 14-digit `ts`
 * as the integer it spells (archive/capture-ts-key.ts); any other value stays its text. Both
 * columns were declared TEXT, whose affinity turns an integer back into text, so `records` is
 * rebuilt with those two columns declared without a type, as SQLite's ALTER TABLE page
 * describes (new table, INSERT … SELECT keeping every id, so `page_text`'s rowids still name
 * their rows; drop; rename; recreate the indexes). Nothing references `records` (no foreign key,
 * trigger or view names it), and its own foreign key to `warc_files` is declared again. The
 * partial index of `resource` rows names the code. Written out as it was when this shipped.
 */
function typeAndTsCodes(db: Database.Database): void {
  const D14 = '[0-9]'.repeat(14);
  db.exec(`
    CREATE TABLE records_v9 (
      id             INTEGER PRIMARY KEY,
      file_id        INTEGER NOT NULL REFERENCES warc_files(id) ON DELETE CASCADE,
      offset         INTEGER NOT NULL,
      length         INTEGER NOT NULL,
      record_type    NOT NULL,      -- no affinity: a WARC 1.1 type's code, any other type's text
      record_id      TEXT,
      target_uri     TEXT,
      urlkey         TEXT,          -- SURT key, pywb style
      ts             ,              -- no affinity: 14 digits from WARC-Date as an integer, else text
      date           TEXT,          -- WARC-Date as written
      mime           TEXT,
      status         INTEGER,
      payload_digest TEXT,
      refers_to      TEXT,
      refers_to_uri  TEXT,
      refers_to_date TEXT,
      concurrent_to  TEXT,
      method         TEXT,
      content_length INTEGER,
      truncated      TEXT,
      title          TEXT,
      page           INTEGER NOT NULL DEFAULT 0,  -- 1 when an HTML 200 page
      parent_id      INTEGER                      -- on a compact row, the capture row it was written with
    );
    INSERT INTO records_v9 (id, file_id, offset, length, record_type, record_id, target_uri, urlkey, ts, date, mime, status,
        payload_digest, refers_to, refers_to_uri, refers_to_date, concurrent_to, method, content_length, truncated, title, page, parent_id)
      SELECT id, file_id, offset, length,
        CASE WHEN typeof(record_type) = 'text' THEN CASE record_type WHEN 'response' THEN 0 WHEN 'request' THEN 1 WHEN 'metadata' THEN 2
          WHEN 'revisit' THEN 3 WHEN 'resource' THEN 4 WHEN 'warcinfo' THEN 5 WHEN 'conversion' THEN 6 WHEN 'continuation' THEN 7
          ELSE record_type END ELSE record_type END,
        record_id, target_uri, urlkey,
        CASE WHEN typeof(ts) = 'text' AND ts GLOB '${D14}' THEN CAST(ts AS INTEGER) ELSE ts END,
        date, mime, status, payload_digest, refers_to, refers_to_uri, refers_to_date, concurrent_to, method, content_length, truncated,
        title, page, parent_id
      FROM records ORDER BY id;
    DROP TABLE records;
    ALTER TABLE records_v9 RENAME TO records;
    -- Lookups by URL (replay, timeline, fuzzy match, mirror, records browser URL filters).
    CREATE INDEX records_urlkey_ts ON records(urlkey, ts) WHERE urlkey IS NOT NULL;
    -- Screenshots by page URL (urn:view: resources, code 4); nothing else looks a record up by target URI.
    CREATE INDEX records_target_uri ON records(target_uri) WHERE record_type = 4;
    -- The records browser's type filter.
    CREATE INDEX records_type ON records(record_type);
    -- Dedup and revisit resolution (the earliest response with a payload digest).
    CREATE INDEX records_digest ON records(payload_digest, ts) WHERE payload_digest IS NOT NULL;
    -- The records browser's status filter.
    CREATE INDEX records_status ON records(status) WHERE status IS NOT NULL;
    -- The records browser's date filter.
    CREATE INDEX records_ts ON records(ts) WHERE ts IS NOT NULL;
    -- Lookups by WARC-Record-ID (Refers-To, Concurrent-To, parents of compact rows): every row.
    CREATE INDEX records_record_id ON records(record_id);
    -- A file's records by offset (subset neighbours, recovery, re-indexing a file).
    CREATE INDEX records_file ON records(file_id, offset);
    -- Pages in time order.
    CREATE INDEX records_pages ON records(ts) WHERE page = 1;
  `);
}

/**
 * Version 10 (issue 20: database bytes per URI): a capture's request and metadata records folded
 * into its row. When they follow it directly in the file and their record ids derive from its
 * own (warc/child-record-id.ts), the capture row carries each one's length and content length,
 * and the child has no row: its id is the capture's plus its place (the capture takes its id with
 * room after it), its offset is where the record before it ends, everything else is the
 * capture's or its type's (archive/capture-folds.ts). Rows written before stay as they are; the
 * columns are added at the end, so no row is rewritten. Written out as it was when this shipped.
 */
function foldedChildren(db: Database.Database): void {
  const has = new Set((db.prepare('PRAGMA table_info(records)').all() as { name: string }[]).map((c) => c.name));
  for (const col of ['req_len', 'req_clen', 'meta_len', 'meta_clen']) {
    if (!has.has(col)) db.exec(`ALTER TABLE records ADD COLUMN ${col} INTEGER`);
  }
}

/**
 * Version 11 (issue 39: the Pages view of a big archive): the view's first screen, sorted by title
 * (its default) or URL, walks an index instead of sorting every page. Measured on 20,000 pages
 * (load 19): 870 ms with a temporary sort, which grows with the archive. The expressions are
 * exactly those record-query.ts sorts by, or SQLite would not use them. Time order uses
 * records_pages (ts, with the row id after it).
 */
function pagesViewOrder(db: Database.Database): void {
  db.exec(`
    CREATE INDEX IF NOT EXISTS records_pages_title ON records(COALESCE(NULLIF(title, ''), target_uri) COLLATE NOCASE, id) WHERE page = 1;
    CREATE INDEX IF NOT EXISTS records_pages_url ON records(target_uri COLLATE NOCASE, id) WHERE page = 1;
  `);
}

/**
 * Version 12 (issue 39: search in a big archive): page text indexed in shards of record-id ranges
 * (archive/text-shards.ts says why). `page_text` becomes shard 0; text already in it stays there,
 * its size unknown (`chars` NULL), so the next text written begins a new shard. Nothing is
 * re-indexed.
 */
function textShards(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS text_shards (
      id INTEGER PRIMARY KEY,
      first_id INTEGER NOT NULL UNIQUE,
      last_id INTEGER,
      chars INTEGER
    );
    INSERT OR IGNORE INTO text_shards (id, first_id, last_id, chars)
      SELECT 0, 0, (SELECT MAX(id) FROM page_text_docsize), CASE WHEN EXISTS (SELECT 1 FROM page_text_docsize) THEN NULL ELSE 0 END;
  `);
}

const MIGRATIONS: readonly Migration[] = [
  metaAndRobots, frontier, captureIndex, priorCaptures, fileFixity, pendingNonPages, compactRecords, bytesDatesAndVia, typeAndTsCodes,
  foldedChildren, pagesViewOrder, textShards,
];

/** The schema version this build writes. */
export function schemaVersion(): number {
  return MIGRATIONS.length;
}

/**
 * Bring `db` up to `schemaVersion()` (or to `upTo`, for a test that needs an archive as an older
 * build left it). Returns how many migrations ran (0 on an up-to-date file).
 */
export function migrate(db: Database.Database, upTo = MIGRATIONS.length): number {
  // Up to date (every open of an existing database): nothing to lock. The IMMEDIATE transaction
  // below takes the write lock even when it changes nothing, and a crawl running in the file
  // holds a group transaction that must never meet another writer (crawl/exclude-requests.ts).
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current >= upTo && current <= MIGRATIONS.length) return 0;
  let ran = 0;
  for (;;) {
    const step = db
      .transaction((): boolean => {
        const version = db.pragma('user_version', { simple: true }) as number;
        if (version > MIGRATIONS.length) {
          throw new TroveError('DB_TOO_NEW', `Database schema ${version} is newer than this build knows (${MIGRATIONS.length})`, {
            version,
            latest: MIGRATIONS.length,
          });
        }
        if (version >= upTo) return false;
        MIGRATIONS[version]!(db);
        db.pragma(`user_version = ${version + 1}`);
        return true;
      })
      .immediate();
    if (!step) return ran;
    ran++;
  }
}
