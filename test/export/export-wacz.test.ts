import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WARCParser } from 'warcio';
import { databaseOf, openArchive } from '../../core/archive/archive-dir.ts';
import type { Archive } from '../../core/archive/archive-dir.ts';
import { importFiles } from '../../core/archive/import-warc.ts';
import { RECORD_COLUMNS, RECORD_FROM } from '../../core/archive/capture-statements.ts';
import { recordIdSql } from '../../core/archive/record-id-key.ts';
import { exportWacz } from '../../core/export/export-wacz.ts';
import { digestFromKey } from '../../core/formats/digest.ts';
import type { WaczExportResult } from '../../core/export/export-wacz.ts';
import type { ExportProgress } from '../../core/export/export-types.ts';
import { replay } from '../../core/replay/replay.ts';
import { crawlFixture } from './export-fixture.ts';
import { readZipEverywhere } from './independent-zip-readers.ts';
import type { CrawledArchive } from './export-fixture.ts';
import type { ZipEntryRead } from './independent-zip-readers.ts';
import { parseCdxjLine, readWaczIndexLines } from './wacz-index-reader.ts';
import { pyWaczChecks } from './py-wacz-checks.ts';

const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

interface DbRow {
  record_id: string;
  record_type: string;
  target_uri: string | null;
  ts: string | null;
  status: number | null;
  payload_digest: string | null;
  length: number;
  offset: number;
  page: number;
  mime: string | null;
  urlkey: string | null;
  concurrent_to: string | null;
  refers_to: string | null;
}
const rowsOf = (a: Archive) =>
  databaseOf(a)
    // Read as the index's readers read rows (compact rows filled in, record ids as text).
    .prepare(
      `SELECT record_id, record_type, target_uri, ts, status, payload_digest, length, offset, page, mime, urlkey, concurrent_to, refers_to
       FROM (SELECT ${RECORD_COLUMNS} FROM ${RECORD_FROM}) ORDER BY id`,
    )
    .all()
    .map((r) => ({ ...(r as DbRow), payload_digest: digestFromKey((r as { payload_digest: string | Buffer | null }).payload_digest) }));
const media = (m: string | null) => (m === null ? null : m.split(';')[0]!.trim().toLowerCase());

describe('WACZ export of a real crawl', () => {
  let c: CrawledArchive;
  let archive: Archive;
  let file: string;
  let result: WaczExportResult;
  let entries: ZipEntryRead[];
  const progress: ExportProgress[] = [];

  beforeAll(async () => {
    c = await crawlFixture('wacz');
    archive = openArchive(c.dir, { create: false });
    file = path.join(c.out, 'fixture.wacz');
    result = await exportWacz(archive, file, { onProgress: (p) => progress.push(p), pageText: true });
    entries = await readZipEverywhere(file);
  }, 60_000);

  afterAll(async () => {
    archive?.close();
    await c?.cleanup();
  });

  const entry = (name: string) => entries.find((e) => e.name === name)!;

  it('lays the package out as WACZ 1.1.1 asks, with the WARCs STORED and no data descriptors', () => {
    const names = entries.map((e) => e.name);
    expect(names.filter((n) => n.startsWith('archive/')).length).toBe(result.warcs);
    expect(result.warcs).toBeGreaterThan(0);
    for (const n of ['indexes/index.cdx.gz', 'indexes/index.idx', 'pages/pages.jsonl', 'datapackage.json', 'datapackage-digest.json']) expect(names).toContain(n);
    for (const e of entries) {
      if (e.name.startsWith('archive/')) expect(e.compressionMethod).toBe(0);
      expect(e.generalPurposeBitFlag & 8).toBe(0);
    }
    expect(fs.statSync(file).size).toBe(result.bytes);
    expect(fs.existsSync(`${file}.part`)).toBe(false);
  });

  it("passes the checks py-wacz's `wacz validate` makes (rewritten in Python, read with zipfile)", () => {
    expect(pyWaczChecks(file)).toEqual({ problems: [], captures: result.captures });
  });

  it('stores every WARC byte for byte', () => {
    for (const w of archive.index.files()) {
      const e = entry(`archive/${w.name}`);
      expect(e.data.equals(fs.readFileSync(path.join(c.dir, w.path)))).toBe(true);
    }
  });

  it('lists every resource in datapackage.json with its sha256 and size, and digests datapackage.json', () => {
    const dpBytes = entry('datapackage.json').data;
    const dp = JSON.parse(dpBytes.toString('utf8'));
    expect(dp.profile).toBe('data-package');
    expect(dp.wacz_version).toBe('1.1.1');
    expect(dp.software).toMatch(/^Trove /);
    expect(dp.title).toBe('fixture');
    expect(dp.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(dp.mainPageUrl).toBe(c.site.origin + '/');
    expect(Date.parse(dp.mainPageDate)).not.toBeNaN();
    const listed = dp.resources.map((r: { path: string }) => r.path).sort();
    expect(listed).toEqual(entries.map((e) => e.name).filter((n) => !n.startsWith('datapackage')).sort());
    for (const r of dp.resources as { name: string; path: string; hash: string; bytes: number }[]) {
      const e = entry(r.path);
      expect(r.hash).toBe(`sha256:${sha256(e.data)}`);
      expect(r.bytes).toBe(e.data.length);
      // Frictionless names (what `wacz validate` checks): lowercase, unique; paths keep their case.
      expect(r.name).toMatch(/^([-a-z0-9._/])+$/);
      expect(r.name).toBe(path.posix.basename(r.path).toLowerCase().replace(/[^-a-z0-9._/]/g, '-'));
    }
    expect(new Set(dp.resources.map((r: { name: string }) => r.name)).size).toBe(dp.resources.length);
    expect(dp.resources.some((r: { path: string }) => /[A-Z~]/.test(r.path))).toBe(true);
    const digest = JSON.parse(entry('datapackage-digest.json').data.toString('utf8'));
    expect(digest).toEqual({ path: 'datapackage.json', hash: `sha256:${sha256(dpBytes)}` });
  });

  it('writes a bytewise-sorted CDXJ index whose offsets land on the right records (read with warcio)', async () => {
    const { kind, lines } = readWaczIndexLines(entries);
    expect(kind).toBe('zipnum');
    expect(entry('indexes/index.cdx.gz').compressionMethod).toBe(0);
    expect(lines.length).toBe(result.captures);
    const sorted = [...lines].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect(lines).toEqual(sorted);
    const captures = rowsOf(archive).filter((r) => ['response', 'revisit', 'resource'].includes(r.record_type));
    expect(lines.length).toBe(captures.length);
    for (const line of lines) {
      const { urlkey, ts, json } = parseCdxjLine(line);
      const warc = entry(`archive/${json.filename}`);
      const bytes = warc.data.subarray(Number(json.offset), Number(json.offset) + Number(json.length));
      const record = await new WARCParser([bytes]).parse();
      expect(record).not.toBeNull();
      expect(record!.warcTargetURI).toBe(json.url);
      expect(record!.warcDate!.replace(/\D/g, '').slice(0, 14)).toBe(ts);
      expect(['response', 'revisit', 'resource']).toContain(record!.warcType);
      if (record!.warcType === 'revisit') expect(json.mime).toBe('warc/revisit');
      expect(typeof json.status).toBe('string');
      expect(urlkey).toMatch(/^[^ ]+\)\//);
    }
  });

  it('lists the HTML 200 pages in pages.jsonl after the header line', () => {
    const lines = entry('pages/pages.jsonl').data.toString('utf8').trimEnd().split('\n');
    expect(lines[0]).toBe('{"format":"json-pages-1.0","id":"pages","title":"All Pages","hasText":true}');
    const pages = lines.slice(1).map((l) => JSON.parse(l));
    const dbPages = rowsOf(archive).filter((r) => r.page === 1);
    expect(pages.length).toBe(dbPages.length);
    expect(pages.length).toBe(result.pages);
    const home = pages.find((p) => p.url === c.site.origin + '/');
    expect(home.title).toBe('Fixture home');
    expect(home.text).toContain('lighthouse');
    for (const p of pages) {
      expect(p.id).toMatch(/^[0-9a-f]{24}$/);
      expect(p.ts).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    }
    expect(new Set(pages.map((p) => p.id)).size).toBe(pages.length);
  });

  it('reports progress through every phase, ending complete', () => {
    const phases = [...new Set(progress.map((p) => p.phase))];
    expect(phases).toEqual(['warcs', 'index', 'pages', 'finish']);
    const last = progress.at(-1)!;
    expect(last).toMatchObject({ phase: 'finish', done: 1, total: 1, bytes: result.bytes });
  });

  it('imports back into Trove with identical captures, and replays the same bodies', async () => {
    const dir = path.join(c.out, 'reimport');
    const report = await importFiles(dir, [file]);
    expect(report.problems).toEqual([]);
    const again = openArchive(dir, { create: false });
    try {
      // A crawl does not index its warcinfo records; an import does.
      const before = rowsOf(archive).filter((r) => r.record_type !== 'warcinfo');
      const after = rowsOf(again).filter((r) => r.record_type !== 'warcinfo');
      expect(after.length).toBe(before.length);
      expect(rowsOf(again).length - after.length).toBe(result.warcs);
      const byId = new Map(after.map((r) => [r.record_id, r]));
      const dataStart = new Map(entries.map((e) => [e.name, e.dataOffset]));
      const fileOf = new Map(archive.index.files().map((f) => [f.id, f.name]));
      const originals = databaseOf(archive).prepare(`SELECT ${recordIdSql('record_id')} AS record_id, file_id FROM records`).all() as { record_id: string; file_id: number }[];
      const fileByRecord = new Map(originals.map((o) => [o.record_id, fileOf.get(o.file_id)!]));
      const pageDiffs: string[] = [];
      for (const b of before) {
        const a = byId.get(b.record_id)!;
        expect(a, b.record_id).toBeDefined();
        // The crawl and the importer count pages alike (HTML 200 responses, not revisits).
        expect({ ...a, mime: media(a.mime), offset: 0, page: 0 }).toEqual({ ...b, mime: media(b.mime), offset: 0, page: 0 });
        if (a.page !== b.page) pageDiffs.push(b.target_uri!);
        expect(a.offset).toBe(dataStart.get(`archive/${fileByRecord.get(b.record_id)}`)! + b.offset);
      }
      expect(pageDiffs).toEqual([]);
      for (const p of ['/', '/gzip.html', '/style.css', '/img/logo.png', '/dup-copy.html']) {
        const x = await replay(archive, { url: c.site.origin + p });
        const y = await replay(again, { url: c.site.origin + p });
        expect(x.kind).toBe('archived');
        expect(y.kind).toBe('archived');
        if (x.kind === 'archived' && y.kind === 'archived') {
          expect(y.status).toBe(x.status);
          expect(y.body.equals(x.body)).toBe(true);
        }
      }
    } finally {
      again.close();
    }
  });

  it('re-exports an archive whose WARCs live inside an imported WACZ, offsets relative to each WARC', async () => {
    const dir = path.join(c.out, 'reimport');
    const again = openArchive(dir, { create: false });
    const second = path.join(c.out, 'second.wacz');
    try {
      expect(again.index.files().every((f) => f.path.includes('.wacz!/'))).toBe(true);
      await exportWacz(again, second);
    } finally {
      again.close();
    }
    const e2 = await readZipEverywhere(second);
    expect(pyWaczChecks(second).problems).toEqual([]);
    for (const w of entries.filter((e) => e.name.startsWith('archive/'))) {
      expect(e2.find((e) => e.name === w.name)!.data.equals(w.data), w.name).toBe(true);
    }
    expect(readWaczIndexLines(e2).lines).toEqual(readWaczIndexLines(entries).lines);
  });
});
