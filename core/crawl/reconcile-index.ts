/**
 * After a crash, make the capture index agree with the WARC bytes again. The crawl writes a
 * URI's record group first and commits its index rows after, so a `kill -9` in between leaves
 * records in the (recovered) WARC that the index does not know: they are indexed here. Rows that
 * point past the end of a file (possible only after power loss, when the file system dropped
 * bytes the database had already committed) are removed. Only files that were left `.open` are
 * walked: closed files were complete when their rows committed.
 */
import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import type { CaptureIndex, RecordRow } from '../archive/capture-index.ts';
import { importedRow } from '../archive/import-record-row.ts';
import { openArchiveFile } from '../warc/read-records.ts';

export interface ReconcileResult {
  added: number;
  removed: number;
  notes: string[];
}

export async function reconcileIndex(db: Database.Database, captures: CaptureIndex, crawlDir: string, recoveredNames: string[]): Promise<ReconcileResult> {
  const result: ReconcileResult = { added: 0, removed: 0, notes: [] };
  const wanted = new Set(recoveredNames);
  for (const f of captures.files()) {
    if (!wanted.has(f.name)) continue;
    const abs = path.resolve(crawlDir, f.path);
    const size = fs.existsSync(abs) ? fs.statSync(abs).size : 0;
    const removed = db.prepare('DELETE FROM records WHERE file_id = ? AND offset >= ?').run(f.id, size).changes;
    result.removed += removed;
    if (size === 0) continue;
    const max = (db.prepare('SELECT MAX(offset) AS m FROM records WHERE file_id = ?').get(f.id) as { m: number | null }).m ?? -1;
    const rows: RecordRow[] = [];
    const texts: { index: number; title: string | null; text: string }[] = [];
    try {
      for await (const rec of openArchiveFile(abs)) {
        if (rec.offset <= max || rec.type === 'warcinfo') continue;
        const r = await importedRow(rec, f.id, 0);
        if (r.text) texts.push({ index: rows.length, ...r.text });
        rows.push(r.row);
      }
    } catch (err) {
      result.notes.push(`${f.name}: stopped reconciling at a damaged record (${(err as Error).message})`);
    }
    if (rows.length > 0 || removed > 0) {
      db.transaction(() => {
        const ids = captures.addRecords(rows);
        for (const t of texts) captures.addPageText(ids[t.index]!, t.title ?? '', t.text);
        captures.updateFile(f.id, { size });
      })();
      result.added += rows.length;
      result.notes.push(`${f.name}: indexed ${rows.length} records written just before the crash${removed ? `, dropped ${removed} rows past the end of the file` : ''}`);
    }
  }
  return result;
}
