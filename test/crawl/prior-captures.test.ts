/**
 * An earlier crawl's capture, used for deduplication (--dedup-from), is read from that very
 * record: its validators become the conditional request and its body gives the links after a
 * 304. Replay's choice for the URL and time (the closest capture, the first of a second) may be
 * another record: here a 404 written in the same second before the 200 that dedup picked.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openArchive } from '../../core/archive/archive-dir.ts';
import { importFiles } from '../../core/archive/import-warc.ts';
import { PriorCaptures } from '../../core/crawl/prior-captures.ts';
import { replay } from '../../core/replay/replay.ts';
import { surtKey } from '../../core/scope/surt.ts';
import { closeDatabase, crawlDatabasePath, openDatabase } from '../../core/storage/open-database.ts';
import { removeTempDirs, tempDir } from '../replay/archive-fixture.ts';
import { writeWarc } from '../replay/warc-fixture.ts';

const URL_ = 'http://dedup.example.test/page.html';
const DATE = '2026-01-02T03:04:05Z';

afterAll(removeTempDirs);

async function earlierCrawl(): Promise<string> {
  const root = tempDir('trove-prior-');
  const warc = path.join(root, 'earlier.warc.gz');
  await writeWarc(warc, [
    { url: URL_, date: DATE, status: 404, statusText: 'Not Found', headers: [['Content-Type', 'text/html'], ['ETag', '"gone"']], body: '<p>missing</p>' },
    {
      url: URL_,
      date: DATE,
      status: 200,
      headers: [['Content-Type', 'text/html'], ['ETag', '"v1"'], ['Last-Modified', 'Tue, 03 Nov 2026 10:00:00 GMT']],
      body: '<a href="/next.html">next</a>',
    },
  ]);
  const dir = path.join(root, 'earlier');
  await importFiles(dir, [warc], { copy: true });
  return dir;
}

describe('PriorCaptures', () => {
  it('asks conditionally with the validators of the capture it picked, and serves that capture, not replay\'s choice', async () => {
    const source = await earlierCrawl();
    // Replay, asked for the URL at that second, answers with the 404 (first of the second).
    const archive = openArchive(source, { create: false });
    const replayed = await replay(archive, { url: URL_, at: '20260102030405' });
    archive.close();
    expect(replayed.kind === 'archived' && replayed.status).toBe(404);

    const crawlDir = tempDir('trove-prior-crawl-');
    const db = openDatabase(crawlDatabasePath(crawlDir));
    const prior = new PriorCaptures(db);
    try {
      expect((await prior.load([source])).map((n) => n.code)).toEqual(['DEDUP_LOADED']);
      const p = prior.latest(surtKey(URL_), URL_);
      expect(p?.status).toBe(200);
      expect(await prior.conditionalHeaders(p!)).toEqual([
        ['If-None-Match', '"v1"'],
        ['If-Modified-Since', 'Tue, 03 Nov 2026 10:00:00 GMT'],
      ]);
      const served = await prior.served(p!);
      expect(served?.status).toBe(200);
      expect(served?.body.toString()).toBe('<a href="/next.html">next</a>');
    } finally {
      prior.close();
      closeDatabase(db);
    }
  });

  it('gives no conditional headers when the source is a CDXJ file (no records to read)', async () => {
    const root = tempDir('trove-prior-cdxj-');
    const cdxj = path.join(root, 'earlier.cdxj');
    fs.writeFileSync(cdxj, `${surtKey(URL_)} 20260102030405 {"url":"${URL_}","status":"200","digest":"AAAA"}\n`);
    fs.mkdirSync(path.join(root, 'crawl'));
    const db = openDatabase(crawlDatabasePath(path.join(root, 'crawl')));
    const prior = new PriorCaptures(db);
    try {
      await prior.load([cdxj]);
      const p = prior.latest(surtKey(URL_), URL_);
      expect(p?.digest).toBe('sha1:AAAA');
      expect(await prior.conditionalHeaders(p!)).toEqual([]);
      expect(await prior.served(p!)).toBeNull();
    } finally {
      prior.close();
      closeDatabase(db);
    }
  });
});
