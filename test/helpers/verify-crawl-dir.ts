/**
 * The invariants a crawl directory must hold after any stop, crash or resume: no `.open` file,
 * every WARC reads cleanly with warcio, and the capture index and the WARC bytes agree record
 * for record (same record ids at the same file offsets, nothing missing on either side).
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { readWarcDir, type ReadRecord } from './read-warcs.ts';
import { recordIdSql } from '../../core/archive/record-id-key.ts';
import { recordTypeCode } from '../../core/archive/record-type-key.ts';

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
  let rows: { name: string; offset: number; record_id: string }[];
  try {
    rows = db
      .prepare(`SELECT f.name AS name, r.offset AS offset, ${recordIdSql('r.record_id')} AS record_id FROM records r JOIN warc_files f ON f.id = r.file_id WHERE r.record_type != ${recordTypeCode('warcinfo')}`)
      .all() as typeof rows;
  } finally {
    db.close();
  }
  const key = (name: string, offset: number, id: string) => `${name}@${offset} ${id}`;
  const inWarc = new Set(records.filter((r) => r.type !== 'warcinfo').map((r) => key(r.file, r.offset, r.recordId)));
  const inIndex = new Set(rows.map((r) => key(r.name, r.offset, r.record_id)));
  return {
    records,
    openFiles,
    indexOnly: [...inIndex].filter((k) => !inWarc.has(k)),
    warcOnly: [...inWarc].filter((k) => !inIndex.has(k)),
  };
}
