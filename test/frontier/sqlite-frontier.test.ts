import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type Database from 'better-sqlite3';
import { createSqliteFrontier } from '../../core/frontier/sqlite-frontier.ts';
import { MAY_BE_PAGE_SQL } from '../../core/frontier/page-hops.ts';
import { createFrontierView } from '../../core/frontier/frontier-view.ts';
import { crawlDatabasePath, openDatabase } from '../../core/storage/open-database.ts';
import { repoRoot } from '../helpers/corpus.ts';
import { cand, frontierContract } from './frontier-contract.ts';
import type { FrontierHarness } from './frontier-contract.ts';
import { makeTempDir } from '../storage/temp-dir.ts';

const tmp = makeTempDir('trove-frontier-');
afterAll(() => tmp.remove());
let serial = 0;

frontierContract('SQLite file', (opts) => {
  const file = path.join(tmp.dir, `contract-${serial++}.sqlite`);
  let db = openDatabase(file);
  const h: FrontierHarness = {
    frontier: createSqliteFrontier(db, opts),
    reopen() {
      db.close(); // leases stay in the file, as after kill -9
      db = openDatabase(file);
      h.frontier = createSqliteFrontier(db, opts);
      return h.frontier;
    },
    close: () => db.close(),
  };
  return h;
});

frontierContract('SQLite :memory:', (opts) => {
  const db = openDatabase(':memory:');
  const h: FrontierHarness = {
    frontier: createSqliteFrontier(db, opts),
    // A memory database cannot be reopened; a fresh frontier object over it is the closest thing.
    reopen() {
      h.frontier = createSqliteFrontier(db, opts);
      return h.frontier;
    },
    close: () => db.close(),
  };
  return h;
});

describe('SQLite frontier specifics', () => {
  it('claims non-page URIs through their own index (the query spells the index condition exactly)', () => {
    const db = openDatabase(':memory:');
    try {
      const plan = (sql: string) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join('; ');
      const notPage = `NOT (${MAY_BE_PAGE_SQL})`;
      expect(plan(`SELECT id FROM uris WHERE queue_id = 1 AND state = 0 AND ${notPage} ORDER BY directive DESC, id LIMIT 1`)).toContain('uris_pending_non_page');
      expect(plan(`SELECT 1 FROM queues WHERE EXISTS (SELECT 1 FROM uris WHERE uris.queue_id = queues.id AND uris.state = 0 AND ${notPage})`)).toContain('uris_pending_non_page');
      // What the snapshot asks: queued non-pages and retries, read through partial indexes only.
      expect(plan(`SELECT COUNT(*) FROM uris WHERE state = 0 AND ${notPage}`)).toContain('uris_pending_non_page');
      expect(plan(`SELECT COUNT(*) FROM uris WHERE state = 1 AND ${notPage}`)).toContain('uris_waiting');
      expect(plan(`SELECT COUNT(*) FROM (SELECT 1 FROM uris WHERE state = 1 AND status IS NOT NULL LIMIT 10)`)).toContain('uris_waiting');
      expect(plan(`SELECT url FROM uris JOIN queues ON queues.id = uris.queue_id WHERE state = 1 AND status IS NOT NULL ORDER BY not_before, uris.id LIMIT 5`)).toContain('uris_waiting');
    } finally {
      db.close();
    }
  });

  it('recovers leases after the process is really killed with SIGKILL', () => {
    const dir = path.join(tmp.dir, 'killed');
    const child = `
      import fs from 'node:fs';
      import { openDatabase, crawlDatabasePath } from ${JSON.stringify(path.join(repoRoot, 'core/storage/open-database.ts'))};
      import { createSqliteFrontier } from ${JSON.stringify(path.join(repoRoot, 'core/frontier/sqlite-frontier.ts'))};
      import { cand } from ${JSON.stringify(path.join(repoRoot, 'test/frontier/frontier-contract.ts'))};
      fs.mkdirSync(${JSON.stringify(dir)}, { recursive: true });
      const db = openDatabase(crawlDatabasePath(${JSON.stringify(dir)}));
      const f = createSqliteFrontier(db);
      f.schedule(['a', 'b', 'c'].map((h) => cand('http://' + h + '.test/')));
      const done = f.claim(0);
      f.complete(done, { status: 200, queueReadyAt: 0 }, [cand('http://a.test/next')]);
      f.claim(0); f.claim(0);
      process.kill(process.pid, 'SIGKILL');
    `;
    // The child imports the contract module only for cand(); vitest is not loaded there.
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', child.replace(/import \{ cand \}.*\n/, candInline)], { encoding: 'utf8' });
    expect(r.signal).toBe('SIGKILL');
    const db = openDatabase(crawlDatabasePath(dir));
    try {
      const f = createSqliteFrontier(db);
      expect(f.counts(0)).toMatchObject({ inFlight: 2, done: 1, seen: 4, pending: 1 });
      expect(f.recoverInFlight()).toBe(2);
      expect(f.counts(0)).toMatchObject({ inFlight: 0, pending: 3, done: 1 });
      const urls: string[] = [];
      for (let u = f.claim(0); u; u = f.claim(0)) urls.push(u.url);
      expect(urls.sort()).toEqual(['http://a.test/next', 'http://b.test/', 'http://c.test/']);
    } finally {
      db.close();
    }
  });

  it('claims and completes through indexes, never scanning the uris or queues tables', () => {
    const db = openDatabase(':memory:');
    try {
      const plans = [
        `SELECT id, key FROM queues WHERE pending > 0 AND in_flight < max_in_flight AND ready_at <= 5 ORDER BY ready_at, id LIMIT 1`,
        `SELECT id, url FROM uris WHERE queue_id = 1 AND state = 0 ORDER BY directive DESC, id LIMIT 1`,
        `SELECT MIN(not_before) AS t FROM uris WHERE state = 1`,
        `SELECT id, queue_id FROM uris WHERE state = 1 AND not_before <= 5 ORDER BY not_before LIMIT 10`,
        `SELECT queue_id, COUNT(*) AS n FROM uris WHERE state = 2 GROUP BY queue_id`,
        `SELECT COUNT(*) FROM queues WHERE pending > 0 AND in_flight < max_in_flight AND ready_at <= 5`,
      ].map((sql) => explain(db, sql));
      for (const plan of plans) {
        expect(plan).not.toMatch(/\bSCAN (uris|queues)\b(?! USING)/);
        expect(plan).not.toMatch(/TEMP B-TREE/);
      }
    } finally {
      db.close();
    }
  });

  it('keeps of a finished row only what its readers need (the seen key, url, status, and via for a redirect target)', () => {
    const db = openDatabase(':memory:');
    try {
      const f = createSqliteFrontier(db, { defaultMaxInFlight: 4 });
      f.schedule([cand('http://a.test/', { hopsPath: '', seed: true })]);
      const seed = f.claim(0)!;
      f.complete(seed, { status: 301, queueReadyAt: 0, bytes: 10, mime: 'text/html', digest: 'sha1:X' }, [
        cand('http://a.test/moved', { hopsPath: 'R', via: seed.url, viaContext: 'header/Location' }),
        cand('http://a.test/img.png', { hopsPath: 'E', via: seed.url, viaContext: 'img/@src' }),
      ]);
      const retried = f.claim(0)!;
      expect(retried.url).toBe('http://a.test/moved');
      f.complete(retried, { status: 503, retryAt: 0, queueReadyAt: 0 });
      // A retry keeps what the next claim needs.
      const again = f.claim(0)!;
      expect(again).toMatchObject({ url: 'http://a.test/moved', via: seed.url, viaContext: 'header/Location', attempts: 1 });
      f.complete(again, { status: 200, queueReadyAt: 0, bytes: 5, mime: 'text/html', digest: 'sha1:Y' });
      const img = f.claim(0)!;
      expect(img).toMatchObject({ url: 'http://a.test/img.png', via: seed.url, viaContext: 'img/@src' });
      const rows = db.prepare('SELECT url, fingerprint IS NOT NULL AS fp, state, status, via, via_context, bytes, mime, digest FROM uris ORDER BY id').all();
      // A row holds from the start what it keeps when finished (so it never shrinks, schema 8):
      // via only on a redirect's target; an unfinished row's other via and via_context are in uri_via.
      expect(rows).toEqual([
        { url: 'http://a.test/', fp: 1, state: 3, status: 301, via: null, via_context: null, bytes: null, mime: null, digest: null },
        { url: 'http://a.test/moved', fp: 1, state: 3, status: 200, via: seed.url, via_context: null, bytes: null, mime: null, digest: null },
        { url: 'http://a.test/img.png', fp: 1, state: 2, status: null, via: null, via_context: null, bytes: null, mime: null, digest: null },
      ]);
      expect(db.prepare('SELECT * FROM uri_via').all()).toEqual([{ id: 3, via: seed.url, via_context: 'img/@src' }]);
      f.complete(img, { status: 200, queueReadyAt: 0 });
      expect(db.prepare('SELECT COUNT(*) FROM uri_via').pluck().get()).toBe(0);
      // The report's reader of a finished row's via, and the seen check.
      expect(createFrontierView(db).redirectFrom(seed.url)).toBe('http://a.test/moved');
      expect(f.isSeen(cand('http://a.test/moved').fingerprint)).toBe(true);
      expect(f.schedule([cand('http://a.test/moved')])).toBe(0);
    } finally {
      db.close();
    }
  });

  it('rejects malformed candidates with a stable code', () => {
    const db = openDatabase(':memory:');
    try {
      const f = createSqliteFrontier(db);
      expect(() => f.schedule([{ ...cand('http://a.test/'), fingerprint: 5 as unknown as bigint }])).toThrow(
        expect.objectContaining({ code: 'FRONTIER_BAD_CANDIDATE' }),
      );
      expect(() => f.schedule([cand('http://a.test/', { notBefore: Number.NaN })])).toThrow(expect.objectContaining({ code: 'FRONTIER_BAD_TIME' }));
      expect(() => f.setQueueLimit('a.test', -1)).toThrow(expect.objectContaining({ code: 'FRONTIER_BAD_LIMIT' }));
      expect(f.counts(0).seen).toBe(0);
    } finally {
      db.close();
    }
  });
});

const candInline = `
  function fingerprintOf(s) { let h = 0xcbf29ce484222325n; for (let i = 0; i < s.length; i++) { h ^= BigInt(s.charCodeAt(i)); h = (h * 0x100000001b3n) & 0xffffffffffffffffn; } return h; }
  function cand(url) { return { url, canonical: url, fingerprint: fingerprintOf(url), queueKey: new URL(url).host, hopsPath: '', via: null }; }
`;

function explain(db: Database.Database, sql: string): string {
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join('\n');
}
