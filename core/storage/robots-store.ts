/**
 * The `robots` table: the per-origin robots.txt cache (rules, failures, expiry — whatever state
 * the robots module keeps), persisted so a resumed crawl neither refetches every robots.txt nor
 * forgets that a host's robots.txt was failing.
 */
import type Database from 'better-sqlite3';
import { TroveError } from '../errors.ts';

export interface StoredRobots<T = unknown> {
  origin: string;
  state: T;
  /** ms since epoch. */
  updatedAt: number;
}

interface Row {
  origin: string;
  state_json: string;
  updated_at: number;
}

interface RobotsStatements {
  get: Database.Statement<[string], Row>;
  set: Database.Statement<[string, string, number]>;
  all: Database.Statement<[], Row>;
  del: Database.Statement<[string]>;
}

const cache = new WeakMap<Database.Database, RobotsStatements>();

function statements(db: Database.Database): RobotsStatements {
  let s = cache.get(db);
  if (!s) {
    s = {
      get: db.prepare('SELECT origin, state_json, updated_at FROM robots WHERE origin = ?'),
      set: db.prepare(
        `INSERT INTO robots (origin, state_json, updated_at) VALUES (?, ?, ?)
         ON CONFLICT(origin) DO UPDATE SET state_json = excluded.state_json, updated_at = excluded.updated_at`,
      ),
      all: db.prepare('SELECT origin, state_json, updated_at FROM robots ORDER BY origin'),
      del: db.prepare('DELETE FROM robots WHERE origin = ?'),
    };
    cache.set(db, s);
  }
  return s;
}

function decode<T>(row: Row): StoredRobots<T> {
  try {
    return { origin: row.origin, state: JSON.parse(row.state_json) as T, updatedAt: row.updated_at };
  } catch (err) {
    throw new TroveError('DB_ROBOTS_CORRUPT', `robots state for ${row.origin} is not valid JSON`, { origin: row.origin }, { cause: err });
  }
}

/** The cached robots state for `origin` (e.g. `https://example.org`), or null. */
export function getRobots<T = unknown>(db: Database.Database, origin: string): StoredRobots<T> | null {
  const row = statements(db).get.get(origin);
  return row ? decode<T>(row) : null;
}

/** Store the robots state for `origin`. `updatedAt` defaults to now. */
export function setRobots(db: Database.Database, origin: string, state: unknown, updatedAt: number = Date.now()): void {
  const json = JSON.stringify(state);
  if (json === undefined) {
    throw new TroveError('DB_ROBOTS_UNSERIALIZABLE', `robots state for ${origin} cannot be stored as JSON`, { origin });
  }
  statements(db).set.run(origin, json, updatedAt);
}

/** Every cached origin, for warming an in-memory cache on resume. */
export function listRobots<T = unknown>(db: Database.Database): StoredRobots<T>[] {
  return statements(db).all.all().map((row) => decode<T>(row));
}

export function deleteRobots(db: Database.Database, origin: string): boolean {
  return statements(db).del.run(origin).changes > 0;
}
