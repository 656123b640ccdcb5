import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { schemaVersion, migrate } from '../../core/storage/migrations.ts';
import { closeDatabase, crawlDatabasePath, openDatabase } from '../../core/storage/open-database.ts';
import { makeTempDir } from './temp-dir.ts';

const tmp = makeTempDir('trove-storage-');
afterAll(() => tmp.remove());
const file = (name: string) => path.join(tmp.dir, name);

describe('openDatabase', () => {
  it('creates crawl.sqlite with WAL, NORMAL sync, foreign keys, a busy timeout and the latest schema', () => {
    const p = crawlDatabasePath(tmp.dir);
    expect(path.basename(p)).toBe('crawl.sqlite');
    const db = openDatabase(p);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(db.pragma('cache_size', { simple: true })).toBe(-8 * 1024); // 8 MiB, in KiB
    expect(db.pragma('user_version', { simple: true })).toBe(schemaVersion());
    const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]).map((r) => r.name);
    expect(tables).toEqual(expect.arrayContaining(['meta', 'robots', 'queues', 'uris', 'frontier_stats', 'warc_files', 'records', 'page_text']));
    closeDatabase(db);
    closeDatabase(db); // twice is harmless
  });

  it('opens an existing file without migrating it again', () => {
    const p = file('idem.sqlite');
    const db = openDatabase(p);
    db.prepare(`INSERT INTO meta (key, value) VALUES ('k', '1')`).run();
    db.close();
    const again = openDatabase(p);
    expect(migrate(again)).toBe(0);
    expect(again.prepare(`SELECT value FROM meta WHERE key = 'k'`).get()).toEqual({ value: '1' });
    again.close();
  });

  it('upgrades an older file step by step, keeping its data', () => {
    const p = file('old.sqlite');
    const raw = new Database(p);
    raw.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
              CREATE TABLE robots (origin TEXT PRIMARY KEY, state_json TEXT NOT NULL, updated_at INTEGER NOT NULL) WITHOUT ROWID;
              INSERT INTO meta VALUES ('settings', '{"name":"old"}'); PRAGMA user_version = 1;`);
    raw.close();
    const db = openDatabase(p);
    expect(db.pragma('user_version', { simple: true })).toBe(schemaVersion());
    expect(db.prepare(`SELECT value FROM meta WHERE key = 'settings'`).get()).toEqual({ value: '{"name":"old"}' });
    expect(db.prepare('SELECT pending FROM frontier_stats').get()).toEqual({ pending: 0 });
    db.close();
  });

  it('opens read-only without writing, and refuses a file it would have to migrate', () => {
    const p = file('ro.sqlite');
    openDatabase(p).close();
    const ro = openDatabase(p, { readonly: true });
    expect(ro.readonly).toBe(true);
    expect(() => ro.prepare(`INSERT INTO meta (key, value) VALUES ('a', '1')`).run()).toThrow();
    closeDatabase(ro);

    const old = file('ro-old.sqlite');
    const raw = new Database(old);
    raw.pragma('user_version = 1');
    raw.close();
    expect(() => openDatabase(old, { readonly: true })).toThrow(expect.objectContaining({ code: 'DB_NEEDS_MIGRATION' }));
    expect(() => openDatabase(file('missing.sqlite'), { readonly: true })).toThrow(expect.objectContaining({ code: 'DB_OPEN_FAILED' }));
  });

  it('refuses a file from a newer Trove and a file that is not a database', () => {
    const p = file('new.sqlite');
    const raw = new Database(p);
    raw.pragma(`user_version = ${schemaVersion() + 1}`);
    raw.close();
    expect(() => openDatabase(p)).toThrow(expect.objectContaining({ code: 'DB_TOO_NEW' }));
    expect(() => openDatabase(p, { readonly: true })).toThrow(expect.objectContaining({ code: 'DB_TOO_NEW' }));

    const junk = file('junk.sqlite');
    fs.writeFileSync(junk, 'this is not sqlite, just text that is long enough to be read as a header page'.repeat(20));
    expect(() => openDatabase(junk)).toThrow(expect.objectContaining({ code: 'DB_NOT_A_DATABASE' }));
  });

  it('rolls a failed migration back to the previous version', () => {
    const p = file('half.sqlite');
    const raw = new Database(p);
    // Version 1 with a stray table that makes migration 2 fail part-way.
    raw.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
              CREATE TABLE robots (origin TEXT PRIMARY KEY, state_json TEXT NOT NULL, updated_at INTEGER NOT NULL) WITHOUT ROWID;
              CREATE TABLE uris (x); PRAGMA user_version = 1;`);
    raw.close();
    expect(() => openDatabase(p)).toThrow();
    const check = new Database(p);
    expect(check.pragma('user_version', { simple: true })).toBe(1);
    expect(check.prepare(`SELECT name FROM sqlite_master WHERE name = 'queues'`).get()).toBeUndefined();
    check.close();
  });
});
