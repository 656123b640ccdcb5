/**
 * Parameters SQLite compiles against (issue 20: the crawl thread's database work per URI). Each
 * statement the frontier, the capture index and the prior-capture store prepare with a `+?` is
 * timed as it is and with a plain `?` in its place (what it was before: SQLite then compiles it
 * again on every call, see core/storage/open-database.ts), alternated round by round on the same
 * crawl database; and the records insert with and without `RETURNING id`. Prints µs per call and
 * the ratio to the plain form measured in the same run.
 *
 *   node bench/sql-bind-bench.ts [--uris=20000] [--rounds=3]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { createCaptureIndex, type RecordRow } from '../core/archive/capture-index.ts';
import { prepareCaptureStatements } from '../core/archive/capture-statements.ts';
import { createCaptureScans } from '../core/archive/capture-scans.ts';
import { PriorCaptureStore } from '../core/archive/prior-capture-store.ts';
import type { Candidate } from '../core/frontier/frontier.ts';
import { prepareFrontierStatements } from '../core/frontier/frontier-statements.ts';
import { createSqliteFrontier } from '../core/frontier/sqlite-frontier.ts';
import { closeDatabase, openDatabase } from '../core/storage/open-database.ts';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const URIS = Number(arg('uris') ?? 20_000);
const ROUNDS = Math.max(1, Number(arg('rounds') ?? 3));
const CALLS = 2000;

const url = (i: number) => `http://www.host${i % 3}.example.test/section/${i % 97}/page-${i}.html`;
const urlkey = (i: number) => `test,example,host${i % 3})/section/${i % 97}/page-${i}.html`;
const uuid = (kind: string, i: number) => `<urn:uuid:00000000-0000-4000-${kind}-${String(i).padStart(12, '0')}>`;

function candidate(i: number): Candidate {
  return { url: url(i), canonical: url(i), fingerprint: BigInt.asIntN(64, BigInt(i + 1) * 0x9e3779b97f4a7c15n), queueKey: `www.host${i % 3}.example.test`, hopsPath: i < 3 ? '' : 'L', via: null, seed: i < 3 };
}

function records(fileId: number, i: number): RecordRow[] {
  const base = { fileId, length: 1400, targetUri: url(i), urlkey: urlkey(i), ts: '20261126031500', date: '2026-11-26T03:15:00.123Z' };
  return [
    { ...base, offset: i * 3000, recordType: 'response', recordId: uuid('8000', i), mime: 'text/html', status: 200, payloadDigest: `sha256:${i.toString(16).padStart(64, '0')}`, page: true },
    { ...base, offset: i * 3000 + 1400, recordType: 'request', recordId: uuid('9000', i), mime: 'application/http; msgtype=request', status: null, payloadDigest: null, method: 'GET', concurrentTo: uuid('8000', i) },
    { ...base, offset: i * 3000 + 1900, recordType: 'metadata', recordId: uuid('a000', i), mime: 'application/warc-fields', status: null, payloadDigest: null, concurrentTo: uuid('8000', i) },
  ] as RecordRow[];
}

/** A crawl database: URIS URIs on 3 hosts, half of them finished with their three index rows. */
function build(file: string): Database.Database {
  const db = openDatabase(file);
  const frontier = createSqliteFrontier(db, { defaultMaxInFlight: 8 });
  const captures = createCaptureIndex(db);
  const fileId = captures.addFile({ path: 'warcs/bench.warc.gz', name: 'bench.warc.gz', source: 'crawl' });
  db.transaction(() => {
    frontier.schedule(Array.from({ length: URIS }, (_, i) => candidate(i)));
    for (let i = 0; i < URIS / 2; i++) {
      const u = frontier.claim(i)!;
      frontier.complete(u, { status: 200, queueReadyAt: i });
      captures.addRecords(records(fileId, i));
    }
  })();
  new PriorCaptureStore(db).insert(Array.from({ length: 1000 }, (_, i) => ['earlier', urlkey(i), url(i), '20250101000000', '2025-01-01T00:00:00Z', 200, `sha1:${String(i).padStart(32, 'A').replace(/[0189]/g, 'C')}`, null, 'old.warc.gz', i * 1000, 900] as const));
  return db;
}

function plusStatements(db: Database.Database): Map<string, string> {
  const found = new Map<string, string>();
  for (const [name, s] of Object.entries(prepareFrontierStatements(db))) if (s.source.includes('+?')) found.set(s.source, `frontier ${name}`);
  for (const [name, s] of Object.entries(prepareCaptureStatements(db))) if (s.source.includes('+?')) found.set(s.source, `capture ${name}`);
  const prepare = db.prepare.bind(db);
  const spied = Object.create(db, {
    prepare: {
      value: (sql: string) => {
        if (sql.includes('+?') && !found.has(sql)) found.set(sql, /prior_captures/.test(sql) ? 'prior captures' : 'capture scans');
        return prepare(sql);
      },
    },
  }) as Database.Database;
  new PriorCaptureStore(spied);
  createCaptureScans(spied).firstPage(urlkey(0));
  return found;
}

function values(sql: string, i: number): unknown[] {
  if (/queue_id = \+\?/.test(sql)) return [1];
  if (/not_before <= \?/.test(sql)) return [Date.now(), 100];
  if (/payload_digest = \+\?/.test(sql)) return [Buffer.alloc(20, i & 255)];
  if (/record_id = \+\?/.test(sql)) return [Buffer.from(uuid('8000', i).slice(10, -1).replace(/-/g, ''), 'hex')];
  if (/digest = \+\? AND url/.test(sql)) return [`sha1:${'A'.repeat(32)}`, url(i)];
  if (/digest = \+\?/.test(sql)) return [`sha1:${'A'.repeat(32)}`];
  return [urlkey(i), '20261126031500'].slice(0, (sql.match(/\?/g) ?? []).length);
}

function timeCalls(db: Database.Database, sql: string): number {
  const st = db.prepare(sql);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) st.all(...values(sql, i));
  return Number(process.hrtime.bigint() - t0) / 1e3 / CALLS;
}

/** The records insert, CALLS rows, rolled back. */
function timeInsert(db: Database.Database, returning: boolean, round: number): number {
  const sql = prepareCaptureStatements(db).insertRecord.source + (returning ? ' RETURNING id' : '');
  const st = db.prepare(sql);
  db.exec('SAVEPOINT bench');
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) {
    const n = 10_000_000 + round * CALLS + i;
    const args = [1, n * 3000, 1400, 'response', Buffer.from(uuid('b000', n).slice(10, -1).replace(/-/g, ''), 'hex'), url(n), urlkey(n), '20261126031500', Buffer.from([0, 123]), 'text/html', 200, `sha256:${n.toString(16).padStart(64, '0')}`, null, null, null, null, null, 6000, null, null, 1, null];
    if (returning) st.get(...args);
    else st.run(...args);
  }
  const us = Number(process.hrtime.bigint() - t0) / 1e3 / CALLS;
  db.exec('ROLLBACK TO bench');
  db.exec('RELEASE bench');
  return us;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-sql-bind-'));
const db = build(path.join(dir, 'crawl.sqlite'));
try {
  const statements = plusStatements(db);
  const load0 = os.loadavg()[0]!;
  const rows = [...statements].map(([sql, name]) => ({ name, sql, plus: [] as number[], plain: [] as number[] }));
  const insert = { returning: [] as number[], run: [] as number[] };
  db.exec('BEGIN');
  for (let r = 0; r < ROUNDS; r++) {
    for (const row of rows) {
      const plain = row.sql.replace(/\+\?/g, '?');
      if (r % 2) row.plain.push(timeCalls(db, plain)), row.plus.push(timeCalls(db, row.sql));
      else row.plus.push(timeCalls(db, row.sql)), row.plain.push(timeCalls(db, plain));
    }
    if (r % 2) insert.returning.push(timeInsert(db, true, r)), insert.run.push(timeInsert(db, false, r));
    else insert.run.push(timeInsert(db, false, r)), insert.returning.push(timeInsert(db, true, r));
  }
  db.exec('ROLLBACK');
  console.log(`\nsql-bind: ${URIS.toLocaleString('en')}-URI crawl database, ${CALLS} calls per statement and form, ${ROUNDS} alternated rounds (medians); 1-min load ${load0.toFixed(2)} → ${os.loadavg()[0]!.toFixed(2)}`);
  console.log('| statement | plain `?` µs | `+?` µs | ratio |');
  console.log('|---|---:|---:|---:|');
  for (const row of rows) {
    const a = median(row.plain);
    const b = median(row.plus);
    console.log(`| ${row.name}: ${row.sql.replace(/\s+/g, ' ').replace(/^SELECT .*? FROM /, 'SELECT … FROM ').slice(0, 90)} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(b / a).toFixed(2)} |`);
  }
  const a = median(insert.returning);
  const b = median(insert.run);
  console.log(`| records insert: RETURNING id → run().lastInsertRowid | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(b / a).toFixed(2)} |`);
} finally {
  closeDatabase(db);
  fs.rmSync(dir, { recursive: true, force: true });
}
