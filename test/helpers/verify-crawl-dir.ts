/**
 * The invariants a crawl directory must hold after any stop, crash or resume: no `.open` file,
 * every WARC reads cleanly with warcio, and the capture index and the WARC bytes agree record
 * for record (same record ids at the same file offsets, nothing missing on either side).
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { readWarcDir, type ReadRecord } from './read-warcs.ts';
import { RECORD_COLUMNS, RECORD_FROM } from '../../core/archive/capture-statements.ts';
import type { CaptureDbRow } from '../../core/archive/capture-statements.ts';
import { expand, FOLD_COLUMNS } from '../../core/archive/capture-folds.ts';
import type { FoldedDbRow } from '../../core/archive/capture-folds.ts';

export interface CrawlDirCheck {
  records: ReadRecord[];
  indexOnly: string[];
  warcOnly: string[];
  openFiles: string[];
}

export async function verifyCrawlDir(dir: string): Promise<CrawlDirCheck> {
  const warcs = path.join(dir, 'warcs');
  const openFiles = fs.readdirSync(warcs).filter((n) => n.endsWith('.open'));
  const records = await readWarcDir(warcs);
  const db = new Database(path.join(dir, 'crawl.sqlite'), { readonly: true });
  let rows: CaptureDbRow[];
  try {
    // Every record a row stands for: itself and the request and metadata records folded into it (capture-folds.ts).
    rows = (
      db
        .prepare(`SELECT ${RECORD_COLUMNS}, ${FOLD_COLUMNS}, f.path AS file_path, f.name AS file_name FROM ${RECORD_FROM} JOIN warc_files f ON f.id = r.file_id`)
        .all() as FoldedDbRow[]
    )
      .flatMap(expand)
      .filter((r) => r.record_type !== 'warcinfo');
  } finally {
    db.close();
  }
  const key = (name: string, offset: number, id: string | null) => `${name}@${offset} ${id}`;
  const inWarc = new Set(records.filter((r) => r.type !== 'warcinfo').map((r) => key(r.file, r.offset, r.recordId)));
  const inIndex = new Set(rows.map((r) => key(r.file_name, r.offset, r.record_id)));
  return {
    records,
    openFiles,
    indexOnly: [...inIndex].filter((k) => !inWarc.has(k)),
    warcOnly: [...inWarc].filter((k) => !inIndex.has(k)),
  };
}
