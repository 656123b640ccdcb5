/**
 * After a crash, make the capture index agree with the WARC bytes again. The crawl writes a
 * URI's record group first and commits its index rows after, so a `kill -9` in between leaves
 * records in the (recovered) WARC that the index does not know, and so can a database write
 * refused by a full disk after its WARC group was written: they are indexed here. Rows that
 * point past the end of a file (possible only after power loss, when the file system dropped
 * bytes the database had already committed) are removed. Only files that were left `.open` are
 * walked: closed files were complete when their rows committed.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { CaptureIndex, RecordRow } from '../archive/capture-index.ts';
import { importedRow } from '../archive/import-record-row.ts';
import { RequestLinks } from '../archive/request-links.ts';
import { openArchiveFile, type WarcRecord } from '../warc/read-records.ts';
import type { CrawlNote } from '../api/error-codes.ts';

export interface ReconcileResult {
  added: number;
  removed: number;
  notes: CrawlNote[];
}

export async function reconcileIndex(captures: CaptureIndex, crawlDir: string, recoveredNames: string[]): Promise<ReconcileResult> {
  const result: ReconcileResult = { added: 0, removed: 0, notes: [] };
  const wanted = new Set(recoveredNames);
  for (const f of captures.files()) {
    if (!wanted.has(f.name)) continue;
    // The file being written is still `NAME.open` on disk.
    const final = path.resolve(crawlDir, f.path);
    const abs = fs.existsSync(final) ? final : fs.existsSync(final + '.open') ? final + '.open' : final;
    const size = fs.existsSync(abs) ? fs.statSync(abs).size : 0;
    const removed = captures.deleteRecordsFrom(f.id, size);
    result.removed += removed;
    if (size === 0) continue;
    // Every record the index does not hold, wherever it sits: after a disk-full pause an orphan
    // group can lie before groups that other slots committed later.
    const indexed = new Set(captures.recordOffsets(f.id));
    const rows: RecordRow[] = [];
    const texts: { index: number; title: string | null; text: string }[] = [];
    // A record's length on disk is final only once the reader has moved past it.
    let last: { rec: WarcRecord; r: Awaited<ReturnType<typeof importedRow>> } | null = null;
    const links = new RequestLinks();
    const settle = () => {
      if (!last) return;
      const { rec, r } = last;
      last = null;
      if (!(rec.length > 0)) return;
      r.row.length = rec.length;
      if (r.text) texts.push({ index: rows.length, ...r.text });
      rows.push(r.row);
    };
    try {
      for await (const rec of openArchiveFile(abs)) {
        settle();
        if (indexed.has(rec.offset) || rec.type === 'warcinfo') continue;
        last = { rec, r: await importedRow(rec, f.id, 0) };
        links.add(last.r);
      }
      settle();
    } catch (err) {
      result.notes.push({ code: 'INDEX_RECONCILE_STOPPED', message: `${f.name}: stopped reconciling at a damaged record (${(err as Error).message})` });
    }
    if (rows.length > 0 || removed > 0) {
      captures.transaction(() => {
        const ids = captures.addRecords(rows);
        for (const t of texts) captures.addPageText(ids[t.index]!, t.title ?? '', t.text);
        captures.updateFile(f.id, { size });
      });
      result.added += rows.length;
      result.notes.push({ code: 'INDEX_RECONCILED', message: `${f.name}: indexed ${rows.length} records written just before the crash${removed ? `, dropped ${removed} rows past the end of the file` : ''}` });
    }
  }
  return result;
}
