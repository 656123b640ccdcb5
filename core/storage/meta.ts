/**
 * The `meta` table: small crawl-wide values (settings, state, counters) stored as JSON so a
 * resumed crawl finds them where the last run left them. Writes join the caller's transaction
 * when there is one, so a counter and the rows it counts commit together.
 */
import type Database from 'better-sqlite3';
import { TroveError } from '../errors.ts';

interface MetaStatements {
  get: Database.Statement<[string], { value: string }>;
  set: Database.Statement<[string, string]>;
  del: Database.Statement<[string]>;
}

// Statements are prepared once per connection; a WeakMap lets closed connections be collected.
const cache = new WeakMap<Database.Database, MetaStatements>();

function statements(db: Database.Database): MetaStatements {
  let s = cache.get(db);
  if (!s) {
    s = {
      get: db.prepare('SELECT value FROM meta WHERE key = ?'),
      set: db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
      del: db.prepare('DELETE FROM meta WHERE key = ?'),
    };
    cache.set(db, s);
  }
  return s;
}

/** The value stored under `key`, or `undefined` when there is none. */
export function getMeta<T = unknown>(db: Database.Database, key: string): T | undefined {
  const row = statements(db).get.get(key);
  if (!row) return undefined;
  try {
    return JSON.parse(row.value) as T;
  } catch (err) {
    throw new TroveError('DB_META_CORRUPT', `meta value for ${key} is not valid JSON`, { key }, { cause: err });
  }
}

/** Store `value` (anything JSON can hold) under `key`, replacing what was there. */
export function setMeta(db: Database.Database, key: string, value: unknown): void {
  const json = JSON.stringify(value);
  if (json === undefined) {
    throw new TroveError('DB_META_UNSERIALIZABLE', `meta value for ${key} cannot be stored as JSON`, { key });
  }
  statements(db).set.run(key, json);
}

/** Remove `key`. Returns whether it was there. */
export function deleteMeta(db: Database.Database, key: string): boolean {
  return statements(db).del.run(key).changes > 0;
}
