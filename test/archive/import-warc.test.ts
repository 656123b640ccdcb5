import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { databaseOf, openArchive } from '../../core/archive/archive-dir.ts';
import type { Archive } from '../../core/archive/archive-dir.ts';
import { recordTypeCode, recordTypeSql } from '../../core/archive/record-type-key.ts';
import { tsSql } from '../../core/archive/capture-ts-key.ts';
import { importFiles, importIntoArchive } from '../../core/archive/import-warc.ts';
import { replay } from '../../core/replay/replay.ts';
import { readRecordAt } from '../../core/warc/read-records.ts';
import { corpusPath, corpusWarcFiles, expectedEntries, hasGplCorpus } from '../helpers/corpus.ts';
import { itUsing } from '../helpers/gpl-tests.ts';
import { archiveOf, removeTempDirs, tempDir } from '../replay/archive-fixture.ts';

const open: Archive[] = [];
afterEach(() => {
  for (const a of open.splice(0)) a.close();
});
afterAll(removeTempDirs);

async function imported(files: string[], copy = false) {
  const t = await archiveOf(files, copy ? { copy: true } : {});
  open.push(t.archive);
  return t;
}

interface Row {
  record_type: string;
  offset: number;
  length: number;
  urlkey: string | null;
  status: number | null;
  mime: string | null;
  page: number;
  title: string | null;
}

function rows(a: Archive): Row[] {
  // The record type as its text (stored as record-type-key.ts says).
  return databaseOf(a).prepare(`SELECT *, ${recordTypeSql('record_type')} AS record_type FROM records ORDER BY id`).all() as Row[];
}

describe('importFiles: WARC and ARC by reference', () => {
  it('indexes every record of example.warc.gz at warcio\'s offsets and lengths', async () => {
    const file = corpusPath('warc/warcio/example.warc.gz');
    const { archive, report } = await imported([file]);
    expect(report.problems).toEqual([]);
    expect(report.files).toEqual([
      { source: file, storedAs: file, kind: 'warc', records: 6, pages: 1, bytes: 3816, replaced: false, warnings: 0 },
    ]);
    const r = rows(archive);
    expect(r.map((x) => x.record_type)).toEqual(['warcinfo', 'warcinfo', 'response', 'request', 'revisit', 'request']);
    // webrecorder/warcio test_cli.py::test_index
    expect(r.map((x) => [x.offset, x.length])).toEqual([[0, 353], [353, 431], [784, 1228], [2012, 609], [2621, 586], [3207, 609]]);
    expect(r[2]).toMatchObject({ urlkey: 'com,example)/', status: 200, mime: 'text/html', page: 1, title: 'Example Domain' });
    expect(r[4]).toMatchObject({ status: 200, mime: 'text/html', page: 0 });
    const file0 = archive.index.files()[0]!;
    expect(file0).toMatchObject({ path: file, source: 'import', byReference: true, records: 6 });
    // The registered offsets really are record starts.
    for (const x of r) expect((await readRecordAt(file, x.offset, x.length)).type).toBe(x.record_type);
  });

  itUsing('warc/ukwa')('extracts titles and text of HTML pages through chunking, gzip and brotli', async () => {
    const { archive } = await imported([
      corpusPath('warc/warcio/example-iana.org-chunked.warc'),
      corpusPath('warc/ukwa/transfer_compression_gzip.warc'),
      corpusPath('warc/ukwa/transfer_compression_brotli.warc'),
    ]);
    const hits = archive.index.searchText('Extremely simple webpage');
    expect(hits).toHaveLength(2);
    expect(hits.every((h) => h.targetUri === 'http://tokemon.sb.statsbiblioteket.dk/')).toBe(true);
    const iana = archive.index.searchText('Assigned Numbers');
    expect(iana[0]?.title).toBe('Internet Assigned Numbers Authority');
  });

  it('keys POST captures as pywb does (form, multipart, JSON, chunked body)', async () => {
    const { archive } = await imported([corpusPath('warc/warcio.js/post-test-more.warc')]);
    const keys = (databaseOf(archive).prepare(`SELECT urlkey FROM records WHERE record_type = ${recordTypeCode('response')} ORDER BY id`).all() as { urlkey: string }[]).map((r) => r.urlkey);
    // webrecorder/warcio.js test/testIndexer.test.ts "post append 2"
    expect(keys).toEqual([
      'org,httpbin)/post?__wb_method=post&another=more^data&test=some+data',
      'org,httpbin)/post?__wb_method=post&a=json-data',
      'org,httpbin)/post?__wb_method=post&__wb_post_data=na0kc29tzq0kza0ky2h1bmstzw5jb2rlza0kna0kzgf0yq0kma0kdqo=',
    ]);
  });

  itUsing('warc/ukwa')('derives 14-digit times from short WARC-Dates (UKWA truncated_datetime.warc)', async () => {
    const { archive } = await imported([corpusPath('warc/ukwa/truncated_datetime.warc')]);
    const response = databaseOf(archive).prepare(`SELECT ${tsSql('ts')} AS ts, date FROM records WHERE record_type = ${recordTypeCode('response')}`).get() as { ts: string; date: string };
    expect(response).toEqual({ ts: '20190815010200', date: '2019-08-15T01:02' });
  });

  it('reads ARC files (plain and gzip)', async () => {
    const { archive, report } = await imported([corpusPath('warc/warcio/example.arc'), corpusPath('warc/warcio/example.arc.gz')]);
    expect(report.problems).toEqual([]);
    expect(report.files.map((f) => [f.kind, f.records, f.pages])).toEqual([['arc', 2, 1], ['arc', 2, 1]]);
    const r = archived(await replay(archive, { url: 'http://example.com/' }));
    expect(r.body.toString()).toContain('Example Domain');
  });

  it('re-importing a file replaces its rows instead of adding duplicates', async () => {
    const file = corpusPath('warc/warcio/example.warc.gz');
    const { archive } = await imported([file]);
    const again = await importIntoArchive(archive, [file]);
    expect(again.files[0]).toMatchObject({ replaced: true, records: 6 });
    expect(archive.index.count()).toBe(6);
    expect(archive.index.files()).toHaveLength(1);
    expect(archive.index.files()[0]!.records).toBe(6);
    expect(archive.index.searchText('Example Domain')).toHaveLength(1);
  });

  it('copies files into warcs/ with --copy and replays from the copy', async () => {
    const { archive, report } = await imported([corpusPath('warc/warcio/example.warc.gz')], true);
    expect(report.files[0]!.storedAs).toBe('warcs/example.warc.gz');
    expect(fs.existsSync(path.join(archive.dir, 'warcs/example.warc.gz'))).toBe(true);
    expect(archive.index.files()[0]).toMatchObject({ path: 'warcs/example.warc.gz', byReference: false });
    expect(archive.resolveFile({ path: 'warcs/example.warc.gz' })).toBe(path.join(archive.dir, 'warcs/example.warc.gz'));
    const r = archived(await replay(archive, { url: 'http://example.com/' }));
    expect(r.capture.file).toBe('warcs/example.warc.gz');
  });

  it('recompresses a whole-file gzip WARC so its records can be read at offsets', async () => {
    const { archive, report } = await imported([corpusPath('warc/warcio/example-bad-non-chunked.warc.gz')]);
    expect(report.problems).toEqual([]);
    expect(report.files[0]).toMatchObject({ recompressed: true, records: 6, storedAs: 'warcs/example-bad-non-chunked.warc.gz' });
    const stored = path.join(archive.dir, 'warcs/example-bad-non-chunked.warc.gz');
    for (const x of rows(archive)) expect((await readRecordAt(stored, x.offset, x.length)).type).toBe(x.record_type);
    expect(archived(await replay(archive, { url: 'http://example.com/' })).body.toString()).toContain('Example Domain');
  });
});

describe('importFiles: broken input', () => {
  it('keeps the records before a break and reports the typed error with its offset', async () => {
    const dir = tempDir();
    const cut = path.join(dir, 'cut.warc.gz');
    // example.warc.gz cut inside its 4th gzip member (2012..2621).
    fs.writeFileSync(cut, fs.readFileSync(corpusPath('warc/warcio/example.warc.gz')).subarray(0, 2300));
    const { archive, report } = await imported([cut]);
    expect(report.files[0]!.records).toBe(3);
    expect(report.problems).toHaveLength(1);
    expect(report.problems[0]).toMatchObject({ file: cut, offset: 2012 });
    expect(report.problems[0]!.code).toMatch(/^WARC_(TRUNCATED|BAD_GZIP)$/);
    expect(rows(archive).map((r) => r.record_type)).toEqual(['warcinfo', 'warcinfo', 'response']);
  });

  it('reports trailing garbage, keeps the good record, and goes on to the next file', async () => {
    const { report } = await imported([corpusPath('warc/jwat/invalid-warcfile-record-then-garbage.warc'), corpusPath('warc/warcio/example.warc')]);
    expect(report.problems).toEqual([
      expect.objectContaining({ code: 'WARC_TRAILING_DATA', offset: 1135, file: corpusPath('warc/jwat/invalid-warcfile-record-then-garbage.warc') }),
    ]);
    expect(report.files.map((f) => f.records)).toEqual([1, 6]);
  });

  it('gives typed problems for a missing file and a file that is not a WARC', async () => {
    const dir = tempDir();
    const text = path.join(dir, 'notes.txt');
    fs.writeFileSync(text, 'hello, not a warc\n');
    const { report } = await imported([path.join(dir, 'nope.warc'), text]);
    expect(report.problems.map((p) => p.code)).toEqual(['IMPORT_FILE_NOT_FOUND', 'WARC_BAD_VERSION']);
    expect(report.files).toEqual([]);
  });

  it('imports every corpus WARC/ARC without an untyped error', async () => {
    const files = corpusWarcFiles().map((f) => corpusPath(f));
    const count = expectedEntries().length; // 46 with the GPL files beside the checkout, 37 without
    expect(files.length).toBe(count);
    const dir = tempDir();
    const report = await importFiles(path.join(dir, 'all'), files);
    for (const p of report.problems) expect(p.code).toMatch(/^[A-Z_]+$/);
    expect(report.records).toBeGreaterThan(hasGplCorpus ? 400 : 150); // the GPL files hold 250 records
    expect(report.files.length + new Set(report.problems.filter((p) => !report.files.some((f) => f.source === p.file)).map((p) => p.file)).size).toBe(count);
  });
});

describe('importFiles: progress and archive directory', () => {
  itUsing('warc/ukwa')('reports progress and creates the archive directory with its database', async () => {
    const dir = path.join(tempDir(), 'new-archive');
    const seen: number[] = [];
    const report = await importFiles(dir, [corpusPath('warc/ukwa/BL-20140325122341434-00000-32090~opera~8443.warc.gz')], {
      onProgress: (p) => seen.push(p.records),
    });
    expect(report.records).toBe(190);
    expect(seen.at(-1)).toBe(190);
    expect(fs.existsSync(path.join(dir, 'crawl.sqlite'))).toBe(true);
    const a = openArchive(dir, { create: false });
    open.push(a);
    expect(a.index.count()).toBe(190);
  });

  it('refuses to open a directory that is not an archive when asked not to create one', () => {
    expect(() => openArchive(path.join(tempDir(), 'missing'), { create: false })).toThrow(expect.objectContaining({ code: 'ARCHIVE_NOT_FOUND' }));
  });
});

function archived<T extends { kind: string }>(r: T): Extract<T, { kind: 'archived' }> {
  if (r.kind !== 'archived') throw new Error(`not archived: ${JSON.stringify(r)}`);
  return r as Extract<T, { kind: 'archived' }>;
}
