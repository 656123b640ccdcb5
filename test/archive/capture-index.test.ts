import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type Database from 'better-sqlite3';
import { createCaptureIndex } from '../../core/archive/capture-index.ts';
import type { CaptureIndex, RecordRow } from '../../core/archive/capture-index.ts';
import { openDatabase } from '../../core/storage/open-database.ts';
import { makeTempDir } from '../storage/temp-dir.ts';

const tmp = makeTempDir('trove-capture-');
afterAll(() => tmp.remove());
let serial = 0;

function rec(fileId: number, over: Partial<RecordRow> = {}): RecordRow {
  return {
    fileId,
    offset: 0,
    length: 100,
    recordType: 'response',
    recordId: `<urn:uuid:${crypto.randomUUID()}>`,
    targetUri: 'http://example.com/',
    urlkey: 'com,example)/',
    ts: '20240305102030',
    date: '2024-03-05T10:20:30Z',
    mime: 'text/html',
    status: 200,
    payloadDigest: 'sha1:AAAA',
    ...over,
  };
}

describe('capture index', () => {
  let db: Database.Database;
  let ix: CaptureIndex;
  let file: string;
  beforeEach(() => {
    file = path.join(tmp.dir, `capture-${serial++}.sqlite`);
    db = openDatabase(file);
    ix = createCaptureIndex(db);
  });
  afterEach(() => db.close());

  it('registers WARC files, keeps their record counts and refuses a path twice', () => {
    const a = ix.addFile({ path: 'warcs/A.warc.gz', name: 'A.warc.gz', source: 'crawl', createdAt: 5 });
    const b = ix.addFile({ path: '/data/B.warc.gz', name: 'B.warc.gz', source: 'import', byReference: true, size: 77 });
    expect(() => ix.addFile({ path: 'warcs/A.warc.gz', name: 'A.warc.gz', source: 'crawl' })).toThrow(
      expect.objectContaining({ code: 'CAPTURE_FILE_EXISTS' }),
    );
    ix.addRecords([rec(a), rec(a, { offset: 100 }), rec(b)]);
    ix.updateFile(a, { size: 1234 });
    expect(ix.fileById(a)).toEqual({ id: a, path: 'warcs/A.warc.gz', name: 'A.warc.gz', size: 1234, records: 2, createdAt: 5, source: 'crawl', byReference: false });
    expect(ix.fileByPath('/data/B.warc.gz')).toMatchObject({ id: b, size: 77, records: 1, source: 'import', byReference: true });
    expect(ix.files().map((f) => f.name)).toEqual(['A.warc.gz', 'B.warc.gz']);
    expect(ix.fileById(999)).toBeNull();
    expect(ix.count()).toBe(3);
  });

  it('returns ids in order and reads every field back', () => {
    const f = ix.addFile({ path: 'a.warc.gz', name: 'a.warc.gz', source: 'crawl' });
    const full: RecordRow = rec(f, {
      offset: 4096, length: 812, recordType: 'revisit', refersTo: '<urn:uuid:1>', refersToUri: 'http://example.com/',
      refersToDate: '2024-01-01T00:00:00Z', concurrentTo: null, method: 'GET', contentLength: 311, truncated: 'length', title: 'Hi', page: false,
    });
    const ids = ix.addRecords([rec(f), full]);
    expect(ids).toHaveLength(2);
    expect(ids[1]).toBeGreaterThan(ids[0]!);
    const { fileId, ...rest } = full;
    expect(ix.byId(ids[1]!)).toEqual({ id: ids[1], fileId, filePath: 'a.warc.gz', fileName: 'a.warc.gz', ...rest, page: false });
    expect(ix.byRecordId(full.recordId!)!.id).toBe(ids[1]);
    expect(ix.byRecordId('<urn:uuid:none>')).toBeNull();
  });

  it('finds replayable captures of a URL key in time order, skipping requests and metadata', () => {
    const f = ix.addFile({ path: 'a.warc.gz', name: 'a.warc.gz', source: 'crawl' });
    ix.addRecords([
      rec(f, { ts: '20240301000000' }),
      rec(f, { ts: '20240101000000', recordType: 'request' }),
      rec(f, { ts: '20240101000000', recordType: 'metadata' }),
      rec(f, { ts: '20240101000000', recordType: 'revisit' }),
      rec(f, { ts: '20240201000000', recordType: 'resource' }),
      rec(f, { ts: '20240201000000', urlkey: 'com,example)/other' }),
    ]);
    expect(ix.findCaptures('com,example)/').map((c) => [c.ts, c.recordType])).toEqual([
      ['20240101000000', 'revisit'],
      ['20240201000000', 'resource'],
      ['20240301000000', 'response'],
    ]);
    expect(ix.findCaptures('com,nothing)/')).toEqual([]);
  });

  it('picks the closest capture, the later one on a tie, the latest with no time', () => {
    const f = ix.addFile({ path: 'a.warc.gz', name: 'a.warc.gz', source: 'crawl' });
    ix.addRecords(['20240101000000', '20240103000000', '20240110000000'].map((ts) => rec(f, { ts })));
    expect(ix.closest('com,example)/', '20240102000001')!.ts).toBe('20240103000000');
    expect(ix.closest('com,example)/', '20240101235959')!.ts).toBe('20240101000000');
    expect(ix.closest('com,example)/', '20240102000000')!.ts).toBe('20240103000000'); // tie
    expect(ix.closest('com,example)/', '19990101000000')!.ts).toBe('20240101000000');
    expect(ix.closest('com,example)/', '20990101000000')!.ts).toBe('20240110000000');
    expect(ix.closest('com,example)/', '202401')!.ts).toBe('20240101000000'); // partial: start of Jan 2024
    expect(ix.closest('com,example)/')!.ts).toBe('20240110000000');
    expect(ix.closest('com,none)/', '20240101000000')).toBeNull();
    expect(() => ix.closest('com,example)/', '20x4')).toThrow(expect.objectContaining({ code: 'CAPTURE_BAD_TIMESTAMP' }));
  });

  it('resolves a digest to its earliest original response, never to a revisit', () => {
    const f = ix.addFile({ path: 'a.warc.gz', name: 'a.warc.gz', source: 'crawl' });
    ix.addRecords([
      rec(f, { ts: '20230101000000', recordType: 'revisit', payloadDigest: 'sha1:D' }),
      rec(f, { ts: '20240201000000', payloadDigest: 'sha1:D', targetUri: 'http://example.com/b' }),
      rec(f, { ts: '20240101000000', payloadDigest: 'sha1:D', targetUri: 'http://example.com/a' }),
      rec(f, { ts: '20220101000000', payloadDigest: 'sha1:D', recordType: 'request' }),
    ]);
    expect(ix.byDigest('sha1:D')).toMatchObject({ recordType: 'response', targetUri: 'http://example.com/a', ts: '20240101000000' });
    expect(ix.byDigest('sha1:NONE')).toBeNull();
  });

  it('gives a new revisit only a whole response as its original, never a truncated one', () => {
    const f = ix.addFile({ path: 'cut.warc.gz', name: 'cut.warc.gz', source: 'crawl' });
    ix.addRecords([
      rec(f, { ts: '20240101000000', payloadDigest: 'sha1:CUT', targetUri: 'http://example.com/big', truncated: 'length' }),
      rec(f, { ts: '20240102000000', payloadDigest: 'sha1:CUT', targetUri: 'http://example.com/whole' }),
      rec(f, { ts: '20240101000000', payloadDigest: 'sha1:ONLYCUT', targetUri: 'http://example.com/slow', truncated: 'time' }),
    ]);
    expect(ix.originalByDigest('sha1:CUT')).toMatchObject({ targetUri: 'http://example.com/whole' });
    expect(ix.originalByDigest('sha1:ONLYCUT')).toBeNull();
    // Resolving revisits already written still finds the earliest response, cut or not.
    expect(ix.byDigest('sha1:CUT')).toMatchObject({ targetUri: 'http://example.com/big' });
  });

  it('rejects malformed rows with a stable code and indexes none of the batch', () => {
    const f = ix.addFile({ path: 'a.warc.gz', name: 'a.warc.gz', source: 'crawl' });
    expect(() => ix.addRecords([rec(f), rec(f, { ts: '2024-03-05' })])).toThrow(expect.objectContaining({ code: 'CAPTURE_BAD_RECORD' }));
    expect(() => ix.addRecords([rec(f, { offset: -1 })])).toThrow(expect.objectContaining({ code: 'CAPTURE_BAD_RECORD' }));
    expect(() => ix.addRecords([rec(9999)])).toThrow(expect.objectContaining({ code: 'CAPTURE_NO_FILE' }));
    expect(ix.count()).toBe(0);
    expect(ix.fileById(f)!.records).toBe(0);
  });

  it('lists pages in time order', () => {
    const f = ix.addFile({ path: 'a.warc.gz', name: 'a.warc.gz', source: 'crawl' });
    ix.addRecords([rec(f, { ts: '20240102000000', page: true }), rec(f, { page: false }), rec(f, { ts: '20240101000000', page: true, title: 'First' })]);
    expect(ix.pages().map((p) => [p.ts, p.title, p.page])).toEqual([
      ['20240101000000', 'First', true],
      ['20240102000000', null, true],
    ]);
    expect(ix.pages(1, 1)).toHaveLength(1);
  });

  it('searches page text with bm25 ranking and snippets, and survives awkward input', () => {
    const f = ix.addFile({ path: 'a.warc.gz', name: 'a.warc.gz', source: 'crawl' });
    const [a, b, c] = ix.addRecords([rec(f, { page: true }), rec(f, { page: true, targetUri: 'http://example.com/b' }), rec(f)]);
    ix.addPageText(a!, 'Harbour news', 'The harbour reopened after the storm. Ships returned to the harbour at dawn.');
    ix.addPageText(b!, 'Weather', 'A storm is coming. COVID-19 rules apply at the café.');
    ix.addPageText(c!, '', 'nothing relevant here');
    const hits = ix.searchText('harbour');
    expect(hits.map((h) => h.recordId)).toEqual([a]);
    expect(hits[0]).toMatchObject({ title: 'Harbour news', targetUri: 'http://example.com/', ts: '20240305102030' });
    expect(hits[0]!.snippet).toContain('[harbour]');
    expect(ix.searchText('storm').map((h) => h.recordId).sort()).toEqual([a, b].sort());
    expect(ix.searchText('storm ships').map((h) => h.recordId)).toEqual([a]); // words are ANDed
    expect(ix.searchText('"harbour reopened"').map((h) => h.recordId)).toEqual([a]); // a phrase: next to each other, in order
    expect(ix.searchText('"reopened harbour"')).toEqual([]);
    expect(ix.searchText('"storm is" coming').map((h) => h.recordId)).toEqual([b]);
    expect(ix.searchText('harb*').map((h) => h.recordId)).toEqual([a]);
    expect(ix.searchText('covid-19').map((h) => h.recordId)).toEqual([b]);
    expect(ix.searchText('cafe').map((h) => h.recordId)).toEqual([b]); // diacritics folded
    expect(ix.searchText('"unbalanced OR (').map((h) => h.recordId)).toEqual([]);
    expect(ix.searchText('  - ')).toEqual([]);
    expect(ix.searchText('storm', 10, { mark: ['<b>', '</b>'] })[0]!.snippet).toContain('<b>storm</b>');
    expect(ix.searchText('storm NOT ships', 10, { raw: true }).map((h) => h.recordId)).toEqual([b]);
    expect(() => ix.searchText('"unbalanced', 10, { raw: true })).toThrow(expect.objectContaining({ code: 'SEARCH_QUERY_INVALID' }));
    expect(ix.byId(a!)!.title).toBe('Harbour news');
    expect(ix.byId(c!)!.title).toBeNull();
    // Replacing text replaces, not duplicates.
    ix.addPageText(a!, 'Harbour news', 'calm seas');
    expect(ix.searchText('harbour')).toEqual([expect.objectContaining({ recordId: a })]); // title still matches
    expect(ix.searchText('ships')).toEqual([]);
    expect(() => ix.addPageText(424242, 't', 'x')).toThrow(expect.objectContaining({ code: 'CAPTURE_NO_RECORD' }));
  });

  it('ranks the newest matches when more pages match than it ranks, and says so', () => {
    const f = ix.addFile({ path: 'a.warc.gz', name: 'a.warc.gz', source: 'crawl' });
    const ids = ix.addRecords([1, 2, 3, 4].map((i) => rec(f, { offset: i * 100, page: true })));
    // The oldest page is the best match by far; with 3 candidates it is left out.
    ix.addPageText(ids[0]!, 'Tide', 'tide tide tide tide');
    ix.addPageText(ids[1]!, 'One', 'tide and many other words about the sea and the shore and the wind');
    ix.addPageText(ids[2]!, 'Two', 'tide tide and the moon');
    ix.addPageText(ids[3]!, 'Three', 'no such word');
    const all = ix.searchText('tide');
    expect(all.map((h) => h.recordId)).toEqual([ids[0], ids[2], ids[1]]);
    expect(all.every((h) => h.rankedAmong === undefined)).toBe(true);
    expect(ix.searchText('tide', 10, { candidates: 3 }).map((h) => h.recordId)).toEqual([ids[0], ids[2], ids[1]]); // exactly 3 match: all ranked
    const newest = ix.searchText('tide', 10, { candidates: 2 });
    expect(newest.map((h) => [h.recordId, h.rankedAmong])).toEqual([[ids[2], 2], [ids[1], 2]]);
    expect(newest[0]!.snippet).toContain('[tide]');
    expect(ix.searchText('tide', 1, { candidates: 2 }).map((h) => h.recordId)).toEqual([ids[2]]);
  });

  it('deletes one file’s records and their text for a re-import, leaving other files alone', () => {
    const f = ix.addFile({ path: 'a.warc.gz', name: 'a.warc.gz', source: 'import' });
    const g = ix.addFile({ path: 'b.warc.gz', name: 'b.warc.gz', source: 'import' });
    const [a] = ix.addRecords([rec(f, { page: true }), rec(f, { offset: 100 })]);
    const [b] = ix.addRecords([rec(g, { page: true })]);
    ix.addPageText(a!, 'A', 'alpha words');
    ix.addPageText(b!, 'B', 'alpha too');
    expect(ix.deleteFileRecords(f)).toBe(2);
    expect(ix.count()).toBe(1);
    expect(ix.fileById(f)!.records).toBe(0);
    expect(ix.searchText('alpha').map((h) => h.recordId)).toEqual([b]);
    expect(ix.addRecords([rec(f)])).toHaveLength(1);
    expect(ix.fileById(f)!.records).toBe(1);
  });

  it('keeps everything across a reopen', () => {
    const f = ix.addFile({ path: 'a.warc.gz', name: 'a.warc.gz', source: 'crawl' });
    const [a] = ix.addRecords([rec(f, { page: true })]);
    ix.addPageText(a!, 'Kept', 'persistent text');
    db.close();
    db = openDatabase(file);
    ix = createCaptureIndex(db);
    expect(ix.count()).toBe(1);
    expect(ix.searchText('persistent')[0]!.recordId).toBe(a);
  });
});
