/**
 * Schema 10's folded children (issue 20: database bytes per URI): a capture's request and
 * metadata records, written right after it with ids derived from its own, are stored in its row
 * (archive/capture-folds.ts). What is checked: the rule (what folds, what keeps a row of its own,
 * which ids the records get), that the WARC a crawl writes carries the derived ids (read back by
 * warcio), and that every reader of a folded crawl answers exactly as the same archive unfolded
 * into version 9's compact rows: records browser pages, filters, totals and keyset paging, WARC
 * subsets and their neighbours, lookups by id and record id, CDXJ rows and the CDXJ export, the
 * WARC subset export, the detail view, the per-file offsets and the truncation a recovery makes.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCaptureIndex } from '../../core/archive/capture-index.ts';
import type { CaptureIndex, RecordRow } from '../../core/archive/capture-index.ts';
import { databaseOf, openArchive } from '../../core/archive/archive-dir.ts';
import type { Archive } from '../../core/archive/archive-dir.ts';
import { queryRecords } from '../../core/archive/record-query.ts';
import { recordDetail } from '../../core/archive/record-query-detail.ts';
import { RecordSubset } from '../../core/archive/record-subset.ts';
import type { RecordFilter } from '../../core/api/archive-types.ts';
import { exportCdxj } from '../../core/export/export-cdxj.ts';
import { exportWarcSubset } from '../../core/export/export-warc-subset.ts';
import { openDatabase } from '../../core/storage/open-database.ts';
import { childRecordId } from '../../core/warc/child-record-id.ts';
import { newRecordId } from '../../core/warc/record-header.ts';
import { crawlFixture } from '../export/export-fixture.ts';
import type { CrawledArchive } from '../export/export-fixture.ts';
import { readWarcDir, readWarcFile } from '../helpers/read-warcs.ts';
import type { ReadRecord } from '../helpers/read-warcs.ts';
import { unfoldedCopy } from '../helpers/unfold-records.ts';
import { makeTempDir } from '../storage/temp-dir.ts';
import { asRead, fetchRows } from '../helpers/fetch-rows.ts';

const tmp = makeTempDir('trove-folded-');

/** An in-memory copy of a database (its header's WAL mode bytes set back to rollback, which a deserialized database needs). */
function memoryCopy(db: Database.Database): Database.Database {
  const bytes = db.serialize();
  bytes[18] = 1;
  bytes[19] = 1;
  return new Database(bytes);
}
afterAll(() => tmp.remove());
let serial = 0;

describe('folded children: the rule', () => {
  let db: Database.Database;
  let ix: CaptureIndex;
  let fileId: number;
  const file = { path: 'warcs/a.warc.gz', name: 'a.warc.gz' };
  const physical = () => db.prepare('SELECT id, parent_id, req_len, req_clen, meta_len, meta_clen FROM records ORDER BY id').all();
  beforeEach(() => {
    db = openDatabase(path.join(tmp.dir, `rule-${serial++}.sqlite`));
    ix = createCaptureIndex(db);
    fileId = ix.addFile({ ...file, source: 'crawl' });
  });
  afterEach(() => db.close());

  it('stores a crawl group as one row, gives its records consecutive ids, and reads each back as written', () => {
    const rows = fetchRows(fileId, 0, {}, 'derived');
    const ids = ix.addRecords(rows);
    expect(ids).toEqual([1, 2, 3]);
    expect(physical()).toEqual([{ id: 1, parent_id: null, req_len: 80, req_clen: 70, meta_len: 60, meta_clen: 50 }]);
    rows.forEach((r, i) => {
      expect(ix.byId(ids[i]!)).toEqual(asRead(r, ids[i]!, file));
      expect(ix.byRecordId(r.recordId!)).toEqual(asRead(r, ids[i]!, file));
    });
    expect(ix.byId(4)).toBeNull();
    expect(ix.count()).toBe(3);
    expect(ix.fileById(fileId)!.records).toBe(3);
    expect(ix.recordOffsets(fileId)).toEqual([0, 100, 180]);
    expect(ix.cdxjRows(0, 10).map((r) => [r.id, r.recordType, r.offset, r.length, r.mime, r.urlkey])).toEqual([
      [1, 'response', 0, 100, 'text/html', 'com,example)/a'],
      [3, 'metadata', 180, 60, 'application/warc-fields', 'com,example)/a'],
    ]);
    expect(ix.cdxjRows(1, 10).map((r) => r.id)).toEqual([3]);
    expect(ix.countCdxjRows()).toBe(2);
    // The next batch's ids come after the folded ones.
    expect(ix.addRecords(fetchRows(fileId, 240, {}, 'derived'))).toEqual([4, 5, 6]);
    expect(ix.addRecords([{ ...fetchRows(fileId, 480, {}, 'derived')[0]!, recordType: 'warcinfo', recordId: newRecordId() }])).toEqual([7]);
  });

  it('folds a metadata record without a request in the first place, its id still the metadata one', () => {
    const [response, , metadata] = fetchRows(fileId, 0, {}, 'derived');
    const m = { ...metadata!, offset: 100 };
    const ids = ix.addRecords([response!, m]);
    expect(ids).toEqual([1, 2]);
    expect(physical()).toEqual([{ id: 1, parent_id: null, req_len: null, req_clen: null, meta_len: 60, meta_clen: 50 }]);
    expect(ix.byId(2)).toEqual(asRead(m, 2, file));
    expect(ix.byRecordId(m.recordId!)?.id).toBe(2);
  });

  it('keeps a row of its own for every child the fold would not give back exactly', () => {
    const cases: [string, (g: RecordRow[]) => RecordRow[]][] = [
      ['a random record id', ([r, q, m]) => [r!, { ...q!, recordId: newRecordId() }, m!]],
      ['a gap before the request', ([r, q, m]) => [r!, { ...q!, offset: 101 }, { ...m!, offset: 181 }]],
      ['the other method', ([r, q, m]) => [r!, { ...q!, method: 'HEAD' }, m!]],
      ['a status', ([r, q, m]) => [r!, { ...q!, status: 200 }, m!]],
      ['a payload digest', ([r, q, m]) => [r!, q!, { ...m!, payloadDigest: 'sha1:BBBB' }]],
      ['a title', ([r, q, m]) => [r!, q!, { ...m!, title: 'x' }]],
      ['a truncation', ([r, q, m]) => [r!, { ...q!, truncated: 'length' }, m!]],
      ['its own date', ([r, q, m]) => [r!, { ...q!, date: '2024-03-05T10:20:31Z' }, m!]],
      ['another media type', ([r, q, m]) => [r!, q!, { ...m!, mime: 'text/plain' }]],
      ['another file', ([r, q, m]) => [r!, { ...q!, fileId: 99 }, m!]],
      ['metadata before the request', ([r, q, m]) => [r!, { ...m!, offset: 100 }, { ...q!, offset: 160 }]],
      ['a capture id that does not derive', ([r, q, m]) => [{ ...r!, recordId: '<http://example.com/r>' }, { ...q!, concurrentTo: '<http://example.com/r>' }, { ...m!, concurrentTo: '<http://example.com/r>' }]],
    ];
    ix.addFile({ path: 'warcs/b.warc.gz', name: 'b.warc.gz', source: 'crawl' }); // id 2
    for (const [name, make] of cases) {
      const group = make(fetchRows(fileId, 10_000 * serial++, {}, 'derived')).map((r) => (r.fileId === 99 ? { ...r, fileId: 2 } : r));
      const ids = ix.addRecords(group);
      const got = group.map((r, i) => ix.byId(ids[i]!));
      group.forEach((r, i) => expect(got[i], `${name}: ${r.recordType}`).toEqual(asRead(r, ids[i]!, r.fileId === 2 ? { path: 'warcs/b.warc.gz', name: 'b.warc.gz' } : file)));
      // Whatever folded, the rows and the folded records together are the group, in order.
      expect(ids, name).toEqual([ids[0]!, ids[0]! + 1, ids[0]! + 2]);
    }
    const rows = physical() as { req_len: number | null; meta_len: number | null }[];
    // Only 'metadata before the request' folds one child (the metadata record in the first place); the rest fold the
    // children before the one that differs.
    expect(rows.length).toBeGreaterThan(cases.length * 2 - 6);
  });

  it('keeps rows for children that come in a later batch than their capture (compact, as before)', () => {
    const [response, request, metadata] = fetchRows(fileId, 0, {}, 'derived');
    expect(ix.addRecords([response!])).toEqual([1]);
    expect(ix.addRecords([request!, metadata!])).toEqual([2, 3]);
    expect((physical() as { parent_id: number | null }[]).map((r) => r.parent_id)).toEqual([null, 1, 1]);
    expect(ix.byId(3)).toEqual(asRead(metadata!, 3, file));
  });

  it('drops folded children at or past a cut, and counts them in what a delete removes', () => {
    const cut = (at: number) => {
      const d = memoryCopy(db);
      try {
        const x = createCaptureIndex(d);
        const n = x.deleteRecordsFrom(fileId, at);
        return { n, offsets: x.recordOffsets(fileId), count: x.count() };
      } finally {
        d.close();
      }
    };
    ix.addRecords([...fetchRows(fileId, 0, {}, 'derived'), ...fetchRows(fileId, 240, {}, 'derived')]);
    expect(cut(480)).toEqual({ n: 0, offsets: [0, 100, 180, 240, 340, 420], count: 6 });
    expect(cut(420)).toEqual({ n: 1, offsets: [0, 100, 180, 240, 340], count: 5 });
    expect(cut(341)).toEqual({ n: 1, offsets: [0, 100, 180, 240, 340], count: 5 });
    expect(cut(340)).toEqual({ n: 2, offsets: [0, 100, 180, 240], count: 4 });
    expect(cut(240)).toEqual({ n: 3, offsets: [0, 100, 180], count: 3 });
    expect(cut(100)).toEqual({ n: 5, offsets: [0], count: 1 });
    expect(cut(0)).toEqual({ n: 6, offsets: [], count: 0 });
    expect(ix.deleteFileRecords(fileId)).toBe(6);
  });
});

describe('folded children in a real crawl', () => {
  let c: CrawledArchive;
  let archive: Archive;
  let plain: Archive;
  let warc: ReadRecord[];
  let maxId: number;
  beforeAll(async () => {
    c = await crawlFixture('folded');
    archive = openArchive(c.dir, { create: false });
    const dir = path.join(tmp.dir, 'plain');
    await unfoldedCopy(archive, c.dir, dir);
    plain = openArchive(dir, { create: false });
    warc = (await readWarcDir(path.join(c.dir, 'warcs'))).filter((r) => r.type !== 'warcinfo');
    maxId = archive.index.count() + 3;
  }, 60_000);
  afterAll(async () => {
    archive?.close();
    plain?.close();
    await c?.cleanup();
  });

  it('writes request and metadata ids derived from their response (read back by warcio), and folds every one', () => {
    const children = warc.filter((r) => r.type === 'request' || r.type === 'metadata');
    expect(children.length).toBeGreaterThan(20);
    for (const r of children) expect(r.recordId, r.type).toBe(childRecordId(r.concurrentTo[0]!, r.type as 'request' | 'metadata'));
    expect(new Set(warc.map((r) => r.recordId)).size).toBe(warc.length);
    const folded = databaseOf(archive).prepare('SELECT COUNT(req_len) + COUNT(meta_len) FROM records').pluck().get();
    expect(folded).toBe(children.length);
    expect(databaseOf(plain).prepare('SELECT COUNT(*) FROM records WHERE parent_id IS NOT NULL').pluck().get()).toBe(children.length);
    expect(archive.index.count()).toBe(plain.index.count());
  });

  it('answers the records browser as the unfolded archive does: pages, totals and keyset paging under every filter', () => {
    const listed = queryRecords(plain, {}, { limit: 1000 }).rows;
    const page = listed.find((r) => r.type === 'response' && r.url === c.site.origin + '/')!;
    const stamps = [...new Set(listed.map((r) => r.ts!))].sort();
    const later = stamps[Math.min(1, stamps.length - 1)]!;
    const host = new URL(c.site.origin).host;
    const filters: RecordFilter[] = [
      {},
      { type: ['request'] }, { type: ['metadata'] }, { type: ['response'] }, { type: ['request', 'metadata'] }, { type: ['response', 'metadata'] },
      { type: ['Request'] }, { type: ['revisit', 'request'] },
      { url: page.url! }, { url: page.url!, type: ['metadata'] }, { urlPrefix: `${c.site.origin}/img/` }, { host }, { host, type: ['request'] },
      { from: later }, { to: later }, { from: stamps[0]!, to: stamps.at(-1)! }, { to: later, type: ['metadata', 'response'] },
      { status: [200] }, { status: [200, 404] }, { status: [200], type: ['request'] }, { host, status: [301, 200], from: later },
      { mime: 'application/http' }, { mime: 'application/warc-fields' }, { mime: 'application/' }, { mime: 'text/html' }, { mime: 'APPLICATION/HTTP' },
      { mime: 'application/http', url: page.url! }, { text: 'fixture' }, { text: 'fixture', type: ['request'] },
    ];
    for (const f of filters) {
      const want = queryRecords(plain, f, { limit: 1000 });
      expect(queryRecords(archive, f, { limit: 1000 }), JSON.stringify(f)).toEqual(want);
      for (const limit of [1, 2, 5]) {
        let after: number | undefined;
        for (let i = 0; i < 200; i++) {
          const req = { limit, ...(after !== undefined ? { after } : {}) };
          const got = queryRecords(archive, f, req);
          expect(got, `${JSON.stringify(f)} ${JSON.stringify(req)}`).toEqual(queryRecords(plain, f, req));
          if (got.next === null) break;
          after = got.next;
        }
      }
    }
  });

  it('picks the same WARC subset records and neighbours', () => {
    const host = new URL(c.site.origin).host;
    for (const f of [{}, { host }, { type: ['request'] }, { type: ['response'] }, { mime: 'application/warc-fields' }, { status: [200] }] as RecordFilter[]) {
      const a = new RecordSubset(archive, f);
      const b = new RecordSubset(plain, f);
      expect(a.count(), JSON.stringify(f)).toBe(b.count());
      for (let id = 0; id <= maxId; id++) expect(a.includes(id), `${JSON.stringify(f)} ${id}`).toBe(b.includes(id));
      for (const limit of [1, 3, 1000]) {
        for (let after = 0, i = 0; i < 200; i++) {
          const pa = a.page(after, limit);
          expect(pa, `${JSON.stringify(f)} ${after}`).toEqual(b.page(after, limit));
          if (pa.length === 0) break;
          after = pa.at(-1)!.id;
        }
      }
    }
    const s = new RecordSubset(archive, {});
    const t = new RecordSubset(plain, {});
    for (const w of warc) {
      const fileId = archive.index.files().find((f) => f.name === w.file)!.id;
      for (const n of [1, 2, 4]) {
        for (const at of [w.offset, w.offset + 1]) expect(s.neighbours(fileId, at, n), `${w.offset} ${n}`).toEqual(t.neighbours(fileId, at, n));
      }
    }
  });

  it('finds every record by id and record id, lists the same CDXJ rows and offsets, and shows the same detail', async () => {
    for (let id = 0; id <= maxId; id++) expect(archive.index.byId(id), String(id)).toEqual(plain.index.byId(id));
    for (const w of warc) expect(archive.index.byRecordId(w.recordId), w.recordId).toEqual(plain.index.byRecordId(w.recordId));
    expect(archive.index.byRecordId(childRecordId(newRecordId(), 'request')!)).toBeNull();
    expect(archive.index.countCdxjRows()).toBe(plain.index.countCdxjRows());
    for (const limit of [1, 7, 1000]) {
      for (let after = 0, i = 0; i < 200; i++) {
        const rows = archive.index.cdxjRows(after, limit);
        expect(rows, `${after} ${limit}`).toEqual(plain.index.cdxjRows(after, limit));
        if (rows.length === 0) break;
        after = rows.at(-1)!.id;
      }
    }
    for (const f of archive.index.files()) expect(archive.index.recordOffsets(f.id).sort((x, y) => x - y)).toEqual(plain.index.recordOffsets(f.id).sort((x, y) => x - y));
    for (let id = 1; id <= archive.index.count(); id++) {
      expect(await recordDetail(archive, id), String(id)).toEqual(await recordDetail(plain, id));
    }
  });

  it('truncates alike at every record offset, as a recovery does', () => {
    const files = archive.index.files();
    for (const w of warc.filter((_, i) => i < 24)) {
      const fileId = files.find((f) => f.name === w.file)!.id;
      const after = (a: Archive) => {
        const d = memoryCopy(databaseOf(a));
        try {
          const x = createCaptureIndex(d);
          const n = x.deleteRecordsFrom(fileId, w.offset);
          return { n, count: x.count(), offsets: x.recordOffsets(fileId).sort((p, q) => p - q), rows: Array.from({ length: x.count() + 3 }, (_, i) => x.byId(i)) };
        } finally {
          d.close();
        }
      };
      expect(after(archive), String(w.offset)).toEqual(after(plain));
    }
  });

  it('exports the same CDXJ and WARC subset bytes', async () => {
    // The same file names in two folders; the subset's warcinfo names its source too, so records are compared after it.
    for (const [name, a] of [['folded', archive], ['plain', plain]] as const) {
      fs.mkdirSync(path.join(c.out, name));
      await exportCdxj(a, path.join(c.out, name, 'all.cdxj'));
      await exportWarcSubset(a, path.join(c.out, name, 'subset.warc.gz'), { host: new URL(c.site.origin).host });
    }
    const cdxj = fs.readFileSync(path.join(c.out, 'folded', 'all.cdxj'), 'utf8');
    expect(cdxj.split('\n').length).toBeGreaterThan(10);
    expect(fs.readFileSync(path.join(c.out, 'plain', 'all.cdxj'), 'utf8')).toBe(cdxj);
    const read = async (name: string) => {
      const rs = await readWarcFile(path.join(c.out, name, 'subset.warc.gz'));
      const start = rs.find((r) => r.type !== 'warcinfo')!.offset;
      return rs.filter((r) => r.type !== 'warcinfo').map((r) => ({ ...r, offset: r.offset - start }));
    };
    const subset = await read('folded');
    expect(subset.filter((r) => r.type === 'metadata').length).toBeGreaterThan(5);
    expect(subset).toEqual(await read('plain'));
  });
});
