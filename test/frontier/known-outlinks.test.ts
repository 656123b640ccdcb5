/**
 * Known outlinks (issue 20): the SQLite frontier asks which of a page's outlinks are known in one
 * statement and inserts only the others, while most recent outlinks were known; otherwise it
 * inserts each and lets ON CONFLICT drop the known ones. What is checked, on a real database:
 * which path ran (a TEMP trigger counts the INSERT attempts on `uris`: a BEFORE INSERT trigger
 * fires even when the upsert then does nothing), that both store the same rows and counters,
 * 64-bit fingerprints compared exactly (json_each reads them as integers, not doubles), the
 * frontier's order, that nothing is remembered across a rollback, and that fingerprints are
 * remembered once committed (settle(), issue 40).
 */
import path from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { Candidate, Frontier } from '../../core/frontier/frontier.ts';
import { createSqliteFrontier } from '../../core/frontier/sqlite-frontier.ts';
import { closeDatabase, openDatabase } from '../../core/storage/open-database.ts';
import { cand } from './frontier-contract.ts';
import { makeTempDir } from '../storage/temp-dir.ts';

const tmp = makeTempDir('trove-known-outlinks-');
afterAll(() => tmp.remove());

const MIN = -(2n ** 63n);
const MAX = 2n ** 63n - 1n;
const TWO53 = 2n ** 53n;

/** A candidate on a.test with a given fingerprint (64-bit, signed). */
const fp = (name: string, fingerprint: bigint): Candidate => cand(`http://a.test/${name}`, { fingerprint, hopsPath: 'L', via: 'http://a.test/' });
const news = (prefix: string, n: number): Candidate[] => Array.from({ length: n }, (_, i) => cand(`http://a.test/${prefix}/${i}`, { hopsPath: 'L' }));

function open(name: string): { db: Database.Database; f: Frontier; attempts: () => number } {
  const db = openDatabase(path.join(tmp.dir, name));
  db.exec(`CREATE TEMP TABLE insert_attempts (n INTEGER NOT NULL);
    INSERT INTO insert_attempts VALUES (0);
    CREATE TEMP TRIGGER count_uri_inserts BEFORE INSERT ON main.uris BEGIN UPDATE insert_attempts SET n = n + 1; END;`);
  const count = db.prepare('SELECT n FROM insert_attempts').pluck();
  return { db, f: createSqliteFrontier(db), attempts: () => count.get() as number };
}

const rows = (db: Database.Database) =>
  db
    .prepare('SELECT id, CAST(fingerprint AS TEXT) AS fp, queue_id, state, url, hops_path, via FROM uris ORDER BY id')
    .all()
    .map((r) => ({ ...(r as Record<string, unknown>) }));

describe('known outlinks: one lookup per page instead of an INSERT per known outlink', () => {
  it('skips the INSERT of known outlinks while most are known, and stores what the per-outlink path stores', () => {
    const a = open('prefilter.sqlite');
    try {
      // Extremes of the 64-bit range and 2^53, which a double cannot tell from 2^53 + 1.
      const first = [fp('min', MIN), fp('max', MAX), fp('two53', TWO53), ...news('p', 7)];
      expect(a.f.schedule(first)).toBe(10);
      const before = a.attempts();
      // 10 known, 2^53 + 1 new, two new ones of which one is listed twice.
      const page = [...first, fp('two53plus1', TWO53 + 1n), ...news('q', 2), news('q', 1)[0]!];
      expect(a.f.schedule(page)).toBe(3);
      expect(a.attempts() - before).toBe(4); // the known ten were never inserted; the duplicate was
      expect(a.f.isSeen(TWO53 + 1n)).toBe(true);
      expect(a.f.counts()).toMatchObject({ pending: 13, seen: 13, queues: 1 });

      // The same calls on a frontier whose recent outlinks were all new: it inserts each one.
      const b = open('per-outlink.sqlite');
      try {
        for (let i = 0; i < 10; i++) b.f.schedule(news(`warm${i}`, 5));
        const warmRows = b.f.counts().seen;
        expect(b.f.schedule(first)).toBe(10);
        const mark = b.attempts();
        expect(b.f.schedule(page)).toBe(3);
        expect(b.attempts() - mark).toBe(page.length);
        expect(b.f.counts()).toMatchObject({ pending: warmRows + 13, seen: warmRows + 13, queues: 1 });
        // Same rows, in the same order, with the same fingerprints (compared as text: exact).
        const strip = (rs: Record<string, unknown>[]) => rs.map(({ id: _id, queue_id: _q, ...r }) => r);
        expect(strip(rows(b.db)).slice(warmRows)).toEqual(strip(rows(a.db)));
      } finally {
        closeDatabase(b.db);
      }
    } finally {
      closeDatabase(a.db);
    }
  });

  it('goes back to the lookup once outlinks are mostly known again, and claims in the same order', () => {
    const { db, f, attempts } = open('adaptive.sqlite');
    try {
      for (let i = 0; i < 10; i++) f.schedule(news(`tree${i}`, 5)); // a tree: every outlink new
      const known = news('tree0', 5);
      let mark = attempts();
      expect(f.schedule([...known, ...news('x', 1)])).toBe(1);
      expect(attempts() - mark).toBe(6); // per outlink while few were known
      for (let i = 0; i < 10; i++) f.schedule([...known, ...news(`nav${i}`, 1)]);
      mark = attempts();
      expect(f.schedule([...news('y', 1), ...known, ...news('z', 1)])).toBe(2);
      expect(attempts() - mark).toBe(2); // the lookup again: only the two new ones

      // FIFO within the queue, known candidates skipped without changing it.
      const order: string[] = [];
      for (let u = f.claim(0); u; u = f.claim(0)) {
        order.push(u.url);
        f.complete(u, { status: 200, queueReadyAt: 0 });
      }
      expect(order.slice(-2)).toEqual(['http://a.test/y/0', 'http://a.test/z/0']);
      expect(order.indexOf('http://a.test/x/0')).toBeLessThan(order.indexOf('http://a.test/nav0/0'));
      expect(order.indexOf('http://a.test/nav9/0')).toBeLessThan(order.indexOf('http://a.test/y/0'));
      expect(new Set(order).size).toBe(order.length);
      expect(order.length).toBe(50 + 1 + 10 + 2);
    } finally {
      closeDatabase(db);
    }
  });

  it('remembers nothing across a rollback: an outlink rolled back is inserted again', () => {
    const { db, f, attempts } = open('rollback.sqlite');
    try {
      const known = news('k', 8);
      f.schedule(known);
      const lost = fp('lost', 42n);
      expect(() =>
        db.transaction(() => {
          expect(f.schedule([lost, ...known])).toBe(1);
          expect(f.schedule([lost, ...known])).toBe(0); // known inside the transaction
          throw new Error('roll back');
        })(),
      ).toThrow('roll back');
      expect(f.isSeen(42n)).toBe(false);
      const mark = attempts();
      expect(f.schedule([...known, lost])).toBe(1);
      expect(attempts() - mark).toBe(1);
      expect(f.counts()).toMatchObject({ pending: 9, seen: 9 });
    } finally {
      closeDatabase(db);
    }
  });

  it('after a COMMIT, settle() remembers the stored fingerprints: their repeats reach no SQL, and a rolled-back one is inserted again', () => {
    const { db, f, attempts } = open('settle.sqlite');
    try {
      for (let i = 0; i < 10; i++) f.schedule(news(`tree${i}`, 5)); // a tree: no lookup, an INSERT per outlink
      const nav = news('tree0', 5);
      const lost = fp('lost', 42n);
      db.transaction(() => {
        f.settle!(); // inside a transaction: nothing is taken as stored
        expect(f.schedule([...nav, fp('kept', 43n)])).toBe(1);
        // A unit rolled back to its savepoint, the group around it committed.
        expect(() =>
          db.transaction(() => {
            f.schedule([lost]);
            throw new Error('roll back');
          })(),
        ).toThrow('roll back');
      })();
      f.settle!();
      let mark = attempts();
      // Remembered: not even the per-outlink INSERT the tree mode would try.
      expect(f.schedule([...nav, fp('kept', 43n)])).toBe(0);
      expect(attempts() - mark).toBe(0);
      mark = attempts();
      expect(f.schedule([lost, ...nav])).toBe(1);
      expect(attempts() - mark).toBe(1);
      expect(f.isSeen(42n)).toBe(true);
      expect(f.counts()).toMatchObject({ pending: 52, seen: 52 });
    } finally {
      closeDatabase(db);
    }
  });
});
