/**
 * Fixity recorded when a WARC is written (crawl) or indexed (import), and reused by the WACZ
 * export while the file is unchanged: the package's SHA-256 and CRC-32 are checked here against
 * the bytes read back with yauzl, for trusted, changed and damaged WARCs.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseOf, openArchive } from '../../core/archive/archive-dir.ts';
import type { Archive } from '../../core/archive/archive-dir.ts';
import { recordedFixity } from '../../core/archive/file-fixity.ts';
import { importFiles } from '../../core/archive/import-warc.ts';
import { resumeCrawl } from '../../core/crawl/start-crawl.ts';
import { archiveWarcs } from '../../core/export/archive-warcs.ts';
import { exportWacz } from '../../core/export/export-wacz.ts';
import { crawlFixture } from './export-fixture.ts';
import { checkWithPythonAndUnzip, readZip, readZipEverywhere } from './independent-zip-readers.ts';
import type { CrawledArchive } from './export-fixture.ts';
import type { ZipEntryRead } from './independent-zip-readers.ts';

const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

function datapackageHashes(entries: ZipEntryRead[]): Map<string, string> {
  const dp = JSON.parse(entries.find((e) => e.name === 'datapackage.json')!.data.toString('utf8')) as { resources: { path: string; hash: string }[] };
  return new Map(dp.resources.map((r) => [r.path, r.hash]));
}

describe('WARC fixity recorded at capture and used by the WACZ export', () => {
  let c: CrawledArchive;

  beforeAll(async () => {
    c = await crawlFixture('fixity');
  }, 60_000);

  afterAll(async () => {
    await c?.cleanup();
  });

  const withArchive = async <T>(fn: (a: Archive) => Promise<T> | T): Promise<T> => {
    const a = openArchive(c.dir, { create: false });
    try {
      return await fn(a);
    } finally {
      a.close();
    }
  };

  it('records SHA-256 and CRC-32 of every WARC the crawl closed, equal to the file bytes', async () => {
    await withArchive((a) => {
      const files = a.index.files();
      expect(files.length).toBeGreaterThan(0);
      for (const f of files) {
        const bytes = fs.readFileSync(path.join(c.dir, f.path));
        const fx = recordedFixity(databaseOf(a), f.id);
        expect(fx, f.path).not.toBeNull();
        expect(fx!.sha256).toBe(sha256(bytes));
        expect(fx!.crc32).toBe(crc32(bytes));
        expect(fx!.bytes).toBe(bytes.length);
      }
    });
  });

  it('exports with the recorded fixity: no WARC hashed again, and the package hashes match the bytes', async () => {
    const file = path.join(c.out, 'trusted.wacz');
    const r = await withArchive((a) => exportWacz(a, file));
    expect(r.fixity).toEqual({ recorded: r.warcs, hashed: 0, verified: 0 });
    const entries = await readZipEverywhere(file);
    const hashes = datapackageHashes(entries);
    for (const e of entries) {
      expect(e.crc32, e.name).toBe(crc32(e.data));
      if (hashes.has(e.name)) expect(hashes.get(e.name), e.name).toBe(`sha256:${sha256(e.data)}`);
    }
  });

  it('verifies on request: every WARC hashed and matching', async () => {
    const r = await withArchive((a) => exportWacz(a, path.join(c.out, 'verified.wacz'), { verifyFixity: true }));
    expect(r.fixity).toEqual({ recorded: 0, hashed: r.warcs, verified: r.warcs });
  });

  it('a WARC damaged in place (size and mtime kept) keeps its recorded hash, so the package shows the damage; --verify refuses it', async () => {
    const warc = await withArchive((a) => archiveWarcs(a)[0]!);
    const st = fs.statSync(warc.source);
    const original = fs.readFileSync(warc.source);
    const damaged = Buffer.from(original);
    damaged[damaged.length - 10] ^= 0xff; // a byte flipped inside the last gzip member
    fs.writeFileSync(warc.source, damaged);
    fs.utimesSync(warc.source, st.atime, st.mtime);
    try {
      expect(Math.round(fs.statSync(warc.source).mtimeMs)).toBe(Math.round(st.mtimeMs));
      const file = path.join(c.out, 'damaged.wacz');
      await withArchive((a) => exportWacz(a, file));
      // The package carries the fixity of the bytes as written: any WACZ or ZIP check now fails.
      await expect(readZip(file)).rejects.toThrow(`archive/${warc.name}: CRC-32 of the data`);
      expect(() => checkWithPythonAndUnzip(file)).toThrow();
      const entries = await readZip(file, { checkDataCrc: false });
      const e = entries.find((x) => x.name === `archive/${warc.name}`)!;
      expect(e.data.equals(damaged)).toBe(true);
      expect(datapackageHashes(entries).get(e.name)).toBe(`sha256:${sha256(original)}`);
      expect(e.crc32).toBe(crc32(original));
      expect(e.crc32).not.toBe(crc32(damaged));

      const refused = path.join(c.out, 'refused.wacz');
      await expect(withArchive((a) => exportWacz(a, refused, { verifyFixity: true }))).rejects.toMatchObject({ code: 'EXPORT_FIXITY_MISMATCH' });
      expect(fs.existsSync(refused)).toBe(false);
      expect(fs.existsSync(`${refused}.part`)).toBe(false);
    } finally {
      fs.writeFileSync(warc.source, original);
      fs.utimesSync(warc.source, st.atime, st.mtime);
    }
  });

  it('a WARC whose mtime changed is hashed as it is now, and reported when its bytes differ from the record', async () => {
    const warc = await withArchive((a) => archiveWarcs(a)[0]!);
    const st = fs.statSync(warc.source);
    const original = fs.readFileSync(warc.source);
    try {
      fs.utimesSync(warc.source, st.atime, new Date(st.mtimeMs + 5000));
      let r = await withArchive((a) => exportWacz(a, path.join(c.out, 'touched.wacz')));
      expect(r.fixity.hashed).toBe(1);
      expect(r.changedSinceRecorded).toEqual([]);

      const changed = Buffer.from(original);
      changed[changed.length - 10] ^= 0xff;
      fs.writeFileSync(warc.source, changed);
      const file = path.join(c.out, 'changed.wacz');
      r = await withArchive((a) => exportWacz(a, file));
      expect(r.changedSinceRecorded).toEqual([warc.name]);
      const e = (await readZipEverywhere(file)).find((x) => x.name === `archive/${warc.name}`)!;
      expect(datapackageHashes(await readZipEverywhere(file)).get(e.name)).toBe(`sha256:${sha256(changed)}`);
      expect(e.crc32).toBe(crc32(changed));
    } finally {
      fs.writeFileSync(warc.source, original);
      fs.utimesSync(warc.source, st.atime, st.mtime);
    }
  });

  it('a crawl stopped before its WARCs were sealed seals them when it runs again', async () => {
    await withArchive((a) => databaseOf(a).prepare('DELETE FROM file_fixity').run());
    const crawl = await resumeCrawl(c.dir);
    await crawl.finished();
    await withArchive((a) => {
      for (const f of a.index.files()) expect(recordedFixity(databaseOf(a), f.id), f.path).not.toBeNull();
    });
  });

  it('imports record fixity too: WARCs in place, and WARCs inside a WACZ (equal to its datapackage hashes)', async () => {
    const wacz = path.join(c.out, 'for-import.wacz');
    await withArchive((a) => exportWacz(a, wacz));
    const warcs = await withArchive((a) => archiveWarcs(a).map((w) => w.source));
    const dir = path.join(c.out, 'imported');
    await importFiles(dir, [...warcs, wacz]);
    const hashes = datapackageHashes(await readZipEverywhere(wacz));
    const imported = openArchive(dir, { create: false });
    try {
      const files = imported.index.files();
      expect(files.length).toBe(warcs.length * 2);
      for (const f of files) {
        const fx = recordedFixity(databaseOf(imported), f.id);
        expect(fx, f.path).not.toBeNull();
        if (f.path.includes('.wacz!/')) expect(`sha256:${fx!.sha256}`).toBe(hashes.get(f.path.split('!/')[1]!));
        else expect(fx!.sha256).toBe(sha256(fs.readFileSync(f.path)));
      }
      const r = await exportWacz(imported, path.join(c.out, 'from-import.wacz'));
      expect(r.fixity.recorded).toBe(files.length);
    } finally {
      imported.close();
    }
  });
});
