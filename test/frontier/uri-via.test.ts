/**
 * Schema 8's `uri_via` (issue 20: database bytes per URI): an unfinished URI's via and
 * via_context live beside `uris` until it finishes, so a `uris` row never shrinks and leaves no
 * unused bytes in its page. What is checked: the pages `uris` fills are as full as it holds
 * (dbstat), claims, the monitor's queue pages and the report's redirectFrom read the same values
 * as before, and migration 8 turns a version-7 frontier caught mid-crawl (via and via_context in
 * `uris`) into exactly the rows a version-8 frontier writes, which then resumes alike.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { ClaimedUri, Frontier } from '../../core/frontier/frontier.ts';
import { createFrontierView } from '../../core/frontier/frontier-view.ts';
import { createSqliteFrontier } from '../../core/frontier/sqlite-frontier.ts';
import { migrate, schemaVersion } from '../../core/storage/migrations.ts';
import { openDatabase } from '../../core/storage/open-database.ts';
import { cand } from './frontier-contract.ts';
import { makeTempDir } from '../storage/temp-dir.ts';

const tmp = makeTempDir('trove-uri-via-');
afterAll(() => tmp.remove());

const ok = { status: 200, queueReadyAt: 0 };

/** A crawl caught in the middle: finished rows (one a redirect's target), a retry waiting, rows pending and one in flight. */
function midCrawl(f: Frontier): ClaimedUri {
  f.schedule([cand('http://a.test/', { hopsPath: '', seed: true })]);
  const seed = f.claim(0)!;
  f.complete(seed, { status: 301, queueReadyAt: 0 }, [cand('http://a.test/moved', { hopsPath: 'R', via: seed.url, viaContext: 'header/Location' })]);
  const moved = f.claim(0)!;
  f.complete(moved, ok, [
    cand('http://a.test/img.png', { hopsPath: 'RE', via: moved.url, viaContext: 'img/@src' }),
    cand('http://a.test/p1', { hopsPath: 'RL', via: moved.url, viaContext: 'a/@href' }),
    cand('http://a.test/p2', { hopsPath: 'RL', via: moved.url }),
    cand('http://a.test/again', { hopsPath: 'RLR', via: moved.url, viaContext: 'header/Location' }),
  ]);
  const img = f.claim(0)!;
  f.complete(img, { status: 503, retryAt: 10, queueReadyAt: 0 });
  return f.claim(0)!;
}

describe('uri_via: an unfinished URI via beside uris', () => {
  it('leaves no bytes unused in the pages of finished rows, and every reader sees via as before', () => {
    const db = openDatabase(path.join(tmp.dir, 'fill.sqlite'));
    try {
      const f = createSqliteFrontier(db, { defaultMaxInFlight: 8 });
      const view = createFrontierView(db);
      const n = 3000;
      f.schedule([cand('http://a.test/', { hopsPath: '', seed: true })]);
      const seed = f.claim(0)!;
      f.complete(seed, ok, Array.from({ length: n }, (_, i) => cand(`http://a.test/page/${i}/with/a/path/as/long/as/a/real/one.html`, { hopsPath: 'L', via: seed.url, viaContext: 'a/@href' })));
      expect(view.queuedPage('a.test', 2, null).uris.map((u) => u.via)).toEqual([seed.url, seed.url]);
      for (let u = f.claim(0); u; u = f.claim(0)) {
        expect(u).toMatchObject({ via: seed.url, viaContext: 'a/@href' });
        f.complete(u, ok);
      }
      expect(db.prepare('SELECT COUNT(*) FROM uri_via').pluck().get()).toBe(0);
      const stat = db.prepare("SELECT SUM(payload) AS payload, SUM(unused) AS unused, SUM(pgsize) AS size FROM dbstat WHERE name = 'uris'").get() as Record<string, number>;
      // Rows appended in id order fill their pages; they grow by a few bytes when finished (state,
      // status) and never shrink. Measured: 10% unused; 18% when finish cleared via and via_context in uris.
      expect(stat.unused / stat.size).toBeLessThan(0.15);
    } finally {
      db.close();
    }
  });

  it('migration 8 turns a version-7 frontier caught mid-crawl into the rows a version-8 frontier writes, and it resumes alike', () => {
    // Version 8, as the crawl writes it.
    const now = openDatabase(path.join(tmp.dir, 'v8.sqlite'));
    const inFlight = midCrawl(createSqliteFrontier(now, { defaultMaxInFlight: 2 }));
    expect(now.prepare('SELECT COUNT(*) FROM uri_via').pluck().get()).toBe(4);

    // The same crawl as a version-7 build left it: via and via_context of unfinished rows in uris.
    const file = path.join(tmp.dir, 'v7.sqlite');
    const old = new Database(file);
    migrate(old, 7);
    old.transaction(() => {
      for (const t of ['queues', 'frontier_stats']) {
        old.prepare(`DELETE FROM ${t}`).run();
        for (const r of now.prepare(`SELECT * FROM ${t}`).all() as Record<string, unknown>[]) {
          old.prepare(`INSERT INTO ${t} (${Object.keys(r).join(', ')}) VALUES (${Object.keys(r).map((k) => `@${k}`).join(', ')})`).run(r);
        }
      }
      const rows = now
        .prepare('SELECT uris.*, COALESCE(uris.via, uri_via.via) AS via, uri_via.via_context AS via_context FROM uris LEFT JOIN uri_via ON uri_via.id = uris.id ORDER BY uris.id')
        .all() as Record<string, unknown>[];
      for (const r of rows) old.prepare(`INSERT INTO uris (${Object.keys(r).join(', ')}) VALUES (${Object.keys(r).map((k) => `@${k}`).join(', ')})`).run(r);
    })();
    expect(old.prepare('SELECT COUNT(*) FROM uris WHERE via_context IS NOT NULL').pluck().get()).toBe(3);
    old.close();

    const migrated = openDatabase(file);
    try {
      expect(migrated.pragma('user_version', { simple: true })).toBe(schemaVersion());
      for (const sql of ['SELECT * FROM uris ORDER BY id', 'SELECT * FROM uri_via ORDER BY id', 'SELECT * FROM queues ORDER BY id', 'SELECT * FROM frontier_stats']) {
        expect(migrated.prepare(sql).all(), sql).toEqual(now.prepare(sql).all());
      }
      const a = createFrontierView(now);
      const b = createFrontierView(migrated);
      expect(b.queuedPage('a.test', 10, null)).toEqual(a.queuedPage('a.test', 10, null));
      expect(b.redirectFrom('http://a.test/')).toBe('http://a.test/moved');
      expect(b.redirectFrom('http://a.test/moved')).toBe(a.redirectFrom('http://a.test/moved'));

      // Both resume: the in-flight URI is given back, and every claim carries the same via.
      const fa = createSqliteFrontier(now, { defaultMaxInFlight: 2 });
      const fb = createSqliteFrontier(migrated, { defaultMaxInFlight: 2 });
      expect(fb.recoverInFlight()).toBe(fa.recoverInFlight());
      const drain = (f: Frontier) => {
        const got: Partial<ClaimedUri>[] = [];
        for (let u = f.claim(100); u; u = f.claim(100)) {
          got.push({ url: u.url, via: u.via, viaContext: u.viaContext, hopsPath: u.hopsPath, attempts: u.attempts });
          f.complete(u, ok);
        }
        return got;
      };
      const claims = drain(fa);
      expect(claims.map((c) => c.url).sort()).toEqual(['http://a.test/again', 'http://a.test/img.png', 'http://a.test/p1', 'http://a.test/p2']);
      expect(claims.find((c) => c.url === inFlight.url)).toMatchObject({ via: inFlight.via, viaContext: inFlight.viaContext });
      expect(drain(fb)).toEqual(claims);
      expect(migrated.prepare('SELECT * FROM uris ORDER BY id').all()).toEqual(now.prepare('SELECT * FROM uris ORDER BY id').all());
      expect(migrated.prepare('SELECT COUNT(*) FROM uri_via').pluck().get()).toBe(0);
    } finally {
      migrated.close();
      now.close();
    }
  });
});
