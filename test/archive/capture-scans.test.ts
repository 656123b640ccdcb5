/**
 * The capture index's scans (capture-scans.ts), the queries exports, replay's fuzzy match,
 * reports, the exclude preview and crash recovery ask it for: keyset pages that neither skip nor
 * repeat a row, the filters each scan promises, and counts. Real SQLite, rows put in through the
 * index's own addRecords.
 */
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type Database from 'better-sqlite3';
import { createCaptureIndex } from '../../core/archive/capture-index.ts';
import type { CaptureIndex, RecordRow } from '../../core/archive/capture-index.ts';
import { capturesMatching } from '../../core/archive/capture-preview.ts';
import { surtKey } from '../../core/scope/surt.ts';
import { openDatabase } from '../../core/storage/open-database.ts';
import { makeTempDir } from '../storage/temp-dir.ts';

const tmp = makeTempDir('trove-scans-');
afterAll(() => tmp.remove());
let serial = 0;
let offset = 0;

function rec(fileId: number, url: string, over: Partial<RecordRow> = {}): RecordRow {
  offset += 100;
  return {
    fileId,
    offset,
    length: 100,
    recordType: 'response',
    recordId: `<urn:uuid:${crypto.randomUUID()}>`,
    targetUri: url,
    urlkey: surtKey(url),
    ts: '20240305102030',
    date: '2024-03-05T10:20:30Z',
    mime: 'text/html',
    status: 200,
    payloadDigest: 'sha1:AAAA',
    ...over,
  };
}

/** Every row of a keyset scan, `limit` at a time. */
function all<T extends { id: number }>(page: (after: number, limit: number) => T[], limit: number): T[] {
  const out: T[] = [];
  for (let after = 0; ; ) {
    const rows = page(after, limit);
    if (rows.length === 0) return out;
    out.push(...rows);
    after = rows.at(-1)!.id;
  }
}

describe('capture index scans', () => {
  let db: Database.Database;
  let ix: CaptureIndex;
  let f: number;
  beforeEach(() => {
    db = openDatabase(path.join(tmp.dir, `scans-${serial++}.sqlite`));
    ix = createCaptureIndex(db);
    f = ix.addFile({ path: 'warcs/A.warc.gz', name: 'A.warc.gz', source: 'crawl' });
  });
  afterEach(() => db.close());

  it('pages: counted, read in id order without gaps or repeats, their text, the first page of a URL or of all', () => {
    const ids = ix.addRecords([
      rec(f, 'http://a.test/2', { page: true, ts: '20240302000000', title: 'Two' }),
      rec(f, 'http://a.test/style.css', { mime: 'text/css' }),
      rec(f, 'http://a.test/1', { page: true, ts: '20240301000000', title: 'One' }),
      rec(f, 'http://a.test/2', { page: true, ts: '20240303000000' }),
      rec(f, 'http://a.test/', { recordType: 'request', status: null, mime: null }),
    ]);
    ix.addPageText(ids[2]!, 'One', 'the first words');
    expect(ix.countPages()).toBe(3);
    expect(all((a, n) => ix.pagesAfter(a, n), 2).map((p) => p.id)).toEqual([ids[0], ids[2], ids[3]]);
    expect(ix.pagesAfter(0, 1)[0]).toEqual({ id: ids[0], recordId: expect.stringMatching(/^<urn:uuid:/), targetUri: 'http://a.test/2', ts: '20240302000000', date: '2024-03-05T10:20:30Z', title: 'Two' });
    expect(ix.pageText(ids[2]!)).toBe('the first words');
    expect(ix.pageText(ids[0]!)).toBeNull();
    expect(ix.firstPage(surtKey('http://a.test/2'))?.id).toBe(ids[0]);
    expect(ix.firstPage()?.id).toBe(ids[2]);
    expect(ix.firstPage(surtKey('http://a.test/nothing'))).toBeNull();
  });

  it('CDXJ and report rows: the record types each takes, every row once', () => {
    const ids = ix.addRecords([
      rec(f, 'http://a.test/'),
      rec(f, 'http://a.test/', { recordType: 'request', status: null }),
      rec(f, 'http://a.test/', { recordType: 'metadata', status: null, mime: 'application/warc-fields' }),
      rec(f, 'http://a.test/x', { recordType: 'revisit', status: 304, contentLength: 0 }),
      rec(f, 'http://a.test/r', { recordType: 'resource', status: null, contentLength: 12 }),
      rec(f, null as unknown as string, { recordType: 'warcinfo', targetUri: null, urlkey: null, status: null }),
    ]);
    expect(ix.countCdxjRows()).toBe(4);
    expect(all((a, n) => ix.cdxjRows(a, n), 3).map((r) => [r.id, r.recordType])).toEqual([
      [ids[0], 'response'],
      [ids[2], 'metadata'],
      [ids[3], 'revisit'],
      [ids[4], 'resource'],
    ]);
    expect(ix.cdxjRows(0, 1)[0]).toMatchObject({ fileId: f, targetUri: 'http://a.test/', urlkey: 'test,a)/', payloadDigest: 'sha1:AAAA', method: null });
    expect(all((a, n) => ix.reportCaptures(a, n), 1).map((r) => [r.recordType, r.status, r.contentLength])).toEqual([
      ['response', 200, null],
      ['revisit', 304, 0],
      ['resource', null, 12],
    ]);
  });

  it('the latest 200 GET capture per URL key, in key order, keyset-paged by key', () => {
    ix.addRecords([
      rec(f, 'http://b.test/', { ts: '20240101000000' }),
      rec(f, 'http://b.test/', { ts: '20240301000000', mime: 'text/plain' }),
      rec(f, 'http://b.test/', { ts: '20240401000000', status: 404 }),
      rec(f, 'http://a.test/gone', { status: 404 }),
      rec(f, 'http://a.test/post', { method: 'POST' }),
      rec(f, 'http://a.test/file.txt', { recordType: 'resource', status: null, mime: 'text/plain' }),
      rec(f, 'http://c.test/', { recordType: 'request', status: null }),
    ]);
    const first = ix.latestOkCaptures('', 1);
    expect(first).toEqual([{ urlkey: 'test,a)/file.txt', ts: '20240305102030', targetUri: 'http://a.test/file.txt', mime: 'text/plain' }]);
    expect(ix.latestOkCaptures(first[0]!.urlkey, 10)).toEqual([{ urlkey: 'test,b)/', ts: '20240301000000', targetUri: 'http://b.test/', mime: 'text/plain' }]);
  });

  it('fuzzy candidates: the URL without its query and its `?…` keys, replayable captures only, capped', () => {
    const ids = ix.addRecords([
      rec(f, 'http://a.test/p'),
      rec(f, 'http://a.test/p?b=1'),
      rec(f, 'http://a.test/p?a=2', { recordType: 'revisit' }),
      rec(f, 'http://a.test/p?a=3', { recordType: 'request', status: null }),
      rec(f, 'http://a.test/pq'),
      rec(f, 'http://a.test/p/x'),
    ]);
    const base = surtKey('http://a.test/p');
    expect(ix.fuzzyCandidates(base, 100).map((r) => r.id).sort()).toEqual([ids[0], ids[1], ids[2]].sort());
    expect(ix.fuzzyCandidates(base, 1)).toHaveLength(2); // the exact key, then one `?` key
    expect(ix.fuzzyCandidates(base, 100)[0]).toEqual({ id: ids[0], urlkey: base, ts: '20240305102030', url: 'http://a.test/p' });
  });

  it("a host's pages by key range; response URIs for the exclude preview", () => {
    ix.addRecords([
      rec(f, 'http://a.test/1', { page: true }),
      rec(f, 'http://a.test:8080/2', { page: true }),
      rec(f, 'http://b.test/3', { page: true }),
      rec(f, 'http://a.test/cal/1', { recordType: 'revisit' }),
      rec(f, 'http://a.test/cal/2', { recordType: 'resource', status: null }),
    ]);
    expect(ix.pagesInKeyRange('test,a)', 'test,a*', 5)).toEqual([{ url: 'http://a.test/1', ts: '20240305102030' }]);
    expect([...ix.responseUris()]).toEqual(['http://a.test/1', 'http://a.test:8080/2', 'http://b.test/3', 'http://a.test/cal/1']);
    expect(capturesMatching(ix, /\/cal\//, 5)).toEqual({ count: 1, complete: true, samples: ['http://a.test/cal/1'] });
    expect(capturesMatching(ix, /test/, 1, 2)).toEqual({ count: 2, complete: false, samples: ['http://a.test/1'] });
  });

  it('crash recovery: offsets of a file, rows past its end dropped, several writes in one transaction', () => {
    const g = ix.addFile({ path: 'warcs/B.warc.gz', name: 'B.warc.gz', source: 'crawl' });
    ix.addRecords([rec(f, 'http://a.test/', { offset: 0 }), rec(f, 'http://a.test/', { offset: 500 }), rec(f, 'http://a.test/', { offset: 900 }), rec(g, 'http://a.test/', { offset: 900 })]);
    expect(ix.recordOffsets(f).sort((a, b) => a - b)).toEqual([0, 500, 900]);
    expect(ix.deleteRecordsFrom(f, 500)).toBe(2);
    expect(ix.recordOffsets(f)).toEqual([0]);
    expect(ix.recordOffsets(g)).toEqual([900]);
    expect(() =>
      ix.transaction(() => {
        ix.addRecords([rec(f, 'http://a.test/', { offset: 100 })]);
        throw new Error('rolled back');
      }),
    ).toThrow('rolled back');
    expect(ix.recordOffsets(f)).toEqual([0]);
  });
});
