import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseOf, openArchive } from '../../core/archive/archive-dir.ts';
import type { Archive } from '../../core/archive/archive-dir.ts';
import { importFiles } from '../../core/archive/import-warc.ts';
import { recordIdSql } from '../../core/archive/record-id-key.ts';
import { exportWarcSubset } from '../../core/export/export-warc-subset.ts';
import { replay } from '../../core/replay/replay.ts';
import { checkWarcFile } from '../../core/warc/check-warc.ts';
import { openArchiveFile } from '../../core/warc/read-records.ts';
import type { WarcRecordHead } from '../../core/warc/read-records.ts';
import { recordTypeCode, recordTypeList } from '../../core/archive/record-type-key.ts';
import { readWarcFile } from '../helpers/read-warcs.ts';
import { corpusPath } from '../helpers/corpus.ts';
import { crawlFixture } from './export-fixture.ts';
import type { CrawledArchive } from './export-fixture.ts';

describe('WARC subset export', () => {
  let c: CrawledArchive;
  let archive: Archive;

  beforeAll(async () => {
    c = await crawlFixture('subset');
    archive = openArchive(c.dir, { create: false });
  }, 60_000);

  afterAll(async () => {
    archive?.close();
    await c?.cleanup();
  });

  /** The source bytes of a record, by WARC-Record-ID, from the capture index. */
  const sourceBytes = (recordId: string): Buffer => {
    const row = archive.index.byRecordId(recordId)!;
    const fd = fs.openSync(archive.resolveFile(row), 'r');
    const b = Buffer.alloc(row.length);
    fs.readSync(fd, b, 0, row.length, row.offset);
    fs.closeSync(fd);
    return b;
  };

  /** Where each record of a file is. A record's on-disk length is final once the reader has moved past it. */
  async function records(file: string) {
    const seen: WarcRecordHead[] = [];
    for await (const r of openArchiveFile(file)) seen.push(r);
    return seen.map((r) => ({ offset: r.offset, length: r.length, type: r.type, id: r.get('WARC-Record-ID')! }));
  }

  it('writes a revisit whose original is outside the subset as a full response, and the subset replays alone', async () => {
    const file = path.join(c.out, 'dup-copy.warc.gz');
    const r = await exportWarcSubset(archive, file, { urlPrefix: c.site.origin + '/dup-copy.html' });
    expect(r).toMatchObject({ captures: 1, materialized: 1, unresolvedRevisits: 0 });
    expect(r.siblings).toBe(2);

    const check = await checkWarcFile(file);
    expect(check.problems).toEqual([]);
    expect(check.valid).toBe(true);

    const recs = await readWarcFile(file);
    expect(recs.map((x) => x.type)).toEqual(['warcinfo', 'response', 'request', 'metadata']);
    expect(recs[0]!.warcHeaders['WARC-Filename']).toBe('dup-copy.warc.gz');
    const revisit = databaseOf(archive).prepare(`SELECT ${recordIdSql('record_id')} AS record_id, date FROM records WHERE record_type = ${recordTypeCode('revisit')} AND target_uri = ?`).get(c.site.origin + '/dup-copy.html') as {
      record_id: string;
      date: string;
    };
    const resp = recs[1]!;
    expect(resp.recordId).toBe(revisit.record_id);
    expect(resp.targetUri).toBe(c.site.origin + '/dup-copy.html');
    expect(resp.status).toBe(200);
    expect(resp.payload.equals(c.site.sentBodies.get('/dup.html')!)).toBe(true);
    expect(resp.warcHeaders['WARC-Profile']).toBeUndefined();
    expect(resp.warcHeaders['WARC-Refers-To']).toBeUndefined();
    expect(resp.warcHeaders['WARC-Warcinfo-ID']).toBe(recs[0]!.recordId);
    expect(resp.warcHeaders['WARC-Payload-Digest']).toMatch(/^sha1:/);
    for (const s of recs.slice(2)) expect(s.concurrentTo).toEqual([revisit.record_id]);
    // Siblings are copied byte for byte.
    const layout = await records(file);
    const bytes = fs.readFileSync(file);
    for (const l of layout.slice(2)) expect(bytes.subarray(l.offset, l.offset + l.length).equals(sourceBytes(l.id))).toBe(true);

    const dir = path.join(c.out, 'dup-copy-import');
    expect((await importFiles(dir, [file])).problems).toEqual([]);
    const alone = openArchive(dir, { create: false });
    try {
      const res = await replay(alone, { url: c.site.origin + '/dup-copy.html' });
      expect(res.kind).toBe('archived');
      if (res.kind === 'archived') expect(res.body.toString()).toContain('identical payload');
    } finally {
      alone.close();
    }
  });

  it('keeps a revisit as it is when its original is in the subset, copying every record byte for byte', async () => {
    const file = path.join(c.out, 'dup.warc.gz');
    // The prefix takes /dup.html, /dup-copy.html (its revisit) and /dup-headers.
    const r = await exportWarcSubset(archive, file, { urlPrefix: c.site.origin + '/dup' });
    expect(r).toMatchObject({ captures: 3, materialized: 0, unresolvedRevisits: 0, siblings: 6 });
    expect((await checkWarcFile(file)).valid).toBe(true);
    const layout = await records(file);
    expect(layout.map((l) => l.type).sort()).toEqual(['metadata', 'metadata', 'metadata', 'request', 'request', 'request', 'response', 'response', 'revisit', 'warcinfo']);
    const bytes = fs.readFileSync(file);
    for (const l of layout.slice(1)) expect(bytes.subarray(l.offset, l.offset + l.length).equals(sourceBytes(l.id)), l.type).toBe(true);
  });

  it('filters by host, MIME and time', async () => {
    const byHost = path.join(c.out, 'host.warc.gz');
    const h = await exportWarcSubset(archive, byHost, { host: 'localhost' });
    const hostRecs = await readWarcFile(byHost);
    expect(h.captures).toBeGreaterThan(0);
    for (const x of hostRecs.slice(1)) expect(new URL(x.targetUri!).hostname).toBe('localhost');

    const images = path.join(c.out, 'images.warc.gz');
    const m = await exportWarcSubset(archive, images, { mime: 'image/' });
    const imageRecs = await readWarcFile(images);
    expect(m.captures).toBeGreaterThanOrEqual(6);
    for (const x of imageRecs.filter((y) => y.type === 'response')) {
      expect(x.httpHeaders.find(([k]) => k.toLowerCase() === 'content-type')![1]).toMatch(/^image\//);
    }

    const none = path.join(c.out, 'none.warc.gz');
    const n = await exportWarcSubset(archive, none, { from: '29990101000000' });
    expect(n).toMatchObject({ captures: 0, records: 1 });
    expect((await checkWarcFile(none)).valid).toBe(true);

    const all = path.join(c.out, 'all.warc.gz');
    const a = await exportWarcSubset(archive, all, { from: '19900101000000', to: '29991231235959' });
    const total = (databaseOf(archive).prepare(`SELECT COUNT(*) AS n FROM records WHERE record_type IN ${recordTypeList(['response', 'revisit', 'resource'])}`).get() as { n: number }).n;
    expect(a.captures).toBe(total);
    expect(a.records).toBe(archive.index.count() + 1);
  });

  it('writes an uncompressed WARC when the name does not end in .gz', async () => {
    const file = path.join(c.out, 'plain.warc');
    const r = await exportWarcSubset(archive, file, { urlPrefix: c.site.origin + '/dup-copy.html' });
    expect(fs.readFileSync(file).subarray(0, 8).toString()).toBe('WARC/1.1');
    const check = await checkWarcFile(file);
    expect(check.problems).toEqual([]);
    const recs = await readWarcFile(file);
    expect(recs.length).toBe(r.records);
    expect(recs[1]!.payload.equals(c.site.sentBodies.get('/dup.html')!)).toBe(true);
  });

  it('works on an imported foreign WARC: uncompressed source, request before its response, uri-agnostic revisit', async () => {
    const dir = path.join(c.out, 'warcio-archive');
    await importFiles(dir, [corpusPath('warc', 'warcio', 'example.warc')]);
    const foreign = openArchive(dir, { create: false });
    try {
      const file = path.join(c.out, 'warcio-revisit.warc.gz');
      const r = await exportWarcSubset(foreign, file, { from: '20170306040300' });
      expect(r).toMatchObject({ captures: 1, materialized: 1, siblings: 1 });
      expect((await checkWarcFile(file)).problems).toEqual([]);
      const recs = await readWarcFile(file);
      expect(recs.map((x) => x.type)).toEqual(['warcinfo', 'response', 'request']);
      const original = (await readWarcFile(corpusPath('warc', 'warcio', 'example.warc'))).find((x) => x.type === 'response')!;
      expect(recs[1]!.payload.equals(original.payload)).toBe(true);
      expect(recs[1]!.date).toBe('2017-03-06T04:03:48Z');
      expect(recs[2]!.concurrentTo).toEqual([recs[1]!.recordId]);
      const whole = path.join(c.out, 'warcio-all.warc.gz');
      const all = await exportWarcSubset(foreign, whole);
      expect(all).toMatchObject({ captures: 2, materialized: 0, siblings: 2, records: 5 });
      expect((await checkWarcFile(whole)).valid).toBe(true);
    } finally {
      foreign.close();
    }
  });

  it('rejects a malformed timestamp', async () => {
    await expect(exportWarcSubset(archive, path.join(c.out, 'bad.warc.gz'), { from: '2024-01-01' })).rejects.toMatchObject({ code: 'EXPORT_BAD_FILTER' });
    expect(fs.existsSync(path.join(c.out, 'bad.warc.gz.part'))).toBe(false);
  });
});
