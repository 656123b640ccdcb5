/**
 * Parameters written `+?` (core/storage/open-database.ts says why): SQLite compiles a statement
 * once instead of on every call, and must plan it exactly as it planned the plain `?` with the
 * same values bound. Checked on a real crawl database (frontier, capture rows, prior captures)
 * without planner statistics and after ANALYZE, for every statement the frontier, the capture
 * index, its scans and the prior-capture store prepare with a `+?`. The statements the crawl runs
 * per URI and replay runs per lookup are named, so dropping the `+` from one of them is caught
 * here rather than by a slower crawl.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createCaptureIndex, type RecordRow } from '../../core/archive/capture-index.ts';
import { prepareCaptureStatements } from '../../core/archive/capture-statements.ts';
import { createCaptureScans } from '../../core/archive/capture-scans.ts';
import { tsKey } from '../../core/archive/capture-ts-key.ts';
import { PriorCaptureStore } from '../../core/archive/prior-capture-store.ts';
import { prepareFrontierStatements } from '../../core/frontier/frontier-statements.ts';
import { createSqliteFrontier } from '../../core/frontier/sqlite-frontier.ts';
import { closeDatabase, openDatabase } from '../../core/storage/open-database.ts';
import { cand } from '../frontier/frontier-contract.ts';
import { makeTempDir } from './temp-dir.ts';

const tmp = makeTempDir('trove-bound-params-');
afterAll(() => tmp.remove());

/** 600 URIs on 3 hosts: half finished with their three index rows, the rest pending; prior captures. */
function crawlDatabase(file: string): Database.Database {
  const db = openDatabase(file);
  const frontier = createSqliteFrontier(db, { defaultMaxInFlight: 4 });
  const captures = createCaptureIndex(db);
  const fileId = captures.addFile({ path: 'warcs/a.warc.gz', name: 'a.warc.gz', source: 'crawl' });
  const url = (i: number) => `http://h${i % 3}.test/p/${i}.html`;
  frontier.schedule(Array.from({ length: 600 }, (_, i) => cand(url(i), { hopsPath: i < 3 ? '' : 'L', seed: i < 3 })));
  for (let i = 0; i < 300; i++) {
    const u = frontier.claim(i)!;
    frontier.complete(u, { status: 200, queueReadyAt: i });
    const n = String(i).padStart(12, '0');
    const base = { fileId, length: 500, targetUri: u.url, urlkey: `test,h${i % 3})/p/${i}.html`, ts: '20261126060000', date: '2026-11-26T06:00:00.123Z' };
    const response = `<urn:uuid:00000000-0000-4000-8000-${n}>`;
    captures.addRecords([
      { ...base, offset: i * 1500, recordType: 'response', recordId: response, mime: 'text/html', status: 200, payloadDigest: `sha1:${'A'.repeat(28)}${String(i).padStart(4, 'B')}`.replace(/[0189]/g, 'C'), page: true },
      { ...base, offset: i * 1500 + 500, recordType: 'request', recordId: `<urn:uuid:00000000-0000-4000-9000-${n}>`, mime: 'application/http; msgtype=request', status: null, payloadDigest: null, method: 'GET', concurrentTo: response },
      { ...base, offset: i * 1500 + 1000, recordType: 'metadata', recordId: `<urn:uuid:00000000-0000-4000-a000-${n}>`, mime: 'application/warc-fields', status: null, payloadDigest: null, concurrentTo: response },
    ] as RecordRow[]);
  }
  // source, urlkey, url, ts, date, status, digest, record_id, file, offset, length
  new PriorCaptureStore(db).insert(
    Array.from({ length: 200 }, (_, i) => ['earlier', `test,h${i % 3})/p/${i}.html`, url(i), '20250101000000', '2025-01-01T00:00:00Z', 200, `sha1:${'D'.repeat(28)}${String(i).padStart(4, '0').replace(/[0189]/g, 'E')}`, null, 'old.warc.gz', i * 1000, 900] as const),
  );
  return db;
}

/** Every SQL text prepared with a `+?` by the stores that own the crawl's per-URI statements. */
function plusStatements(db: Database.Database): Map<string, string> {
  const found = new Map<string, string>();
  const prepare = db.prepare.bind(db);
  const spy = ((sql: string) => {
    if (sql.includes('+?')) found.set(sql, sql);
    return prepare(sql);
  }) as typeof db.prepare;
  const spied = Object.create(db, { prepare: { value: spy } }) as Database.Database;
  for (const [name, s] of Object.entries(prepareFrontierStatements(spied))) if (s.source.includes('+?')) found.set(s.source, name);
  for (const [name, s] of Object.entries(prepareCaptureStatements(spied))) if (s.source.includes('+?')) found.set(s.source, name);
  new PriorCaptureStore(spied);
  createCaptureScans(spied).firstPage('test,h0)/p/0.html'); // its statements are prepared on first use
  return found;
}

/** Values to bind: what the crawl binds (a queue id of 1 is the case SQLite watches for). */
function valuesFor(sql: string): unknown[] {
  const n = (sql.match(/\?/g) ?? []).length;
  if (/queue_id = \+\?/.test(sql)) return [1];
  if (/not_before <= \?/.test(sql)) return [Date.now(), 100];
  if (/payload_digest = \+\?/.test(sql)) return [Buffer.alloc(20, 7)];
  if (/record_id = \+\?/.test(sql)) return [Buffer.alloc(16, 7)];
  if (/digest = \+\? AND url/.test(sql)) return [`sha1:${'D'.repeat(32)}`, 'http://h0.test/p/0.html'];
  if (/digest = \+\?/.test(sql)) return [`sha1:${'D'.repeat(32)}`];
  // A 14-digit bound on records.ts is bound as the integer it is stored as (capture-ts-key.ts).
  if (/r\.ts [<>]=? \+\?/.test(sql)) return ['test,h0)/p/0.html', tsKey('20261126060000')];
  return ['test,h0)/p/0.html', '20261126060000'].slice(0, n);
}

const plan = (db: Database.Database, sql: string, values: unknown[]) =>
  (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...values) as { detail: string }[]).map((r) => r.detail);

describe('parameters SQLite must not compile against (+?)', () => {
  it('plan exactly as the plain parameter with the same values, with and without planner statistics', () => {
    const db = crawlDatabase(path.join(tmp.dir, 'crawl.sqlite'));
    try {
      const statements = plusStatements(db);
      expect(statements.size).toBeGreaterThanOrEqual(12);
      for (const analyzed of [false, true]) {
        if (analyzed) db.exec('ANALYZE');
        for (const sql of statements.keys()) {
          const values = valuesFor(sql);
          const plain = sql.replace(/\+\?/g, '?');
          expect(plan(db, sql, values), `${analyzed ? 'after ANALYZE: ' : ''}${sql}`).toEqual(plan(db, plain, values));
          // And it reads through an index, never a scan of its table.
          expect(plan(db, sql, values).join(' | '), sql).not.toMatch(/^SCAN (uris|records|r|prior_captures)\b/);
        }
      }
    } finally {
      closeDatabase(db);
    }
  });

  it('is used by every statement the crawl runs per URI and replay per lookup', () => {
    const db = openDatabase(path.join(tmp.dir, 'names.sqlite'));
    try {
      const f = prepareFrontierStatements(db);
      const c = prepareCaptureStatements(db);
      const hot = { pickUri: f.pickUri, pickNonPageUri: f.pickNonPageUri, dueWaiting: f.dueWaiting, idByDigest: c.idByDigest, parentCandidate: c.parentCandidate, byRecordId: c.byRecordId, latest: c.latest, atOrAfter: c.atOrAfter, before: c.before, findCaptures: c.findCaptures };
      for (const [name, s] of Object.entries(hot)) {
        // An equality or a LIMIT on a plain `?` is what SQLite compiles against.
        expect(s.source, name).not.toMatch(/([^<>!]=|LIMIT)\s*\?/);
      }
      // The records insert reads its new id from run(), not RETURNING (3× the cost per row).
      expect(c.insertRecord.source).not.toMatch(/RETURNING/);
    } finally {
      closeDatabase(db);
    }
  });
});
