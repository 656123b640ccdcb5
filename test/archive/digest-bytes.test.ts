/**
 * Schema 8's payload digests as bytes and dates as milliseconds (issue 20: database bytes per
 * URI): a crawl stores each `sha1:BASE32` payload digest as its 20 bytes and each WARC-Date as
 * its milliseconds (the rest is the row's ts), every reader gives back the text the WARC holds
 * (read back by warcio, an independent reader), a digest in any other form stays text and is
 * still found, lookups by digest stay on `records_digest`, and migration 8 turns a version-7
 * archive (digests as text) into exactly what a version-8 crawl writes, every reader answering
 * as before. The CDXJ export, which reads digests from the index, is the same file from both.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCaptureIndex } from '../../core/archive/capture-index.ts';
import { dateFromKey } from '../../core/archive/capture-date-key.ts';
import type { RecordRow } from '../../core/archive/capture-index.ts';
import { prepareCaptureStatements } from '../../core/archive/capture-statements.ts';
import { recordTypeSql } from '../../core/archive/record-type-key.ts';
import { tsSql } from '../../core/archive/capture-ts-key.ts';
import { databaseOf, openArchive } from '../../core/archive/archive-dir.ts';
import type { Archive } from '../../core/archive/archive-dir.ts';
import { sourceResponses } from '../../core/archive/prior-capture-store.ts';
import { queryRecords } from '../../core/archive/record-query.ts';
import { exportCdxj } from '../../core/export/export-cdxj.ts';
import { digestFromKey, labelledDigest, sha1Base32 } from '../../core/formats/digest.ts';
import { migrate, schemaVersion } from '../../core/storage/migrations.ts';
import { openDatabase } from '../../core/storage/open-database.ts';
import { crawlFixture } from '../export/export-fixture.ts';
import type { CrawledArchive } from '../export/export-fixture.ts';
import { readWarcDir } from '../helpers/read-warcs.ts';
import type { ReadRecord } from '../helpers/read-warcs.ts';
import { makeTempDir } from '../storage/temp-dir.ts';
import { unfoldedCopy } from '../helpers/unfold-records.ts';

const tmp = makeTempDir('trove-digest-bytes-');
afterAll(() => tmp.remove());

describe('payload digests as bytes in a real crawl', () => {
  let c: CrawledArchive;
  let archive: Archive;
  let warc: ReadRecord[];
  beforeAll(async () => {
    c = await crawlFixture('digest-bytes');
    archive = openArchive(c.dir, { create: false });
    warc = (await readWarcDir(path.join(c.dir, 'warcs'))).filter((r) => r.type !== 'warcinfo');
  }, 60_000);
  afterAll(async () => {
    archive?.close();
    await c?.cleanup();
  });

  it('stores each sha1 payload digest as 20 bytes, and every reader gives back the digest warcio reads from the WARC', () => {
    const db = databaseOf(archive);
    const stored = db.prepare('SELECT typeof(payload_digest) AS t, length(payload_digest) AS n, COUNT(*) AS rows FROM records WHERE payload_digest IS NOT NULL GROUP BY 1, 2').all();
    const withDigest = warc.filter((r) => r.warcHeaders['WARC-Payload-Digest'] !== undefined);
    expect(withDigest.length).toBeGreaterThan(10);
    expect(stored).toEqual([{ t: 'blob', n: 20, rows: withDigest.length }]);

    const listed = new Map(queryRecords(archive, {}, { limit: 1000 }).rows.map((r) => [r.recordId, r]));
    const cdxj = new Map(archive.index.cdxjRows(0, 1000).map((r) => [r.id, r]));
    for (const w of warc) {
      const want = w.warcHeaders['WARC-Payload-Digest'] ?? null;
      const row = listed.get(w.recordId)!;
      expect(row.payloadDigest, w.recordId).toBe(want);
      expect(archive.index.byId(row.id)!.payloadDigest).toBe(want);
      expect({ listed: row.date, byId: archive.index.byId(row.id)!.date }).toEqual({ listed: w.date, byId: w.date });
      if (cdxj.has(row.id)) expect(cdxj.get(row.id)!.payloadDigest).toBe(want);
    }
    // Every full row's WARC-Date (Trove writes milliseconds) is stored as its milliseconds.
    expect(db.prepare('SELECT DISTINCT typeof(date) || length(date) FROM records WHERE parent_id IS NULL').pluck().all()).toEqual(['blob2']);
    const warcDate = new Map(warc.map((w) => [w.recordId, w.date]));
    const pages = archive.index.pagesAfter(0, 1000);
    expect(pages.length).toBeGreaterThan(0);
    for (const p of pages) expect(p.date).toBe(warcDate.get(p.recordId!));
    expect(archive.index.firstPage()!.date).toBe(warcDate.get(archive.index.firstPage()!.recordId!));
    // --dedup-from reads an earlier crawl's database as it is.
    const responses = [...sourceResponses(path.join(c.dir, 'crawl.sqlite'))];
    expect(responses.length).toBeGreaterThan(0);
    for (const r of responses) expect([r[3], r[5]]).toEqual([warcDate.get(r[6]!), archive.index.byRecordId(r[6]!)!.payloadDigest]);
    // Dedup and revisit resolution by the digest's text.
    for (const w of withDigest.filter((r) => r.type === 'response')) {
      const hit = archive.index.byDigest(w.warcHeaders['WARC-Payload-Digest']!)!;
      expect(hit.payloadDigest).toBe(w.warcHeaders['WARC-Payload-Digest']);
      expect(hit.recordType).toBe('response');
    }
  });

  it('migration 8 turns a version-7 archive into what a version-8 crawl writes; readers and the CDXJ export answer as before', async () => {
    // The same crawl as a version-7 build left it: payload digests as text.
    const dir = path.join(tmp.dir, 'v7');
    // From the crawl unfolded (test/helpers/unfold-records.ts): a version-7 build wrote compact rows.
    await unfoldedCopy(archive, c.dir, dir);
    const src = new Database(await unfoldedCopy(archive, c.dir, path.join(tmp.dir, 'v10')), { readonly: true });
    const v7 = new Database(path.join(dir, 'crawl.sqlite'));
    v7.transaction(() => {
      const rows = v7.prepare('SELECT id, payload_digest AS d FROM records WHERE payload_digest IS NOT NULL').all() as { id: number; d: Buffer }[];
      for (const { id, d } of rows) v7.prepare('UPDATE records SET payload_digest = ? WHERE id = ?').run(digestFromKey(d), id);
      // Record types and timestamps as text, as before version 9.
      v7.exec(`UPDATE records SET record_type = ${recordTypeSql('record_type')}, ts = ${tsSql('ts')}`);
      const dates = v7.prepare('SELECT id, date, ts FROM records WHERE date IS NOT NULL').all() as { id: number; date: Buffer; ts: string }[];
      for (const { id, date, ts } of dates) v7.prepare('UPDATE records SET date = ? WHERE id = ?').run(dateFromKey(date, ts), id);
      v7.pragma('user_version = 7');
    })();
    expect(v7.prepare("SELECT COUNT(*) FROM records WHERE typeof(payload_digest) = 'blob' OR typeof(date) = 'blob'").pluck().get()).toBe(0);
    v7.close();

    const migrated = openArchive(dir, { create: false });
    try {
      const db = databaseOf(migrated);
      expect(db.pragma('user_version', { simple: true })).toBe(schemaVersion());
      const rawRows = (d: Database.Database) => d.prepare('SELECT * FROM records ORDER BY id').all();
      expect(rawRows(db)).toEqual(rawRows(src));
      const schema = (d: Database.Database) => d.prepare("SELECT name, sql FROM sqlite_master ORDER BY name").all();
      expect(schema(db)).toEqual(schema(src));
      expect(db.prepare('PRAGMA integrity_check').pluck().get()).toBe('ok');
      expect(queryRecords(migrated, {}, { limit: 1000 }).rows).toEqual(queryRecords(archive, {}, { limit: 1000 }).rows);
      expect(migrated.index.cdxjRows(0, 1000)).toEqual(archive.index.cdxjRows(0, 1000));

      const a = path.join(c.out, 'crawl.cdxj');
      const b = path.join(c.out, 'migrated.cdxj');
      await exportCdxj(archive, a);
      await exportCdxj(migrated, b);
      const lines = fs.readFileSync(a, 'utf8');
      expect(lines).toMatch(/"digest":"[A-Z2-7]{32}"/);
      expect(fs.readFileSync(b, 'utf8')).toBe(lines);
    } finally {
      migrated.close();
      src.close();
    }
  });
});

describe('payload digests in other forms, and lookups by digest', () => {
  it('keeps a digest that is not sha1 in base32 (and a date that is not ts plus milliseconds) as its text, finds either kind by its text, and looks digests up through records_digest', () => {
    const db = openDatabase(path.join(tmp.dir, 'mixed.sqlite'));
    try {
      const ix = createCaptureIndex(db);
      const fileId = ix.addFile({ path: 'a.warc', name: 'a.warc', createdAt: 0, source: 'import' });
      const digests = [
        sha1Base32(Buffer.from('one')),
        labelledDigest(Buffer.from('two'), 'sha256'),
        'sha1:' + Buffer.alloc(20, 7).toString('hex'),
        sha1Base32(Buffer.from('three')).toLowerCase(),
      ];
      // Dates as wget (no fraction) and Trove (milliseconds) write them, and one kept as text.
      const dates = ['2024-03-05T10:20:30Z', '2024-03-05T10:20:30.123Z', '2024-03-05T10:20:30+00:00', '2024-03-05T10:20:30.000Z'];
      const rows: RecordRow[] = digests.map((payloadDigest, i) => ({
        fileId,
        offset: 100 * i,
        length: 100,
        recordType: 'response',
        recordId: `<urn:uuid:00000000-0000-4000-8000-00000000000${i}>`,
        targetUri: `http://example.com/${i}`,
        urlkey: `com,example)/${i}`,
        ts: '20240305102030',
        date: dates[i]!,
        mime: 'text/html',
        status: 200,
        payloadDigest,
      }));
      const ids = ix.addRecords(rows);
      expect(db.prepare('SELECT typeof(payload_digest) FROM records ORDER BY id').pluck().all()).toEqual(['blob', 'text', 'text', 'text']);
      expect(db.prepare("SELECT typeof(date) || length(date) FROM records ORDER BY id").pluck().all()).toEqual(['blob0', 'blob2', 'text25', 'blob2']);
      for (const [i, d] of digests.entries()) {
        expect(ix.byId(ids[i]!)!.payloadDigest).toBe(d);
        expect(ix.byId(ids[i]!)!.date).toBe(dates[i]);
        expect(ix.byDigest(d)!.id).toBe(ids[i]);
      }
      expect(ix.byDigest(sha1Base32(Buffer.from('absent')))).toBeNull();

      // Migration 8 stores these rows, written as text by a version-7 build, as above.
      const v7File = path.join(tmp.dir, 'mixed-v7.sqlite');
      const v7 = new Database(v7File);
      migrate(v7, 7);
      v7.transaction(() => {
        for (const t of ['warc_files', 'records']) {
          // Record types and timestamps as text, as before version 9.
          const cols = t === 'records' ? `*, ${recordTypeSql('record_type')} AS record_type, ${tsSql('ts')} AS ts` : '*';
          for (const r of db.prepare(`SELECT ${cols} FROM ${t} ORDER BY id`).all() as Record<string, unknown>[]) {
            // Version 10's fold columns (NULL here: these rows fold nothing) are not in a version-7 table.
            for (const k of ['req_len', 'req_clen', 'meta_len', 'meta_clen']) delete r[k];
            if (t === 'records') {
              r.payload_digest = digestFromKey(r.payload_digest as string | Buffer | null);
              r.date = dateFromKey(r.date as string | Buffer | null, r.ts as string | null);
            }
            v7.prepare(`INSERT INTO ${t} (${Object.keys(r).join(', ')}) VALUES (${Object.keys(r).map((k) => `@${k}`).join(', ')})`).run(r);
          }
        }
      })();
      expect(v7.prepare('SELECT DISTINCT typeof(date) || typeof(payload_digest) FROM records').pluck().all()).toEqual(['texttext']);
      v7.close();
      const migrated = openDatabase(v7File);
      try {
        expect(migrated.prepare('SELECT * FROM records ORDER BY id').all()).toEqual(db.prepare('SELECT * FROM records ORDER BY id').all());
      } finally {
        migrated.close();
      }
      // The blob key goes through the index as the text did (a bound BLOB compares with BLOBs only).
      const sql = (prepareCaptureStatements(db) as unknown as Record<string, Database.Statement>).idByDigest!.source;
      for (const param of [Buffer.alloc(20), 'sha256:X']) {
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(param) as { detail: string }[]).map((p) => p.detail);
        expect(plan.join(' | ')).toMatch(/^SEARCH r USING INDEX records_digest \(payload_digest=\?\)/);
      }
    } finally {
      db.close();
    }
  });
});
