/**
 * The crawl loop commits a URI's outcome and its capture-index rows in one transaction:
 * `db.transaction(() => { frontier.complete(...); captures.addRecords(...) })()`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { createCaptureIndex } from '../../core/archive/capture-index.ts';
import { createSqliteFrontier } from '../../core/frontier/sqlite-frontier.ts';
import { openDatabase } from '../../core/storage/open-database.ts';
import { setMeta, getMeta } from '../../core/storage/meta.ts';
import { cand } from './frontier-contract.ts';
import { makeTempDir } from '../storage/temp-dir.ts';

const tmp = makeTempDir('trove-frontier-');
afterAll(() => tmp.remove());

function setup(name: string) {
  const file = path.join(tmp.dir, name);
  const db = openDatabase(file);
  const frontier = createSqliteFrontier(db);
  const captures = createCaptureIndex(db);
  const fileId = captures.addFile({ path: 'warcs/x.warc.gz', name: 'x.warc.gz', source: 'crawl' });
  frontier.schedule([cand('http://a.test/')]);
  const row = { fileId, offset: 0, length: 10, recordType: 'response', recordId: '<urn:uuid:1>', targetUri: 'http://a.test/', urlkey: 'test,a)/', ts: '20240101000000', date: null, mime: 'text/html', status: 200, payloadDigest: null };
  return { file, db, frontier, captures, row };
}

describe('frontier + capture index in one transaction', () => {
  it('commits both together', () => {
    const { db, frontier, captures, row } = setup('commit.sqlite');
    const uri = frontier.claim(0)!;
    db.transaction(() => {
      frontier.complete(uri, { status: 200, queueReadyAt: 10 }, [cand('http://a.test/next'), cand('http://new.test/')]);
      captures.addRecords([row]);
      setMeta(db, 'stats', { done: 1 });
    })();
    expect(frontier.counts(0)).toMatchObject({ done: 1, inFlight: 0, pending: 2, seen: 3, queues: 2 });
    expect(captures.count()).toBe(1);
    db.close();
  });

  it('rolls both back when the crawl loop throws after complete', () => {
    const { file, db, frontier, captures, row } = setup('rollback.sqlite');
    const uri = frontier.claim(0)!;
    const before = frontier.counts(0);
    expect(() =>
      db.transaction(() => {
        frontier.complete(uri, { status: 200, queueReadyAt: 10 }, [cand('http://a.test/next'), cand('http://new.test/')]);
        captures.addRecords([row]);
        setMeta(db, 'stats', { done: 1 });
        throw new Error('disk full');
      })(),
    ).toThrow('disk full');
    expect(frontier.counts(0)).toEqual(before);
    expect(frontier.isSeen(cand('http://new.test/').fingerprint)).toBe(false);
    expect(frontier.queue('new.test')).toBeNull();
    expect(frontier.queue('a.test', 0)).toMatchObject({ inFlight: 1, readyAt: 0, done: 0 });
    expect(captures.count()).toBe(0);
    expect(captures.fileById(row.fileId)!.records).toBe(0);
    expect(getMeta(db, 'stats')).toBeUndefined();
    // The lease is still good: the loop can complete it for real, and new queues get fresh ids.
    frontier.complete(uri, { status: 200, queueReadyAt: 10 }, [cand('http://other.test/')]);
    expect(frontier.claim(0)!.url).toBe('http://other.test/');
    db.close();
    const again = openDatabase(file);
    expect(createSqliteFrontier(again).counts(0)).toMatchObject({ done: 1, inFlight: 1, seen: 2, queues: 2 });
    again.close();
  });
});
