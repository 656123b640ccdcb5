/**
 * Schema 9's record types and timestamps as integers (issue 20: database bytes per URI): a crawl
 * stores each WARC 1.1 record type as its code and each 14-digit `ts` as the integer it spells,
 * migration 9 turns a version-8 copy of a real crawl (types and timestamps as text, the columns
 * declared TEXT) into exactly the rows, schema and indexes a version-9 crawl writes, and every
 * reader (records browser, lookups, CDXJ rows, the CDXJ export, pages, text search) answers as
 * before. A type or ts in any other form (a foreign WARC's differently-cased or unknown type, a
 * ts that is not 14 digits, which only another tool could have written) stays its text and reads
 * back as written; lookups and filters still go through their indexes with the new binds.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCaptureIndex } from '../../core/archive/capture-index.ts';
import type { RecordRow } from '../../core/archive/capture-index.ts';
import { prepareCaptureStatements } from '../../core/archive/capture-statements.ts';
import { databaseOf, openArchive } from '../../core/archive/archive-dir.ts';
import type { Archive } from '../../core/archive/archive-dir.ts';
import { recordTypeKey, recordTypeSql } from '../../core/archive/record-type-key.ts';
import { tsKey, tsSql } from '../../core/archive/capture-ts-key.ts';
import { queryRecords } from '../../core/archive/record-query.ts';
import { exportCdxj } from '../../core/export/export-cdxj.ts';
import { migrate, schemaVersion } from '../../core/storage/migrations.ts';
import { openDatabase } from '../../core/storage/open-database.ts';
import { crawlFixture } from '../export/export-fixture.ts';
import type { CrawledArchive } from '../export/export-fixture.ts';
import { readWarcDir } from '../helpers/read-warcs.ts';
import type { ReadRecord } from '../helpers/read-warcs.ts';
import { makeTempDir } from '../storage/temp-dir.ts';
import { unfoldedCopy } from '../helpers/unfold-records.ts';

const tmp = makeTempDir('trove-type-ts-');
afterAll(() => tmp.remove());

/** The `records` table and its indexes exactly as migration 8 leaves them (types and ts declared TEXT). */
function version8Records(): { table: string; indexes: string[] } {
  const v8 = new Database(':memory:');
  try {
    migrate(v8, 8);
    const rows = v8.prepare("SELECT type, sql FROM sqlite_master WHERE tbl_name = 'records' AND sql IS NOT NULL ORDER BY rowid").all() as { type: string; sql: string }[];
    return { table: rows.find((r) => r.type === 'table')!.sql, indexes: rows.filter((r) => r.type === 'index').map((r) => r.sql) };
  } finally {
    v8.close();
  }
}

/**
 * Turn a version-9 database file back into what a version-8 build wrote: `records` declared as
 * version 8 declared it, its types and timestamps as text, its indexes as version 8's, version 8.
 */
function downgradeTo8(file: string): void {
  const { table, indexes } = version8Records();
  const db = new Database(file);
  try {
    db.transaction(() => {
      // Version 8's columns (version 10's fold columns are NULL in an unfolded copy).
      const v8cols = new Set((db.prepare(`SELECT name FROM pragma_table_info('records')`).pluck().all() as string[]).filter((c) => !/^(req|meta)_c?len$/.test(c)));
      const cols = [...v8cols].join(', ');
      const read = cols.replace('record_type', `${recordTypeSql('record_type')}`).replace(/\bts\b/, tsSql('ts'));
      db.exec(`ALTER TABLE records RENAME TO records_v9;
        ${table};
        INSERT INTO records (${cols}) SELECT ${read} FROM records_v9 ORDER BY id;
        DROP TABLE records_v9;
        ${indexes.join(';\n')};`);
      db.pragma('user_version = 8');
    })();
  } finally {
    db.close();
  }
}

describe('record types and timestamps as integers in a real crawl', () => {
  let c: CrawledArchive;
  let archive: Archive;
  let warc: ReadRecord[];
  beforeAll(async () => {
    c = await crawlFixture('type-ts');
    archive = openArchive(c.dir, { create: false });
    warc = (await readWarcDir(path.join(c.dir, 'warcs'))).filter((r) => r.type !== 'warcinfo');
  }, 60_000);
  afterAll(async () => {
    archive?.close();
    await c?.cleanup();
  });

  it('stores each type as its code and each ts as an integer, and every reader gives back the text warcio reads from the WARC', () => {
    const db = databaseOf(archive);
    expect(db.prepare('SELECT DISTINCT typeof(record_type) FROM records').pluck().all()).toEqual(['integer']);
    expect(db.prepare('SELECT DISTINCT typeof(ts) FROM records WHERE parent_id IS NULL').pluck().all()).toEqual(['integer']);
    const listed = new Map(queryRecords(archive, {}, { limit: 1000 }).rows.map((r) => [r.recordId, r]));
    expect(listed.size).toBe(archive.index.count());
    expect(listed.size).toBe(warc.length);
    for (const w of warc) {
      const row = listed.get(w.recordId)!;
      const ts = w.date.replace(/[-:T]/g, '').slice(0, 14);
      expect({ type: row.type, ts: row.ts }, w.recordId).toEqual({ type: w.type, ts });
      expect({ type: archive.index.byId(row.id)!.recordType, ts: archive.index.byId(row.id)!.ts }).toEqual({ type: w.type, ts });
    }
    // Each type filter finds exactly the WARC's records of that type, through records_type.
    for (const type of ['response', 'request', 'metadata', 'revisit']) {
      const want = warc.filter((w) => w.type === type).map((w) => w.recordId).sort();
      expect(queryRecords(archive, { type: [type] }, { limit: 1000 }).rows.map((r) => r.recordId!).sort(), type).toEqual(want);
    }
    const two = queryRecords(archive, { type: ['request', 'metadata'] }, { limit: 1000 }).rows;
    expect(two.length).toBe(warc.filter((w) => w.type === 'request' || w.type === 'metadata').length);
    // The date filter, with 14-digit bounds bound as integers: every record from the first ts to the last, none before.
    const stamps = [...listed.values()].map((r) => r.ts!).sort();
    const [first, last] = [stamps[0]!, stamps.at(-1)!];
    expect(queryRecords(archive, { from: first, to: last }, { limit: 1000 }).rows.length).toBe(listed.size);
    expect(queryRecords(archive, { from: last }, { limit: 1000 }).rows.every((r) => r.ts === last)).toBe(true);
    expect(queryRecords(archive, { to: String(BigInt(first) - 1n) }, { limit: 1000 }).rows).toEqual([]);
    // Replay's lookups by time: the capture at its own ts; all captures of a URL in time order.
    for (const r of [...listed.values()].filter((x) => x.type === 'response')) {
      const key = archive.index.byId(r.id)!.urlkey!;
      expect(archive.index.closest(key, r.ts!)!.ts).toBe(r.ts);
      const times = archive.index.findCaptures(key).map((x) => x.ts!);
      expect(times).toContain(r.ts);
      expect(times).toEqual([...times].sort());
    }
  });

  it('migration 9 turns a version-8 copy of the crawl into what a version-9 crawl writes; readers and the CDXJ export answer as before', async () => {
    const dir = path.join(tmp.dir, 'v8');
    // From the crawl unfolded (test/helpers/unfold-records.ts): a version-8 build wrote compact rows.
    await unfoldedCopy(archive, c.dir, dir);
    const src = new Database(await unfoldedCopy(archive, c.dir, path.join(tmp.dir, 'v10')), { readonly: true });
    downgradeTo8(path.join(dir, 'crawl.sqlite'));
    const v8 = new Database(path.join(dir, 'crawl.sqlite'), { readonly: true });
    expect(v8.prepare("SELECT DISTINCT typeof(record_type) || ',' || typeof(ts) FROM records WHERE parent_id IS NULL").pluck().all()).toEqual(['text,text']);
    expect(v8.prepare("SELECT sql FROM sqlite_master WHERE name = 'records'").pluck().get()).toMatch(/record_type +TEXT NOT NULL/);
    v8.close();

    const migrated = openArchive(dir, { create: false });
    try {
      const db = databaseOf(migrated);
      expect(db.pragma('user_version', { simple: true })).toBe(schemaVersion());
      const rawRows = (d: Database.Database) => d.prepare('SELECT * FROM records ORDER BY id').all();
      const rawTypes = (d: Database.Database) => d.prepare('SELECT typeof(record_type), typeof(ts) FROM records ORDER BY id').raw().all();
      expect(rawRows(db)).toEqual(rawRows(src));
      expect(rawTypes(db)).toEqual(rawTypes(src));
      const schema = (d: Database.Database) => d.prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name').all();
      expect(schema(db)).toEqual(schema(src));
      expect(db.prepare('PRAGMA integrity_check').pluck().get()).toBe('ok');
      // page_text's rowids still name their rows.
      expect(migrated.index.searchText('fixture')).toEqual(archive.index.searchText('fixture'));
      expect(queryRecords(migrated, {}, { limit: 1000 }).rows).toEqual(queryRecords(archive, {}, { limit: 1000 }).rows);
      for (const f of [{ type: ['request'] }, { type: ['response', 'metadata'] }, { from: '2000', to: '2100' }, { status: [200] }]) {
        expect(queryRecords(migrated, f, { limit: 1000 }).rows, JSON.stringify(f)).toEqual(queryRecords(archive, f, { limit: 1000 }).rows);
      }
      expect(migrated.index.cdxjRows(0, 1000)).toEqual(archive.index.cdxjRows(0, 1000));
      expect(migrated.index.pagesAfter(0, 1000)).toEqual(archive.index.pagesAfter(0, 1000));
      expect(migrated.index.latestOkCaptures('', 1000)).toEqual(archive.index.latestOkCaptures('', 1000));
      expect(migrated.index.reportCaptures(0, 1000)).toEqual(archive.index.reportCaptures(0, 1000));

      const a = path.join(c.out, 'crawl.cdxj');
      const b = path.join(c.out, 'migrated.cdxj');
      await exportCdxj(archive, a);
      await exportCdxj(migrated, b);
      const lines = fs.readFileSync(a, 'utf8');
      expect(lines.split('\n').length).toBeGreaterThan(10);
      expect(fs.readFileSync(b, 'utf8')).toBe(lines);
    } finally {
      migrated.close();
      src.close();
    }
  });
});

describe('record types and timestamps in other forms', () => {
  const row = (i: number, over: Partial<RecordRow>): RecordRow => ({
    fileId: 1,
    offset: 100 * i,
    length: 100,
    recordType: 'response',
    recordId: `<urn:uuid:00000000-0000-4000-8000-00000000000${i}>`,
    targetUri: 'http://example.com/',
    urlkey: 'com,example)/',
    ts: '20240305102030',
    date: '2024-03-05T10:20:30Z',
    mime: 'text/html',
    status: 200,
    payloadDigest: null,
    ...over,
  });

  it('keeps a type that is not a WARC 1.1 type as written, and a ts that is not 14 digits as text; reads both back and finds them as before', () => {
    const file = path.join(tmp.dir, 'mixed.sqlite');
    const db = openDatabase(file);
    try {
      const ix = createCaptureIndex(db);
      ix.addFile({ path: 'a.warc', name: 'a.warc', createdAt: 0, source: 'import' });
      const ids = ix.addRecords([
        row(0, {}),
        row(1, { recordType: 'Response', ts: '20240305102031', date: '2024-03-05T10:20:31Z' }),
        row(2, { recordType: 'x-custom', ts: '09990305102030', date: '0999-03-05T10:20:30Z' }),
        row(3, { recordType: 'continuation', ts: null, date: null, urlkey: null }),
      ]);
      expect(db.prepare('SELECT typeof(record_type), typeof(ts) FROM records ORDER BY id').raw().all()).toEqual([
        ['integer', 'integer'], ['text', 'integer'], ['text', 'integer'], ['integer', 'null'],
      ]);
      expect(ids.map((id) => [ix.byId(id)!.recordType, ix.byId(id)!.ts])).toEqual([
        ['response', '20240305102030'], ['Response', '20240305102031'], ['x-custom', '09990305102030'], ['continuation', null],
      ]);
      expect(ix.findCaptures('com,example)/').map((r) => r.id)).toEqual([ids[0]]);
    } finally {
      db.close();
    }
  });

  it('migration 9 keeps such values as text, and every reader gives them back as a version-8 build did', () => {
    const file = path.join(tmp.dir, 'foreign-v8.sqlite');
    const v8 = new Database(file);
    migrate(v8, 8);
    v8.exec("INSERT INTO warc_files (id, path, name, created_at, source) VALUES (1, 'a.warc', 'a.warc', 0, 'import')");
    const insert = v8.prepare(`INSERT INTO records (id, file_id, offset, length, record_type, record_id, target_uri, urlkey, ts, date, mime, status)
      VALUES (?, 1, ?, 100, ?, NULL, 'http://example.com/', 'com,example)/', ?, ?, 'text/html', 200)`);
    // As another tool could have left them: a differently-cased and an unknown type, a 12-digit and an ISO ts.
    const rows: [number, string, string | null, string | null][] = [
      [1, 'response', '20240305102030', '2024-03-05T10:20:30Z'],
      [2, 'Response', '20240305102031', '2024-03-05T10:20:31Z'],
      [3, 'x-custom', '202403051020', '2024-03-05T10:20Z'],
      [4, 'revisit', '2024-03-05T10:20:30Z', '2024-03-05T10:20:30Z'],
      [5, 'resource', null, null],
    ];
    for (const [id, type, ts, date] of rows) insert.run(id, id * 100, type, ts, date);
    const before = v8.prepare('SELECT id, record_type, ts FROM records ORDER BY id').raw().all();
    v8.close();

    const db = openDatabase(file);
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(schemaVersion());
      expect(db.prepare('SELECT typeof(record_type), typeof(ts) FROM records ORDER BY id').raw().all()).toEqual([
        ['integer', 'integer'], ['text', 'integer'], ['text', 'text'], ['integer', 'text'], ['integer', 'null'],
      ]);
      // Read back exactly as the version-8 build stored them, through the readers' one expression each.
      expect(db.prepare(`SELECT id, ${recordTypeSql('record_type')}, ${tsSql('ts')} FROM records ORDER BY id`).raw().all()).toEqual(before);
      const ix = createCaptureIndex(db);
      for (const [id, type, ts] of rows) expect([ix.byId(id)!.recordType, ix.byId(id)!.ts]).toEqual([type, ts]);
      // A type filter binds the stored form: the text for a foreign type, the code for a WARC 1.1 one.
      const byType = (t: string) => db.prepare('SELECT id FROM records WHERE record_type = ? ORDER BY id').pluck().all(recordTypeKey(t));
      expect([byType('response'), byType('Response'), byType('x-custom'), byType('resource')]).toEqual([[1], [2], [3], [5]]);
      // Captures of the URL in time order: NULL first and the 14-digit ones in order, as before; a ts
      // that is not 14 digits now sorts after every 14-digit one (SQLite sorts integers before text),
      // where a version-8 build sorted it as text ([5, 4, 1] here: '2024-…' < '20240…').
      expect(ix.findCaptures('com,example)/').map((c) => c.id)).toEqual([5, 1, 4]);
      expect(ix.closest('com,example)/', '2024')!.id).toBe(1);
      expect(tsKey('2024-03-05T10:20:30Z')).toBe('2024-03-05T10:20:30Z');
    } finally {
      db.close();
    }
  });
});

describe('lookups with the new binds stay on their indexes', () => {
  it('plans the type filter, the date range and the time lookups on the same indexes for the code / integer binds', () => {
    const db = openDatabase(path.join(tmp.dir, 'plans.sqlite'));
    try {
      createCaptureIndex(db);
      const st = prepareCaptureStatements(db) as unknown as Record<string, Database.Statement>;
      // No statement sorts: the index gives the order of the integers as it gave the text's.
      const plan = (sql: string, ...params: unknown[]) => {
        const p = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join(' | ');
        expect(p).not.toMatch(/TEMP B-TREE/);
        return p;
      };
      expect(plan(st.atOrAfter!.source, 'com,example)/', tsKey('20240305102030'))).toMatch(/^SEARCH r USING INDEX records_urlkey_ts \(urlkey=\? AND ts>\?\)/);
      expect(plan(st.before!.source, 'com,example)/', tsKey('20240305102030'))).toMatch(/^SEARCH r USING INDEX records_urlkey_ts \(urlkey=\? AND ts<\?\)/);
      expect(plan(st.findCaptures!.source, 'com,example)/')).toMatch(/^SEARCH r USING INDEX records_urlkey_ts \(urlkey=\?\)( \||$)/);
      expect(plan(st.pages!.source, 10, 0)).toMatch(/^SCAN r USING INDEX records_pages/);
      expect(plan('SELECT id FROM records WHERE record_type = ?', recordTypeKey('request'))).toMatch(/records_type \(record_type=\?\)/);
      // Screenshots of a page URL: the partial index of resource rows (page-screenshot.ts names it).
      expect(plan('SELECT id FROM records INDEXED BY records_target_uri WHERE target_uri = ? AND record_type = 4', 'urn:view:x')).toMatch(/records_target_uri \(target_uri=\?\)/);
      expect(plan('SELECT id FROM records WHERE ts IS NOT NULL AND ts >= ? AND ts <= ?', tsKey('20240101000000'), tsKey('20241231235959'))).toMatch(/records_ts \(ts>\? AND ts<\?\)/);
    } finally {
      db.close();
    }
  });
});
