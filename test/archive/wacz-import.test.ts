import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import yazl from 'yazl';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Archive } from '../../core/archive/archive-dir.ts';
import { importIntoArchive } from '../../core/archive/import-warc.ts';
import { entryTarget, openWacz, unsafeEntryName, verifyWacz } from '../../core/archive/wacz-read.ts';
import { replay } from '../../core/replay/replay.ts';
import { readRecordAt } from '../../core/warc/read-records.ts';
import { corpusPath } from '../helpers/corpus.ts';
import { archiveOf, removeTempDirs, tempDir } from '../replay/archive-fixture.ts';
import { html, recordBytes } from '../replay/warc-fixture.ts';
import { databaseOf } from '../../core/archive/archive-dir.ts';
import { recordTypeSql } from '../../core/archive/record-type-key.ts';

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

interface ZipItem {
  name: string;
  data: Buffer;
  compress?: boolean;
  mode?: number;
}

/** A ZIP written by yazl; `rename` then swaps equal-length names in the bytes (yazl refuses unsafe names). */
async function makeZip(items: ZipItem[], rename: [string, string][] = []): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const it of items) zip.addBuffer(it.data, it.name, { compress: it.compress ?? false, ...(it.mode !== undefined ? { mode: it.mode } : {}) });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  let bytes = Buffer.concat(chunks);
  for (const [from, to] of rename) {
    expect(Buffer.byteLength(from)).toBe(Buffer.byteLength(to));
    let at = bytes.indexOf(from, 0, 'latin1');
    expect(at).toBeGreaterThanOrEqual(0);
    while (at >= 0) {
      bytes.write(to, at, 'latin1');
      at = bytes.indexOf(from, at + 1, 'latin1');
    }
  }
  return bytes;
}

async function sampleWarc(): Promise<Buffer> {
  return Buffer.concat([
    await recordBytes({ url: 'http://wacz.test/', date: '2023-04-05T06:07:08Z', headers: html(), body: '<title>Packed</title><p>inside a wacz</p>' }),
    await recordBytes({ url: 'http://wacz.test/a.css', date: '2023-04-05T06:07:09Z', headers: [['Content-Type', 'text/css']], body: 'p{}' }),
  ]);
}

function datapackage(resources: { path: string; data: Buffer; hash?: string; bytes?: number }[]): Buffer {
  return Buffer.from(
    JSON.stringify({
      profile: 'data-package',
      wacz_version: '1.1.1',
      resources: resources.map((r) => ({
        name: path.posix.basename(r.path),
        path: r.path,
        hash: r.hash ?? `sha256:${createHash('sha256').update(r.data).digest('hex')}`,
        bytes: r.bytes ?? r.data.length,
      })),
    }),
  );
}

async function writeWacz(items: ZipItem[], rename: [string, string][] = []): Promise<string> {
  const file = path.join(tempDir('trove-wacz-'), 'made.wacz');
  fs.writeFileSync(file, await makeZip(items, rename));
  return file;
}

describe('WACZ import: corpus packages', () => {
  it('imports WACZ 1.0.0 (valid_example_1) by reference into the STORED entry', async () => {
    const wacz = corpusPath('wacz/valid_example_1.wacz');
    const { archive, report } = await imported([wacz]);
    expect(report.problems).toEqual([]);
    expect(report.files).toHaveLength(1);
    expect(report.files[0]).toMatchObject({ kind: 'wacz-entry', records: 4, pages: 1, storedAs: `${wacz}!/archive/example-collection.warc` });
    expect(archive.resolveFile({ path: report.files[0]!.storedAs })).toBe(wacz);
    // Offsets are offsets in the .wacz itself: every record reads back from it directly.
    const rows = databaseOf(archive).prepare(`SELECT ${recordTypeSql('record_type')} AS record_type, offset, length FROM records`).all() as { record_type: string; offset: number; length: number }[];
    const loc = archive.waczEntry(report.files[0]!.storedAs)!;
    expect(loc.dataOffset).toBeGreaterThan(0);
    for (const r of rows) {
      expect(r.offset).toBeGreaterThanOrEqual(loc.dataOffset);
      expect((await readRecordAt(wacz, r.offset, r.length)).type).toBe(r.record_type);
    }
    const page = await replay(archive, { url: 'http://www.example.com/' });
    expect(page.kind === 'archived' && page.body.toString()).toContain('Example Domain');
  });

  it('imports WACZ 1.1.1 (valid_signed_example_1) and checks every resource hash', async () => {
    const wacz = corpusPath('wacz/valid_signed_example_1.wacz');
    const pkg = await openWacz(wacz);
    try {
      expect(pkg.version).toBe('1.1.1');
      const checks = await verifyWacz(pkg);
      expect(checks.map((c) => c.ok)).toEqual([true, true, true, true]);
    } finally {
      pkg.close();
    }
    const { report, archive } = await imported([wacz]);
    expect(report.problems).toEqual([]);
    expect(report.records).toBe(4);
    expect(archive.index.searchText('Example Domain')).toHaveLength(1);
  });

  it('reports what is wrong with invalid_example_1 and imports nothing', async () => {
    const wacz = corpusPath('wacz/invalid_example_1.wacz');
    const { report, archive } = await imported([wacz]);
    expect(report.files).toEqual([]);
    expect(report.problems.map((p) => p.code).sort()).toEqual(['WACZ_NO_VERSION', 'WACZ_NO_WARCS', 'WACZ_RESOURCE_MISSING']);
    expect(report.problems.find((p) => p.code === 'WACZ_RESOURCE_MISSING')!.file).toBe(`${wacz}!/data/indexes/index.cdx.gz`);
    expect(archive.index.count()).toBe(0);
  });

  it('re-importing a WACZ replaces its rows; --copy puts the package in warcs/', async () => {
    const wacz = corpusPath('wacz/valid_example_1.wacz');
    const { archive } = await imported([wacz], true);
    expect(fs.existsSync(path.join(archive.dir, 'warcs/valid_example_1.wacz'))).toBe(true);
    const again = await importIntoArchive(archive, [wacz], { copy: true });
    expect(again.files[0]!.replaced).toBe(true);
    expect(archive.index.count()).toBe(4);
    expect(archive.resolveFile({ path: again.files[0]!.storedAs })).toBe(path.join(archive.dir, 'warcs/valid_example_1.wacz'));
  });
});

describe('WACZ import: packages made in the test', () => {
  it('reports hash and size mismatches and still imports the records', async () => {
    const warc = await sampleWarc();
    const pages = Buffer.from('{"format":"json-pages-1.0","id":"pages","title":"All Pages"}\n');
    const dp = datapackage([
      { path: 'archive/data.warc.gz', data: warc, hash: `sha256:${'0'.repeat(64)}` },
      { path: 'pages/pages.jsonl', data: pages, bytes: 3 },
    ]);
    const wacz = await writeWacz([
      { name: 'archive/data.warc.gz', data: warc },
      { name: 'pages/pages.jsonl', data: pages, compress: true },
      { name: 'datapackage.json', data: dp, compress: true },
    ]);
    const { report, archive } = await imported([wacz]);
    expect(report.problems.map((p) => [p.code, p.file])).toEqual([
      ['WACZ_HASH_MISMATCH', `${wacz}!/archive/data.warc.gz`],
      ['WACZ_SIZE_MISMATCH', `${wacz}!/pages/pages.jsonl`],
    ]);
    expect(report.records).toBe(2);
    const r = await replay(archive, { url: 'http://wacz.test/' });
    expect(r.kind === 'archived' && r.body.toString()).toContain('inside a wacz');
  });

  it('inflates a DEFLATED WARC entry into warcs/<package>/ and indexes that', async () => {
    const warc = await sampleWarc();
    const wacz = await writeWacz([
      { name: 'archive/data.warc.gz', data: warc, compress: true },
      { name: 'datapackage.json', data: datapackage([{ path: 'archive/data.warc.gz', data: warc }]) },
    ]);
    const { report, archive } = await imported([wacz]);
    expect(report.problems).toEqual([]);
    expect(report.files[0]!.storedAs).toBe('warcs/made/archive/data.warc.gz');
    expect(fs.readFileSync(path.join(archive.dir, 'warcs/made/archive/data.warc.gz')).equals(warc)).toBe(true);
    const r = await replay(archive, { url: 'http://wacz.test/a.css' });
    expect(r.kind === 'archived' && r.body.toString()).toBe('p{}');
  });

  it.each([
    ['a ".." entry', 'xx/evil.warc', '../evil.warc'],
    ['a deep ".." entry', 'archive/xx/xx/evil.warc', 'archive/../../evil.warc'],
    ['an absolute entry', 'Xtmp/evil.warc', '/tmp/evil.warc'],
    ['a backslash entry', 'archive/xxxevil.warc', 'archive/..\\evil.warc'],
  ])('refuses a package with %s (zip-slip) and writes nothing', async (_what, placeholder, unsafe) => {
    const warc = await sampleWarc();
    const wacz = await writeWacz(
      [
        { name: placeholder, data: warc, compress: true },
        { name: 'datapackage.json', data: datapackage([]) },
      ],
      [[placeholder, unsafe]],
    );
    const { report, archive, dir } = await imported([wacz]);
    expect(report.problems).toEqual([expect.objectContaining({ code: 'WACZ_UNSAFE_PATH', file: wacz })]);
    expect(report.files).toEqual([]);
    expect(archive.index.count()).toBe(0);
    expect(fs.existsSync(path.join(archive.dir, 'evil.warc'))).toBe(false);
    expect(fs.existsSync(path.join(dir, 'evil.warc'))).toBe(false);
    expect(fs.existsSync(path.join(archive.dir, 'warcs', 'evil.warc'))).toBe(false);
  });

  it('refuses a package with a symbolic link entry', async () => {
    const wacz = await writeWacz([
      { name: 'archive/link.warc', data: Buffer.from('/etc/passwd'), mode: 0o120777 },
      { name: 'datapackage.json', data: datapackage([]) },
    ]);
    const { report } = await imported([wacz]);
    expect(report.problems).toEqual([expect.objectContaining({ code: 'WACZ_UNSAFE_PATH' })]);
  });

  it('gives typed errors for a damaged zip, a zip without datapackage.json, and bad JSON', async () => {
    const dir = tempDir();
    const notZip = path.join(dir, 'broken.wacz');
    fs.writeFileSync(notZip, 'PK\u0003\u0004 this is not really a zip');
    const noDp = await writeWacz([{ name: 'archive/x.warc', data: Buffer.from('WARC/1.0\r\n') }]);
    const badJson = await writeWacz([{ name: 'datapackage.json', data: Buffer.from('{"resources": [') }]);
    const { report } = await imported([notZip, noDp, badJson]);
    expect(report.problems.map((p) => p.code)).toEqual(['WACZ_OPEN_FAILED', 'WACZ_NO_DATAPACKAGE', 'WACZ_BAD_DATAPACKAGE']);
  });
});

describe('entry names', () => {
  it('accepts ordinary names and rejects every escaping form', () => {
    expect(unsafeEntryName('archive/data.warc.gz')).toBeNull();
    expect(unsafeEntryName('a/b..c/d')).toBeNull();
    for (const bad of ['../x', 'a/../../x', '/etc/x', 'C:/x', 'c:x', 'a\\..\\x', 'a/\u0000b', '']) expect(unsafeEntryName(bad)).not.toBeNull();
  });

  it('entryTarget keeps every path inside its folder', () => {
    const folder = tempDir();
    expect(entryTarget(folder, 'archive/a.warc')).toBe(path.join(folder, 'archive', 'a.warc'));
    expect(() => entryTarget(folder, '../a.warc')).toThrow(expect.objectContaining({ code: 'WACZ_UNSAFE_PATH' }));
    expect(() => entryTarget(folder, '.')).toThrow(expect.objectContaining({ code: 'WACZ_UNSAFE_PATH' }));
  });
});
