/**
 * Page text is indexed in shards: FTS5 tables that each hold the text of one range of record ids
 * (`page_text` the first, `page_text_N` after it), a new one begun when the newest has taken
 * SHARD_CHARS of text. The reason is bm25. To weigh a word, FTS5's bm25 first counts every row
 * that holds it (its IDF: fts5_aux.c walks the word's whole doclist through xQueryPhrase), so
 * ranking even a bounded set of candidates (capture-index.ts searchText) costs in proportion to
 * how often the word occurs in the whole table. On the 20 GB archive of the big-archive bench
 * (884,952 pages of 800–4,800 words) a common word cost ~150 ms of CPU warm, and the bench's
 * searches 430 ms p50 with the cache the exports had left. Search engines cut such indexes by
 * time for the same reason (Lucene's segments, Elasticsearch's time-based indices). In shards, a search walks them newest
 * first and ranks only within those that hold its candidates, so it costs about a shard's worth
 * of text whatever the archive's size. bm25's IDF and average length are then each shard's own:
 * shards of the same crawl weigh words alike, and candidates come from one or two of them for any
 * frequent word.
 *
 * A record's text lives in the shard whose range holds its id, for good: a shard is only ever
 * added after every id written so far (`text_shards.last_id`), so ranges never move. Text
 * indexed before shards existed (schema 12) stays in `page_text`, counted as full.
 *
 * This file owns the SQL of `text_shards` and of every page-text table.
 */
import type Database from 'better-sqlite3';
import { tsSql } from './capture-ts-key.ts';

/**
 * Text a shard takes before the next is begun (characters of title and text). Larger shards cost
 * frequent words more (bm25's count walks a shard's doclist: 100,000 of the big-archive bench's
 * pages, 1.6 G characters in one table, took ~20 ms for a word in every page); smaller ones cost
 * rare words more (they visit every shard). At this size the bench's 20 GB archive has 27 shards
 * and searches in 19–27 ms p50 (bench/figures/shared-crawl-and-big-archives.md).
 */
export const SHARD_CHARS = 512 * 1024 * 1024;

/** The FTS5 definition of every shard; migration 3 wrote the same for `page_text`. */
const FTS5_COLUMNS = "title, text, tokenize = 'unicode61 remove_diacritics 2'";

interface ShardRow {
  id: number;
  first_id: number;
  last_id: number | null;
  /** NULL: text written before shards existed, its size unknown; counted full. */
  chars: number | null;
}

/** A ranked match before its snippet is made. */
interface Ranked {
  id: number;
  score: number;
  shard: number;
}

export interface TextMatchRow {
  record_id: number;
  title: string | null;
  snippet: string;
  rank: number;
  target_uri: string | null;
  ts: string | null;
}

/** `SELECT rowid … MATCH ?` over every shard, and how many times its one parameter is bound. */
export interface TextMatchSql {
  sql: string;
  params: number;
}

export interface TextShards {
  /** Store (or replace) a record's title and text. Joins the caller's transaction. */
  write(recordId: number, title: string, text: string): void;
  /** Drop the text of a file's records. */
  deleteFile(fileId: number): void;
  text(recordId: number): string | null;
  /**
   * The best `limit` of the newest `candidates` matches of an FTS5 query by bm25, with snippets.
   * `bounded` when more rows matched than were ranked.
   */
  search(match: string, o: { limit: number; candidates: number; open: string; close: string }): { rows: TextMatchRow[]; bounded: boolean };
  matchSql(): TextMatchSql;
}

function tableName(id: number): string {
  if (!Number.isSafeInteger(id) || id < 0) throw new Error(`bad text shard id ${String(id)}`);
  return id === 0 ? 'page_text' : `page_text_${id}`;
}

function shardStatements(db: Database.Database, t: string) {
  return {
    insert: db.prepare<[number, string, string]>(`INSERT INTO ${t} (rowid, title, text) VALUES (?, ?, ?)`),
    delete: db.prepare<[number]>(`DELETE FROM ${t} WHERE rowid = ?`),
    deleteFileRange: db.prepare<[number, number, number]>(`DELETE FROM ${t} WHERE rowid IN (SELECT id FROM records WHERE file_id = ? AND id >= ? AND id < ?)`),
    text: db.prepare<[number], { text: string }>(`SELECT text FROM ${t} WHERE rowid = ?`),
    // How many of the newest `?` matches this shard holds, and the oldest of them: FTS5 walks
    // its doclist newest first and stops at the LIMIT.
    tail: db.prepare<[string, number], { n: number; low: number | null }>(
      `SELECT COUNT(*) AS n, MIN(rowid) AS low FROM (SELECT rowid FROM ${t} WHERE ${t} MATCH ? ORDER BY rowid DESC LIMIT ?)`,
    ),
    // bm25 taken as a column (`ORDER BY score`), not FTS5's `ORDER BY rank`, whose sorted plan
    // cost as much at 100 candidates as at 5,000 (35 ms of CPU against 3–5 on 50,000 pages).
    best: db.prepare<{ q: string; floor: number; limit: number }, { id: number; score: number }>(
      `SELECT rowid AS id, bm25(${t}) AS score FROM ${t} WHERE ${t} MATCH @q AND rowid >= @floor ORDER BY score, rowid DESC LIMIT @limit`,
    ),
    // Snippets of the chosen rows, from one scan of the matches from the oldest of them (the shard
    // stays the outer loop, so a prefix query's terms are merged once, not once per hit; `+rowid`
    // keeps the id list from becoming one FTS5 lookup per id).
    snippets: db.prepare<{ q: string; floor: number; ids: string; open: string; close: string }, Omit<TextMatchRow, 'rank'>>(
      `SELECT ${t}.rowid AS record_id, ${t}.title AS title, snippet(${t}, 1, @open, @close, '…', 16) AS snippet,
              records.target_uri AS target_uri, ${tsSql('records.ts')} AS ts
       FROM ${t} CROSS JOIN records ON records.id = ${t}.rowid
       WHERE ${t} MATCH @q AND ${t}.rowid >= @floor AND +${t}.rowid IN (SELECT value FROM json_each(@ids))`,
    ),
  };
}

type ShardStatements = ReturnType<typeof shardStatements>;

function registryStatements(db: Database.Database) {
  return {
    all: db.prepare<[], ShardRow>('SELECT id, first_id, last_id, chars FROM text_shards ORDER BY first_id'),
    // The shard whose range holds an id, and whether it is the newest.
    covering: db.prepare<[number], ShardRow & { newest: number }>(
      `SELECT s.id, s.first_id, s.last_id, s.chars, NOT EXISTS (SELECT 1 FROM text_shards n WHERE n.first_id > s.first_id) AS newest
       FROM text_shards s WHERE s.first_id <= ? ORDER BY s.first_id DESC LIMIT 1`,
    ),
    wrote: db.prepare<{ chars: number; id: number; shard: number }>('UPDATE text_shards SET chars = chars + @chars, last_id = MAX(COALESCE(last_id, @id), @id) WHERE id = @shard'),
    begin: db.prepare<[number], { id: number }>('INSERT INTO text_shards (first_id, last_id, chars) VALUES (?, NULL, 0) RETURNING id'),
  };
}

/** `shardChars`: SHARD_CHARS; tests pass less to see shards begin. */
export function createTextShards(db: Database.Database, shardChars = SHARD_CHARS): TextShards {
  // Prepared at first use: an index opened only to read records never touches text.
  let prepared: ReturnType<typeof registryStatements> | null = null;
  const st = () => (prepared ??= registryStatements(db));
  const cache = new Map<number, ShardStatements>();
  const of = (id: number): ShardStatements => {
    let s = cache.get(id);
    if (!s) cache.set(id, (s = shardStatements(db, tableName(id))));
    return s;
  };

  const shardFor = (recordId: number): number => {
    const s = st().covering.get(recordId);
    if (!s) throw new Error('text_shards has no first shard'); // migration 12 writes it
    const full = s.chars === null || s.chars >= shardChars;
    if (!s.newest || !full || recordId <= (s.last_id ?? -1)) return s.id;
    // Begin the next shard at this id: every id written so far is below it.
    const { id } = st().begin.get(recordId)!;
    db.exec(`CREATE VIRTUAL TABLE ${tableName(id)} USING fts5(${FTS5_COLUMNS})`);
    return id;
  };

  const covering = (recordId: number): number | null => st().covering.get(recordId)?.id ?? null;

  return {
    write(recordId, title, text) {
      const id = shardFor(recordId);
      const s = of(id);
      s.delete.run(recordId);
      s.insert.run(recordId, title, text);
      st().wrote.run({ chars: title.length + text.length, id: recordId, shard: id });
    },
    deleteFile(fileId) {
      const shards = st().all.all();
      shards.forEach((s, i) => of(s.id).deleteFileRange.run(fileId, s.first_id, shards[i + 1]?.first_id ?? Number.MAX_SAFE_INTEGER));
    },
    text(recordId) {
      const id = covering(recordId);
      return id === null ? null : (of(id).text.get(recordId)?.text ?? null);
    },
    search: (match, o) => search(st().all.all(), of, match, o),
    matchSql() {
      const names = st().all.all().map((s) => tableName(s.id));
      return { sql: names.map((t) => `SELECT rowid FROM ${t} WHERE ${t} MATCH ?`).join(' UNION ALL '), params: names.length };
    },
  };
}

/**
 * Newest shard first: each gives its share of the newest `candidates` matches (all its matches
 * while fewer remain to find), ranked within it; the best `limit` over the shards get snippets.
 */
function search(
  shards: readonly ShardRow[],
  of: (id: number) => ShardStatements,
  q: string,
  o: { limit: number; candidates: number; open: string; close: string },
): { rows: TextMatchRow[]; bounded: boolean } {
  const ranked: Ranked[] = [];
  let remaining = o.candidates;
  let bounded = false;
  for (let i = shards.length - 1; i >= 0 && !bounded; i--) {
    const shard = shards[i]!.id;
    const s = of(shard);
    const { n, low } = s.tail.get(q, remaining + 1)!;
    if (n === 0) continue;
    // More than remain: the oldest of them is the first left out.
    bounded = n > remaining;
    const floor = bounded ? low! + 1 : 0;
    for (const r of s.best.all({ q, floor, limit: o.limit })) ranked.push({ ...r, shard });
    remaining -= n;
  }
  ranked.sort((a, b) => a.score - b.score || b.id - a.id);
  const chosen = ranked.slice(0, o.limit);
  const byShard = new Map<number, Ranked[]>();
  for (const r of chosen) byShard.set(r.shard, [...(byShard.get(r.shard) ?? []), r]);
  const rows: TextMatchRow[] = [];
  const score = new Map(chosen.map((r) => [r.id, r.score]));
  for (const [shard, hits] of byShard) {
    const floor = Math.min(...hits.map((h) => h.id));
    const ids = JSON.stringify(hits.map((h) => h.id));
    for (const r of of(shard).snippets.all({ q, floor, ids, open: o.open, close: o.close })) rows.push({ ...r, rank: score.get(r.record_id)! });
  }
  rows.sort((a, b) => a.rank - b.rank || b.record_id - a.record_id);
  return { rows, bounded };
}
