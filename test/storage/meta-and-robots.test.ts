import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { deleteMeta, getMeta, setMeta } from '../../core/storage/meta.ts';
import { openDatabase } from '../../core/storage/open-database.ts';
import { deleteRobots, getRobots, listRobots, setRobots } from '../../core/storage/robots-store.ts';
import { makeTempDir } from './temp-dir.ts';

const tmp = makeTempDir('trove-storage-');
afterAll(() => tmp.remove());

describe('meta', () => {
  it('stores JSON values by key, survives a reopen, and deletes', () => {
    const p = path.join(tmp.dir, 'meta.sqlite');
    const db = openDatabase(p);
    expect(getMeta(db, 'settings')).toBeUndefined();
    setMeta(db, 'settings', { name: 'c', seeds: ['http://a.test/'], n: 3 });
    setMeta(db, 'state', 'running');
    setMeta(db, 'state', 'stopped');
    setMeta(db, 'zero', 0);
    setMeta(db, 'nothing', null);
    db.close();
    const again = openDatabase(p);
    expect(getMeta(again, 'settings')).toEqual({ name: 'c', seeds: ['http://a.test/'], n: 3 });
    expect(getMeta<string>(again, 'state')).toBe('stopped');
    expect(getMeta(again, 'zero')).toBe(0);
    expect(getMeta(again, 'nothing')).toBeNull();
    expect(deleteMeta(again, 'state')).toBe(true);
    expect(deleteMeta(again, 'state')).toBe(false);
    expect(getMeta(again, 'state')).toBeUndefined();
    expect(() => setMeta(again, 'bad', undefined)).toThrow(expect.objectContaining({ code: 'DB_META_UNSERIALIZABLE' }));
    again.close();
  });

  it('joins the caller’s transaction', () => {
    const db = openDatabase(':memory:');
    expect(() =>
      db.transaction(() => {
        setMeta(db, 'k', 1);
        throw new Error('boom');
      })(),
    ).toThrow('boom');
    expect(getMeta(db, 'k')).toBeUndefined();
    db.close();
  });
});

describe('robots store', () => {
  it('keeps each origin’s robots state across a reopen', () => {
    const p = path.join(tmp.dir, 'robots.sqlite');
    const db = openDatabase(p);
    expect(getRobots(db, 'https://a.test')).toBeNull();
    setRobots(db, 'https://a.test', { rules: 'User-agent: *\nDisallow: /x', failures: 0 }, 1000);
    setRobots(db, 'http://b.test:8080', { failures: 2 }, 2000);
    setRobots(db, 'https://a.test', { rules: 'User-agent: *\nDisallow: /y', failures: 0 }, 3000);
    db.close();
    const again = openDatabase(p);
    expect(getRobots<{ rules: string }>(again, 'https://a.test')).toEqual({
      origin: 'https://a.test',
      state: { rules: 'User-agent: *\nDisallow: /y', failures: 0 },
      updatedAt: 3000,
    });
    expect(listRobots(again).map((r) => r.origin)).toEqual(['http://b.test:8080', 'https://a.test']);
    expect(deleteRobots(again, 'https://a.test')).toBe(true);
    expect(getRobots(again, 'https://a.test')).toBeNull();
    const before = Date.now();
    setRobots(again, 'https://c.test', {});
    expect(getRobots(again, 'https://c.test')!.updatedAt).toBeGreaterThanOrEqual(before);
    again.close();
  });
});
