/**
 * Page text in shards (core/archive/text-shards.ts): with shards a few pages long, search, the
 * records browser's text filter, page text for exports, deletes and rewrites must see one index,
 * and an archive indexed before shards keeps its text and begins a shard after it.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCaptureIndex } from '../../core/archive/capture-index.ts';
import type { CaptureIndex, RecordRow } from '../../core/archive/capture-index.ts';
import { openArchive } from '../../core/archive/archive-dir.ts';
import { queryRecords } from '../../core/archive/record-query.ts';
import Database from 'better-sqlite3';
import { crawlDatabasePath, openDatabase } from '../../core/storage/open-database.ts';
import { migrate } from '../../core/storage/migrations.ts';
import { makeTempDir } from '../storage/temp-dir.ts';

const tmp = makeTempDir('trove-shards-');
afterAll(() => tmp.remove());
let serial = 0;

function rec(fileId: number, i: number): RecordRow {
  return {
    fileId, offset: i * 100, length: 100, recordType: 'response', recordId: `<urn:uuid:${crypto.randomUUID()}>`,
    targetUri: `http://example.com/${i}`, urlkey: `com,example)/${i}`, ts: '20240305102030', date: '2024-03-05T10:20:30Z',
    mime: 'text/html', status: 200, payloadDigest: 'sha1:AAAA', page: true,
  };
}

/** Shards of about two pages: every page's text is 40–60 characters. */
const SMALL = 100;

function shardCount(file: string): number {
  const db = openDatabase(file);
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM text_shards').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** Twelve pages: every one says `tide`, every third `storm` (ids[0], ids[3], …), the last one `moon` too. */
function twelvePages(ix: CaptureIndex): number[] {
  const f = ix.addFile({ path: 'a.warc.gz', name: 'a.warc.gz', source: 'crawl' });
  const ids = ix.addRecords(Array.from({ length: 12 }, (_, i) => rec(f, i)));
  ids.forEach((id, i) => ix.addPageText(id, `Page ${i}`, `tide number ${i}${i % 3 === 0 ? ' storm storm storm' : ' calm water here'}${i === 11 ? ' moon' : ''}`));
  return ids;
}

describe('text shards', () => {
  it('search, page text and rewrites see every shard as one index', () => {
    const file = path.join(tmp.dir, `shards-${serial++}.sqlite`);
    const db = openDatabase(file);
    const ix = createCaptureIndex(db, { textShardChars: SMALL });
    const ids = twelvePages(ix);
    expect(shardCount(file)).toBeGreaterThanOrEqual(4);

    // Every match, from every shard, best first.
    const storm = ix.searchText('storm', 50);
    expect(storm.map((h) => h.recordId).sort((a, b) => a - b)).toEqual([ids[0], ids[3], ids[6], ids[9]]);
    expect(storm.every((h) => h.rankedAmong === undefined && h.snippet.includes('[storm]'))).toBe(true);
    expect(ix.searchText('tide', 50)).toHaveLength(12);
    expect(ix.searchText('moon').map((h) => h.recordId)).toEqual([ids[11]]);
    expect(ix.searchText('"storm storm" tide', 50)).toHaveLength(4); // a phrase and a word, in every shard
    expect(ix.searchText('sto*', 50)).toHaveLength(4);

    // The newest candidates, counted across shard boundaries.
    const newest = ix.searchText('tide', 50, { candidates: 5 });
    expect(newest.map((h) => h.recordId).sort((a, b) => a - b)).toEqual(ids.slice(7));
    expect(newest.every((h) => h.rankedAmong === 5)).toBe(true);
    expect(ix.searchText('storm', 50, { candidates: 3 }).map((h) => h.recordId).sort((a, b) => a - b)).toEqual([ids[3], ids[6], ids[9]]);
    expect(ix.searchText('storm', 2, { candidates: 3 })).toHaveLength(2);

    // Text of a page in the oldest shard, and a rewrite of it that stays one row.
    expect(ix.pageText(ids[0]!)).toContain('tide number 0');
    ix.addPageText(ids[0]!, 'Page 0', 'rewritten lighthouse');
    expect(ix.searchText('lighthouse').map((h) => h.recordId)).toEqual([ids[0]]);
    expect(ix.searchText('storm', 50)).toHaveLength(3);
    expect(ix.pageText(ids[0]!)).toBe('rewritten lighthouse');
    db.close();
  });

  it('writes text that arrives late to the shard whose range holds its id', () => {
    const file = path.join(tmp.dir, `shards-${serial++}.sqlite`);
    const db = openDatabase(file);
    const ix = createCaptureIndex(db, { textShardChars: SMALL });
    const f = ix.addFile({ path: 'a.warc.gz', name: 'a.warc.gz', source: 'crawl' });
    const ids = ix.addRecords(Array.from({ length: 8 }, (_, i) => rec(f, i)));
    for (const i of [0, 1, 2, 5, 6, 7]) ix.addPageText(ids[i]!, null, `early page ${i} with enough words to fill a shard soon`);
    const before = shardCount(file);
    ix.addPageText(ids[3]!, null, 'late arrival one'); // below the newest shard's first id
    ix.addPageText(ids[4]!, null, 'late arrival two');
    expect(shardCount(file)).toBe(before);
    expect(ix.searchText('late', 50).map((h) => h.recordId).sort((a, b) => a - b)).toEqual([ids[3], ids[4]]);
    expect(ix.searchText('early', 50)).toHaveLength(6);
    db.close();
  });

  it('deletes a file’s text from every shard, and the records browser filters by text across them', () => {
    const dir = path.join(tmp.dir, `archive-${serial++}`);
    openArchive(dir).close();
    const db = openDatabase(crawlDatabasePath(dir));
    const ix = createCaptureIndex(db, { textShardChars: SMALL });
    const ids = twelvePages(ix);
    const g = ix.addFile({ path: 'b.warc.gz', name: 'b.warc.gz', source: 'import' });
    const [other] = ix.addRecords([rec(g, 99)]);
    ix.addPageText(other!, 'Other', 'storm in another file');
    db.close();

    const archive = openArchive(dir);
    try {
      const filtered = queryRecords(archive, { text: 'storm' }, { limit: 50 });
      expect(filtered.rows.map((r) => r.id)).toEqual([ids[0], ids[3], ids[6], ids[9], other]);
      expect(archive.index.deleteFileRecords(1)).toBe(12);
      expect(archive.index.searchText('storm', 50).map((h) => h.recordId)).toEqual([other]);
      expect(archive.index.searchText('tide', 50)).toEqual([]);
      expect(queryRecords(archive, { text: 'storm' }, { limit: 50 }).rows.map((r) => r.id)).toEqual([other]);
    } finally {
      archive.close();
    }
  });

  it('keeps the text an older build indexed, and begins a shard after it', () => {
    const file = path.join(tmp.dir, `old-${serial++}.sqlite`);
    const old = new Database(file);
    migrate(old, 11); // as schema 11 left it: one page_text table
    const f = (old.prepare("INSERT INTO warc_files (path, name, created_at, source) VALUES ('a.warc.gz', 'a.warc.gz', 0, 'crawl') RETURNING id").get() as { id: number }).id;
    old.prepare('INSERT INTO records (id, file_id, offset, length, record_type, page) VALUES (7, ?, 0, 10, 2, 1), (8, ?, 10, 10, 2, 1)').run(f, f);
    old.prepare("INSERT INTO page_text (rowid, title, text) VALUES (7, 'Old', 'ancient harbour')").run();
    old.close();

    const db = openDatabase(file);
    const ix = createCaptureIndex(db);
    expect(ix.searchText('harbour').map((h) => h.recordId)).toEqual([7]);
    ix.addPageText(8, 'New', 'modern harbour');
    expect(shardCount(file)).toBe(2);
    expect(ix.searchText('harbour').map((h) => h.recordId).sort()).toEqual([7, 8]);
    expect(ix.pageText(7)).toBe('ancient harbour');
    db.close();
  });
});
