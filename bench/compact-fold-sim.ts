/**
 * What folding a crawl's request and metadata rows into their capture's row would save in
 * `crawl.sqlite` (issue 20: ≤ 700 bytes per URI), measured on a real crawl database before such
 * a schema existed. Since schema 10 a crawl folds them itself (archive/capture-folds.ts), so its
 * database has nothing left for this script to fold: it measures a crawl a build before version
 * 10 wrote (bench/README.md keeps both figures).
 *
 * Before version 10 a request or metadata record written with its capture is a compact row of its own
 * (capture-statements.ts): its record id (16 bytes), offset, length, content length and a parent
 * id, plus its entries in four indexes. Folded, the capture row would carry each child's type,
 * length and content length (the child starts where the one before it ends, so no offset), and
 * the child's record id would be derived from the capture's (so no stored id and no index entry).
 * This script rebuilds the `records` table both ways from a crawl's rows, in id order and with
 * the indexes in place (the order a crawl inserts them, so pages fill as in a crawl), and prints
 * bytes per URI for the table and each index (SQLite's dbstat). Only children that a fold could
 * take are folded: a compact row directly after its parent in the file (offset = the previous
 * record's end), at most two per capture.
 *
 *   node bench/crawl100k-bench.ts --levels=4 --keep     # prints the kept crawl folder
 *   node bench/compact-fold-sim.ts <crawl folder>/crawl.sqlite
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';

type Row = Record<string, unknown> & { id: bigint; parent_id: bigint | null; offset: bigint; length: bigint };

const CHILD_COLUMNS = ['c1_type', 'c1_len', 'c1_clen', 'c2_type', 'c2_len', 'c2_clen'];

function rebuild(src: Database.Database, out: string, fold: boolean): { name: string; bytes: number }[] {
  fs.rmSync(out, { force: true });
  const d = new Database(out);
  d.pragma(`page_size = ${src.pragma('page_size', { simple: true })}`);
  const table = (src.prepare("SELECT sql FROM sqlite_master WHERE name = 'records'").get() as { sql: string }).sql
    .replace(/REFERENCES warc_files\(id\) ON DELETE CASCADE/, '')
    .replace(/parent_id\s+INTEGER/, fold ? `parent_id INTEGER, ${CHILD_COLUMNS.join(', ')}` : 'parent_id INTEGER');
  d.exec(table);
  for (const { sql } of src.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'records' AND sql IS NOT NULL").all() as { sql: string }[]) d.exec(sql);
  // BigInts in and out: better-sqlite3 binds a JavaScript number as a REAL, 8 bytes in a column without affinity.
  const rows = src.prepare('SELECT * FROM records ORDER BY id').safeIntegers(true).all() as Row[];
  const byId = new Map(rows.map((r) => [r.id, r]));
  const folded = new Map<bigint, Row[]>();
  if (fold) {
    for (const r of rows) {
      if (r.parent_id === null) continue;
      const kids = folded.get(r.parent_id) ?? [];
      const before = kids.at(-1) ?? byId.get(r.parent_id)!;
      if (kids.length < 2 && r.offset === before.offset + before.length) {
        kids.push(r);
        folded.set(r.parent_id, kids);
      }
    }
  }
  const foldedIds = new Set([...folded.values()].flat().map((r) => r.id));
  const cols = Object.keys(rows[0]!);
  const all = fold ? [...cols, ...CHILD_COLUMNS] : cols;
  const insert = d.prepare(`INSERT INTO records (${all.join(', ')}) VALUES (${all.map(() => '?').join(', ')})`);
  d.transaction(() => {
    for (const r of rows) {
      if (foldedIds.has(r.id)) continue;
      const values = cols.map((c) => r[c]);
      if (fold) {
        const kids = folded.get(r.id) ?? [];
        for (const k of [kids[0], kids[1]]) values.push(k?.record_type ?? null, k?.length ?? null, k?.content_length ?? null);
      }
      insert.run(...values);
    }
  })();
  const bytes = d
    .prepare("SELECT name, SUM(pgsize) AS bytes FROM dbstat WHERE name = 'records' OR name LIKE 'records_%' GROUP BY name ORDER BY bytes DESC")
    .all() as { name: string; bytes: number }[];
  d.close();
  return bytes;
}

const file = process.argv[2];
if (!file || !fs.existsSync(file)) {
  console.error('usage: node bench/compact-fold-sim.ts <crawl.sqlite>');
  process.exit(2);
}
const src = new Database(file, { readonly: true });
const uris = (src.prepare('SELECT COUNT(*) AS n FROM uris').get() as { n: number }).n;
const fileBytes = fs.statSync(file).size;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-fold-'));
try {
  const as = rebuild(src, path.join(tmp, 'as-is.sqlite'), false);
  const folded = rebuild(src, path.join(tmp, 'folded.sqlite'), true);
  const sum = (t: { bytes: number }[]) => t.reduce((a, b) => a + b.bytes, 0);
  const per = (b: number) => (b / uris).toFixed(0);
  console.log(`${uris} URIs; crawl.sqlite ${per(fileBytes)} bytes/URI as crawled`);
  for (const [name, t] of [['records as they are', as], ['children folded', folded]] as const) {
    console.log(`  ${name.padEnd(20)} table + indexes ${per(sum(t)).padStart(4)} bytes/URI: ${t.map((x) => `${x.name} ${per(x.bytes)}`).join(', ')}`);
  }
  const saved = sum(as) - sum(folded);
  console.log(`  folding saves ${per(saved)} bytes/URI: crawl.sqlite would be ~${per(fileBytes - saved)} bytes/URI`);
} finally {
  src.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}
