/**
 * A record is indexed the same however it reached the archive: the rows a live crawl of the
 * fixture site wrote (crawl/capture-rows.ts) equal, field for field, the rows an import of the
 * same WARC files builds (archive/import-record-row.ts). warcio reads the files independently
 * to confirm every row points at the record it names.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WARCParser } from 'warcio';
import { openArchive } from '../../core/archive/archive-dir.ts';
import type { Archive } from '../../core/archive/archive-dir.ts';
import type { CaptureRow } from '../../core/archive/capture-index.ts';
import { importIntoArchive } from '../../core/archive/import-warc.ts';
import { crawlFixture, type CrawledArchive } from '../export/export-fixture.ts';

function allRows(a: Archive): CaptureRow[] {
  const out: CaptureRow[] = [];
  const n = a.index.count();
  for (let id = 1; out.length < n && id <= n * 2 + 10; id++) {
    const r = a.index.byId(id);
    if (r) out.push(r);
  }
  return out;
}

/**
 * A row without where this archive keeps it (ids and file paths differ between the two). A
 * revisit's title is left out: the crawl stores the text of the page it fetched under the
 * revisit (search finds it), which sets the title; an import has no body to read it from.
 */
function comparable(r: CaptureRow): Omit<CaptureRow, 'id' | 'fileId' | 'filePath'> {
  const { id: _id, fileId: _fileId, filePath: _filePath, ...rest } = r;
  return r.recordType === 'revisit' ? { ...rest, title: null } : rest;
}

describe('index rows: live crawl and import agree', () => {
  let c: CrawledArchive;
  let live: Archive;
  let imported: Archive;
  let warcs: string[];

  beforeAll(async () => {
    c = await crawlFixture('parity');
    live = openArchive(c.dir, { create: false });
    warcs = live.index.files().map((f) => (path.isAbsolute(f.path) ? f.path : path.join(c.dir, f.path)));
    imported = openArchive(path.join(c.out, 'imported'));
    const report = await importIntoArchive(imported, warcs, {});
    expect(report.problems).toEqual([]);
  }, 120_000);

  afterAll(async () => {
    live?.close();
    imported?.close();
    await c?.cleanup();
  });

  it('gives every crawled record the row an import of its file gives it', () => {
    const liveRows = allRows(live);
    const importedRows = new Map(allRows(imported).map((r) => [r.recordId, r]));
    expect(liveRows.length).toBeGreaterThan(20);
    const types = new Set(liveRows.map((r) => r.recordType));
    for (const t of ['response', 'revisit', 'request', 'metadata']) expect(types).toContain(t);
    expect(liveRows.some((r) => r.page && r.title)).toBe(true);
    for (const r of liveRows) {
      const other = importedRows.get(r.recordId);
      expect(other, `imported row for ${r.recordType} ${r.targetUri}`).toBeDefined();
      expect(comparable(r), `${r.recordType} ${r.targetUri}`).toEqual(comparable(other!));
    }
    // The import also indexes each file's warcinfo, which a crawl does not list.
    const liveIds = new Set(liveRows.map((r) => r.recordId));
    expect([...importedRows.values()].filter((r) => !liveIds.has(r.recordId)).every((r) => r.recordType === 'warcinfo')).toBe(true);
  });

  it('points each row at the record warcio finds there', async () => {
    const byFile = new Map<string, CaptureRow[]>();
    for (const r of allRows(live)) byFile.set(r.fileName, [...(byFile.get(r.fileName) ?? []), r]);
    for (const file of warcs) {
      const atOffset = new Map<number, { id: string | null; type: string | null }>();
      const parser = new WARCParser(fs.createReadStream(file));
      for await (const rec of parser) {
        atOffset.set(parser.offset, { id: rec.warcHeader('WARC-Record-ID') ?? null, type: rec.warcType ?? null });
      }
      for (const r of byFile.get(path.basename(file)) ?? []) {
        expect(atOffset.get(r.offset)).toEqual({ id: r.recordId, type: r.recordType });
      }
    }
  });
});
