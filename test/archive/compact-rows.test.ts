/**
 * Schema 7's compact rows (issue 20): a request or metadata record written with a capture is
 * stored as a reference to that capture's row, a lower-case UUID record id as 16 bytes, and the
 * indexes hold only the rows their lookups want. What is checked: the rule (which rows are
 * compact, which stay full), that every reader sees the values the WARC holds (read back by
 * warcio from a real crawl), that the records browser's filters find compact rows as they found
 * full ones, that lookups still go through an index, and that migration 7 turns a version-6
 * archive into exactly what a version-7 crawl writes, with every reader answering as before.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCaptureIndex } from '../../core/archive/capture-index.ts';
import type { CaptureIndex, CaptureRow, RecordRow } from '../../core/archive/capture-index.ts';
import { prepareCaptureStatements, RECORD_COLUMNS, RECORD_FROM } from '../../core/archive/capture-statements.ts';
import type { CaptureDbRow } from '../../core/archive/capture-statements.ts';
import { databaseOf, openArchive } from '../../core/archive/archive-dir.ts';
import type { Archive } from '../../core/archive/archive-dir.ts';
import { recordIdKey, recordIdSql } from '../../core/archive/record-id-key.ts';
import { queryRecords } from '../../core/archive/record-query.ts';
import { recordDetail } from '../../core/archive/record-query-detail.ts';
import { recordSummary } from '../../core/archive/record-query-sql.ts';
import type { RecordFilter, RecordSummary } from '../../core/api/archive-types.ts';
import { digestFromKey } from '../../core/formats/digest.ts';
import { dateFromKey } from '../../core/archive/capture-date-key.ts';
import { migrate, schemaVersion } from '../../core/storage/migrations.ts';
import { openDatabase } from '../../core/storage/open-database.ts';
import { crawlFixture } from '../export/export-fixture.ts';
import type { CrawledArchive } from '../export/export-fixture.ts';
import { readWarcDir } from '../helpers/read-warcs.ts';
import type { ReadRecord } from '../helpers/read-warcs.ts';
import { makeTempDir } from '../storage/temp-dir.ts';
import { asRead, fetchRows } from '../helpers/fetch-rows.ts';
import { unfoldedCopy } from '../helpers/unfold-records.ts';

const tmp = makeTempDir('trove-compact-');
afterAll(() => tmp.remove());
let serial = 0;

const uuid = () => `<urn:uuid:${crypto.randomUUID()}>`;
describe('compact rows: the rule', () => {
  let db: Database.Database;
  let ix: CaptureIndex;
  let fileId: number;
  const file = { path: 'warcs/a.warc.gz', name: 'a.warc.gz' };
  const raw = (id: number) => db.prepare('SELECT * FROM records WHERE id = ?').get(id) as Record<string, unknown>;
  beforeEach(() => {
    db = openDatabase(path.join(tmp.dir, `compact-${serial++}.sqlite`));
    ix = createCaptureIndex(db);
    fileId = ix.addFile({ ...file, source: 'crawl' });
  });
  afterEach(() => db.close());

  it('stores a request and a metadata record written after their response as references to it, and reads every field back', () => {
    const rows = fetchRows(fileId, 0);
    const ids = ix.addRecords(rows);
    for (const id of ids.slice(1)) {
      expect(raw(id)).toMatchObject({ parent_id: ids[0], target_uri: null, urlkey: null, ts: null, date: null, concurrent_to: null, mime: null });
    }
    expect(raw(ids[0]!)).toMatchObject({ parent_id: null, target_uri: 'http://example.com/a' });
    expect(Buffer.isBuffer(raw(ids[1]!).record_id)).toBe(true);
    rows.forEach((r, i) => {
      expect(ix.byId(ids[i]!)).toEqual(asRead(r, ids[i]!, file));
      expect(ix.byRecordId(r.recordId!)?.id).toBe(ids[i]);
    });
  });

  it('finds the response in an earlier batch, through the record id index', () => {
    const [response, request, metadata] = fetchRows(fileId, 0);
    const [rid] = ix.addRecords([response!]);
    const [qid, mid] = ix.addRecords([request!, metadata!]);
    expect(raw(qid!).parent_id).toBe(rid);
    expect(raw(mid!).parent_id).toBe(rid);
    expect(ix.byId(mid!)).toEqual(asRead(metadata!, mid!, file));
  });

  it('keeps a full row whenever the reference would not give back its exact values', () => {
    const other = ix.addFile({ path: 'warcs/b.warc.gz', name: 'b.warc.gz', source: 'crawl' });
    const cases: RecordRow[] = [];
    const [r1, q1] = fetchRows(fileId, 0);
    cases.push(r1!, { ...q1!, date: '2024-03-05T10:20:31Z' }); // its own date
    const [r2, q2] = fetchRows(fileId, 1000);
    cases.push(r2!, { ...q2!, fileId: other }); // in another file
    const [r3, q3] = fetchRows(fileId, 2000);
    cases.push(r3!, { ...q3!, offset: 1500 }); // before its response in the file
    const [, q4] = fetchRows(fileId, 3000);
    cases.push(q4!); // its response is not indexed
    const [r5, q5] = fetchRows(fileId, 4000, { recordType: 'revisit' });
    cases.push(r5!, { ...q5!, recordType: 'resource' }); // a capture itself: URL lookups must find it
    const [r6, q6] = fetchRows(fileId, 5000, { urlkey: 'com,example)/a?__wb_method=post' });
    cases.push(r6!, { ...q6!, urlkey: 'com,example)/a' }); // a POST: the response's key is not the request's
    const [r7, q7, m7] = fetchRows(fileId, 6000);
    cases.push(r7!, { ...q7!, mime: 'text/plain' }, { ...m7!, recordType: 'conversion' }); // not its type's media type; a type with none
    const ids = ix.addRecords(cases);
    for (const [i, r] of cases.entries()) {
      expect(raw(ids[i]!).parent_id, `${r.recordType} ${i}`).toBeNull();
      expect(ix.byId(ids[i]!)).toEqual(asRead(r, ids[i]!, i === 3 ? { path: 'warcs/b.warc.gz', name: 'b.warc.gz' } : file));
    }
  });

  it('keeps a full row more than 16 rows after its response, where the records browser would not look for it', () => {
    const [response, request] = fetchRows(fileId, 0);
    const between = Array.from({ length: 16 }, (_, i) => fetchRows(fileId, 1000 + 300 * i)[0]!);
    const ids = ix.addRecords([response!, ...between.slice(0, 15), { ...request!, offset: 99_000 }]);
    expect(raw(ids.at(-1)!).parent_id).toBe(ids[0]);
    const ids2 = ix.addRecords([{ ...request!, recordId: uuid(), offset: 99_100 }]);
    expect(raw(ids2[0]!).parent_id).toBeNull();
    expect(ix.byId(ids2[0]!)?.targetUri).toBe('http://example.com/a');
  });

  it('stores only lower-case UUID URNs as bytes and reads every record id back as written', () => {
    const ids = ['<urn:uuid:ABCDEF01-2345-4678-9abc-def012345678>', '<urn:uuid:abcdef01-2345-4678-9abc-def012345678>', 'urn:uuid:abcdef01-2345-4678-9abc-def012345679', '<http://example.com/record/1>'];
    expect(ids.map((id) => Buffer.isBuffer(recordIdKey(id)))).toEqual([false, true, false, false]);
    const rows = ids.map((recordId, i) => ({ ...fetchRows(fileId, 100 * i)[0]!, recordId }));
    const got = ix.addRecords(rows);
    for (const [i, id] of ids.entries()) {
      expect(ix.byRecordId(id)?.id).toBe(got[i]);
      expect(db.prepare(`SELECT ${recordIdSql('record_id')} AS id FROM records WHERE id = ?`).get(got[i]!)).toEqual({ id });
    }
  });

  it('answers every lookup through an index (the partial indexes are implied by the queries)', () => {
    ix.addRecords(fetchRows(fileId, 0));
    const st = prepareCaptureStatements(db) as unknown as Record<string, Database.Statement>;
    const lookups = ['parentCandidate', 'findCaptures', 'latest', 'atOrAfter', 'before', 'idByDigest', 'captureById', 'byRecordId', 'rowsAround', 'pages'];
    for (const name of lookups) {
      const sql = st[name]!.source;
      const params = Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => 'x');
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((p) => p.detail);
      expect(plan[0], `${name}: ${plan.join(' | ')}`).toMatch(/^(SEARCH r USING (INDEX|INTEGER PRIMARY KEY)|SCAN r USING INDEX records_pages)/);
    }
    const indexes = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'records' ORDER BY name").all() as { name: string; sql: string }[];
    expect(Object.fromEntries(indexes.map((i) => [i.name, / WHERE (.*)$/.exec(i.sql)?.[1] ?? null]))).toEqual({
      records_digest: 'payload_digest IS NOT NULL',
      records_file: null,
      records_pages: 'page = 1',
      records_pages_title: 'page = 1',
      records_pages_url: 'page = 1',
      records_record_id: null,
      records_status: 'status IS NOT NULL',
      records_target_uri: 'record_type = 4',
      records_ts: 'ts IS NOT NULL',
      records_type: null,
      records_urlkey_ts: 'urlkey IS NOT NULL',
    });
  });
});

// A crawl since schema 10 folds its request and metadata records into their capture's row
// (capture-folds.ts); `plain` is the same archive with them written out as the compact rows a
// version-9 crawl wrote (test/helpers/unfold-records.ts), and every reader answers alike for both.
describe('compact rows in a real crawl', () => {
  let c: CrawledArchive;
  let archive: Archive;
  let plain: Archive;
  let warc: ReadRecord[];
  let listed: RecordSummary[];
  beforeAll(async () => {
    c = await crawlFixture('compact');
    archive = openArchive(c.dir, { create: false });
    const dir = path.join(tmp.dir, `plain-${serial++}`);
    await unfoldedCopy(archive, c.dir, dir);
    plain = openArchive(dir, { create: false });
    warc = (await readWarcDir(path.join(c.dir, 'warcs'))).filter((r) => r.type !== 'warcinfo');
    listed = queryRecords(archive, {}, { limit: 1000 }).rows;
  }, 60_000);
  afterAll(async () => {
    archive?.close();
    plain?.close();
    await c?.cleanup();
  });

  it('stores every request and metadata record compact (folded since version 10), and lists each record with the values warcio reads from the WARC', () => {
    const children = warc.filter((r) => r.type === 'request' || r.type === 'metadata').length;
    const folded = (databaseOf(archive).prepare('SELECT COUNT(req_len) + COUNT(meta_len) AS n FROM records').get() as { n: number }).n;
    expect(folded).toBe(children);
    const compact = (databaseOf(plain).prepare('SELECT COUNT(*) AS n FROM records WHERE parent_id IS NOT NULL').get() as { n: number }).n;
    expect(compact).toBe(children);
    expect(compact).toBeGreaterThan(20);
    expect(listed.length).toBe(warc.length);
    expect(queryRecords(plain, {}, { limit: 1000 }).rows).toEqual(listed);
    const byId = new Map(listed.map((r) => [r.recordId, r]));
    for (const w of warc) {
      const row = byId.get(w.recordId)!;
      expect(row, w.recordId).toBeDefined();
      expect({ type: row.type, url: row.url, date: row.date, concurrentTo: row.concurrentTo, offset: row.offset }).toEqual({
        type: w.type,
        url: w.targetUri,
        date: w.date,
        concurrentTo: w.concurrentTo[0] ?? null,
        offset: w.offset,
      });
      expect(row.ts).toBe(w.date.replace(/[^0-9]/g, '').slice(0, 14));
    }
  });

  it('filters by URL, prefix, host, time and type alike for full and compact rows', () => {
    const page = listed.find((r) => r.type === 'response' && r.url === c.site.origin + '/')!;
    // The second second of the crawl, or its only one when it ran within a second.
    const stamps = [...new Set(listed.map((r) => r.ts!))].sort();
    const later = stamps[Math.min(1, stamps.length - 1)]!;
    const origin = new URL(c.site.origin);
    const cases: [RecordFilter, (r: RecordSummary) => boolean][] = [
      [{ url: page.url! }, (r) => r.url === page.url],
      [{ url: page.url!, type: ['request', 'metadata'] }, (r) => r.url === page.url && r.type !== 'response'],
      [{ urlPrefix: `${c.site.origin}/img/` }, (r) => r.url!.startsWith(`${c.site.origin}/img/`)],
      [{ host: origin.host }, (r) => new URL(r.url!).host === origin.host],
      [{ from: later }, (r) => r.ts! >= later],
      [{ to: later, type: ['metadata'] }, (r) => r.ts! <= later && r.type === 'metadata'],
      [{ host: origin.host, from: later, status: [200] }, (r) => new URL(r.url!).host === origin.host && r.ts! >= later && r.status === 200],
      [{ mime: 'application/warc-fields' }, (r) => r.mime === 'application/warc-fields'],
      [{ mime: 'application/', url: page.url! }, (r) => r.url === page.url && r.mime!.startsWith('application/')],
    ];
    for (const [filter, want] of cases) {
      const expected = listed.filter(want).map((r) => r.id);
      expect(expected.length, JSON.stringify(filter)).toBeGreaterThan(0);
      const got = queryRecords(archive, filter, { limit: 1000 });
      expect(got.rows.map((r) => r.id), JSON.stringify(filter)).toEqual(expected);
      expect(got.total).toBe(expected.length);
      // Paged two at a time, the same rows.
      const paged: number[] = [];
      for (let after: number | undefined; ; ) {
        const p = queryRecords(archive, filter, { limit: 2, ...(after !== undefined ? { after } : {}) });
        paged.push(...p.rows.map((r) => r.id));
        if (p.next === null) break;
        after = p.next;
      }
      expect(paged).toEqual(expected);
      expect(queryRecords(plain, filter, { limit: 1000 })).toEqual(got);
    }
  });

  it('shows a compact row in the detail view with its group, and CDXJ rows of metadata with their URL and time', async () => {
    const request = listed.find((r) => r.type === 'request')!;
    const detail = await recordDetail(archive, request.id);
    expect(detail.row).toEqual(request);
    expect(await recordDetail(plain, request.id)).toEqual(detail);
    expect(detail.siblings.map((s) => s.type).sort()).toEqual(['metadata', 'response']);
    const cdxj = archive.index.cdxjRows(0, 1000);
    expect(cdxj.length).toBe(archive.index.countCdxjRows());
    for (const m of cdxj.filter((r) => r.recordType === 'metadata')) {
      const l = listed.find((r) => r.id === m.id)!;
      expect({ targetUri: m.targetUri, ts: m.ts }).toEqual({ targetUri: l.url, ts: l.ts });
      expect(m.urlkey).toBe(archive.index.byId(l.id)!.urlkey);
      expect(m.urlkey).not.toBeNull();
    }
  });

  it('migrations 7 and 8 turn a version-6 archive into what a version-8 crawl writes, and every reader answers as before', async () => {
    // The same crawl as a version-6 build left it: full rows, record ids as text.
    const dir = path.join(tmp.dir, `v6-${serial++}`);
    fs.cpSync(c.dir, dir, { recursive: true, filter: (src) => !path.basename(src).startsWith('crawl.sqlite') });
    const src = databaseOf(plain);
    const v6 = new Database(path.join(dir, 'crawl.sqlite'));
    migrate(v6, 6);
    expect(v6.pragma('user_version', { simple: true })).toBe(6);
    v6.transaction(() => {
      for (const m of src.prepare('SELECT key, value FROM meta').all() as { key: string; value: string }[]) {
        v6.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(m.key, m.value);
      }
      for (const f of src.prepare('SELECT * FROM warc_files').all() as Record<string, unknown>[]) {
        v6.prepare('INSERT INTO warc_files (id, path, name, size, records, created_at, source, by_reference) VALUES (@id, @path, @name, @size, @records, @created_at, @source, @by_reference)').run(f);
      }
      for (const r of src.prepare(`SELECT ${RECORD_COLUMNS} FROM ${RECORD_FROM} ORDER BY r.id`).all() as Record<string, unknown>[]) {
        // Payload digests and dates as text, as before version 8.
        r.payload_digest = digestFromKey(r.payload_digest as string | Buffer | null);
        r.date = dateFromKey(r.date as string | Buffer | null, r.ts as string | null);
        v6.prepare(
          `INSERT INTO records (${Object.keys(r).join(', ')}) VALUES (${Object.keys(r).map((k) => `@${k}`).join(', ')})`,
        ).run(r);
      }
      for (const t of src.prepare('SELECT rowid AS id, title, text FROM page_text').all() as { id: number; title: string; text: string }[]) {
        v6.prepare('INSERT INTO page_text (rowid, title, text) VALUES (?, ?, ?)').run(t.id, t.title, t.text);
      }
    })();
    // What version 6's readers returned: `records r` as stored, joined with its file.
    const before = (v6.prepare('SELECT r.*, f.path AS file_path, f.name AS file_name FROM records r JOIN warc_files f ON f.id = r.file_id ORDER BY r.id').all() as CaptureDbRow[]).map(recordSummary);
    const digests = v6.prepare("SELECT payload_digest FROM records WHERE record_type = 'response'").pluck().all() as string[];
    v6.close();

    const migrated = openArchive(dir, { create: false });
    try {
      const db = databaseOf(migrated);
      expect(db.pragma('user_version', { simple: true })).toBe(schemaVersion());
      // Byte for byte the rows and indexes the crawl wrote: migration 7 and addRecords apply one rule.
      const rawRows = (d: Database.Database) => d.prepare('SELECT * FROM records ORDER BY id').all();
      expect(rawRows(db)).toEqual(rawRows(src));
      const schema = (d: Database.Database) => d.prepare("SELECT name, sql FROM sqlite_master WHERE tbl_name = 'records' ORDER BY name").all();
      expect(schema(db)).toEqual(schema(src));
      // The readers.
      expect(queryRecords(migrated, {}, { limit: 1000 }).rows).toEqual(before);
      for (const b of before) {
        expect(migrated.index.byRecordId(b.recordId!)?.id).toBe(b.id);
        expect(recordSummary({ ...(db.prepare(`SELECT ${RECORD_COLUMNS}, '' AS file_path, f.name AS file_name FROM ${RECORD_FROM} JOIN warc_files f ON f.id = r.file_id WHERE r.id = ?`).get(b.id) as CaptureDbRow) })).toEqual(b);
      }
      for (const d of digests) expect(migrated.index.byDigest(d)).toEqual(archive.index.byDigest(d));
      expect(migrated.index.cdxjRows(0, 1000)).toEqual(archive.index.cdxjRows(0, 1000));
      expect(migrated.index.pagesAfter(0, 1000)).toEqual(archive.index.pagesAfter(0, 1000));
      expect(migrated.index.searchText('fixture')).toEqual(archive.index.searchText('fixture'));
      const request = before.find((r) => r.type === 'request')!;
      expect((await recordDetail(migrated, request.id)).siblings).toEqual((await recordDetail(archive, request.id)).siblings);
    } finally {
      migrated.close();
    }
  });
});
