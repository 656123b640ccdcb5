import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type Database from 'better-sqlite3';
import { createCaptureIndex, type CaptureIndex } from '../../core/archive/capture-index.ts';
import { PendingOriginals } from '../../core/crawl/pending-originals.ts';
import { openDatabase } from '../../core/storage/open-database.ts';

describe('PendingOriginals', () => {
  let dir: string;
  let db: Database.Database;
  let captures: CaptureIndex;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-pending-'));
    db = openDatabase(path.join(dir, 'crawl.sqlite'));
    captures = createCaptureIndex(db);
  });
  afterEach(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const original = { recordId: '<urn:uuid:1>', targetUri: 'http://a.test/1', date: '2026-11-21T10:00:00Z' };

  it('makes the first claimant the original and later ones wait for it, then point at it', async () => {
    const p = new PendingOriginals();
    const first = await p.claim(captures, 'sha1:X');
    expect(first.kind).toBe('original');
    const second = p.claim(captures, 'sha1:X');
    if (first.kind === 'original') first.settle(original);
    expect(await second).toEqual({ kind: 'duplicate', original });
    expect(p.size).toBe(0);
  });

  it('when the original is not written, the next claimant becomes the original instead', async () => {
    const p = new PendingOriginals();
    const first = await p.claim(captures, 'sha1:Y');
    const second = p.claim(captures, 'sha1:Y');
    const third = p.claim(captures, 'sha1:Y');
    if (first.kind === 'original') first.settle(null);
    const s = await second;
    expect(s.kind).toBe('original');
    if (s.kind === 'original') s.settle({ ...original, recordId: '<urn:uuid:2>' });
    expect(await third).toEqual({ kind: 'duplicate', original: { ...original, recordId: '<urn:uuid:2>' } });
  });

  it('finds an original already in the capture index without waiting', async () => {
    const fileId = captures.addFile({ path: 'warcs/a.warc.gz', name: 'a.warc.gz', source: 'crawl' });
    captures.addRecords([
      { fileId, offset: 0, length: 10, recordType: 'response', recordId: '<urn:uuid:9>', targetUri: 'http://a.test/9', urlkey: 'test,a)/9', ts: '20261121100000', date: '2026-11-21T10:00:00Z', mime: 'text/html', status: 200, payloadDigest: 'sha1:Z' },
    ]);
    expect(await new PendingOriginals().claim(captures, 'sha1:Z')).toEqual({
      kind: 'duplicate',
      original: { recordId: '<urn:uuid:9>', targetUri: 'http://a.test/9', date: '2026-11-21T10:00:00Z' },
    });
  });
});
