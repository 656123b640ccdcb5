/**
 * QA results kept with the archive: every `trove qa` run, each page's scores in it, and the
 * archivist's reviews. They live in the archive directory, in a `qa/` folder of their own:
 *
 * - `qa/qa.sqlite`: tables `qa_runs`, `qa_pages` (one row per page per run: re-running keeps
 *   the old runs, and a page's *current* result is its row of the newest run that scored it, so
 *   a patch that re-scores ten pages leaves the others' results as they were; QA scores the
 *   latest capture of each page URL, so "page" here is a URL) and `qa_reviews`
 *   (keyed by page URL + capture timestamp, not by run, so reviews survive re-runs).
 *   A file apart from crawl.sqlite on purpose: QA writes while a patch crawl holds the crawl's
 *   database and lock, its schema moves on its own, and deleting `qa/` forgets QA and nothing else.
 * - `qa/shots/<key>/{reference,replay,diff}.png`: the page's screenshots of its latest scoring,
 *   as PNG files (key: the first 16 hex digits of SHA-256 of `url + ' ' + ts`). `reference` is
 *   the screenshot scored against (the capture-time one copied out of its `urn:view:` record, or
 *   the live page's with `--against-live`; none for replay-only), `replay` the replayed page's
 *   viewport, `diff` pixelmatch's output. Files, not blobs: the app reads three PNGs per page
 *   opened, and a run over thousands of pages should not grow the database by hundreds of MB.
 *
 * - `qa_patch_crawls` and `qa_patch_warcs` (an archive made by imports): the crawl directory
 *   `trove qa --patch` made beside it (by name, so the two move together), and which of that
 *   crawl's WARC files have been copied into this archive (core/qa/qa-patch.ts).
 *
 * SQL over these tables lives here and nowhere else (core/archive owns QA's tables).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { QaBand, QaPageQuery, QaPageResult, QaReference, QaRunInfo, QaShots, QaVerdict } from '../api/qa-types.ts';
import { TroveError } from '../errors.ts';

export const QA_FOLDER = 'qa';
const QA_DB = 'qa.sqlite';
const SHOTS = 'shots';

const BANDS: QaBand[] = ['severe', 'moderate', 'good'];
// 2: the patch crawl of an import and the WARCs of it joined to the archive (qa_patch_*).
const SCHEMA_VERSION = 2;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS qa_runs (
  id INTEGER PRIMARY KEY,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  options TEXT NOT NULL,
  after_patch_of INTEGER
);
CREATE TABLE IF NOT EXISTS qa_pages (
  run_id INTEGER NOT NULL REFERENCES qa_runs(id),
  url TEXT NOT NULL,
  ts TEXT NOT NULL,
  checked_at TEXT NOT NULL,
  reference TEXT NOT NULL,
  screenshot_score REAL,
  text_score REAL,
  resource_score REAL NOT NULL,
  worst REAL NOT NULL,
  band INTEGER NOT NULL,
  captured INTEGER NOT NULL,
  missing INTEGER NOT NULL,
  errors INTEGER NOT NULL,
  title TEXT,
  missing_urls TEXT NOT NULL,
  error_urls TEXT NOT NULL,
  script_errors TEXT NOT NULL,
  PRIMARY KEY (url, ts, run_id)
);
CREATE INDEX IF NOT EXISTS qa_pages_run ON qa_pages(run_id);
CREATE TABLE IF NOT EXISTS qa_reviews (
  url TEXT NOT NULL,
  ts TEXT NOT NULL,
  verdict TEXT,
  note TEXT,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (url, ts)
);
CREATE TABLE IF NOT EXISTS qa_patch_crawls (
  name TEXT PRIMARY KEY,
  created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS qa_patch_warcs (
  crawl TEXT NOT NULL,
  warc TEXT NOT NULL,
  joined_at TEXT NOT NULL,
  PRIMARY KEY (crawl, warc)
);
`;

// A page's current result: the row of the newest run that scored its URL (a patch that captured
// the page again scores the new capture, whose timestamp is not the old one's). Its review is the
// one made on that capture, or else the newest made on an earlier capture of the URL: a note on
// a page the patch then captured again stays with the page until the archivist reviews it anew.
const CURRENT = `SELECT p.*, r.verdict AS verdict, r.note AS note FROM qa_pages p
  JOIN (SELECT url, MAX(run_id) AS run_id FROM qa_pages GROUP BY url) m ON m.url = p.url AND m.run_id = p.run_id
  LEFT JOIN qa_reviews r ON r.rowid = (SELECT q.rowid FROM qa_reviews q WHERE q.url = p.url ORDER BY q.ts = p.ts DESC, q.updated_at DESC LIMIT 1)`;

interface PageDbRow {
  run_id: number;
  url: string;
  ts: string;
  checked_at: string;
  reference: string;
  screenshot_score: number | null;
  text_score: number | null;
  resource_score: number;
  band: number;
  captured: number;
  missing: number;
  errors: number;
  title: string | null;
  missing_urls: string;
  error_urls: string;
  script_errors: string;
  verdict: string | null;
  note: string | null;
}

interface RunDbRow {
  id: number;
  started_at: string;
  finished_at: string | null;
  after_patch_of: number | null;
}

function qaDir(archiveDir: string): string {
  return path.join(path.resolve(archiveDir), QA_FOLDER);
}

/** Open (creating when `create`) the archive's QA database; null when there is none and `create` is false. */
function openQaDb(archiveDir: string, create: boolean): Database.Database | null {
  const dir = qaDir(archiveDir);
  const file = path.join(dir, QA_DB);
  if (!create && !fs.existsSync(file)) return null;
  try {
    fs.mkdirSync(dir, { recursive: true });
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    // A row per page scored: in WAL mode NORMAL syncs at checkpoints, not at every page's commit
    // (a power cut may lose the last pages' rows, which a re-run scores again).
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 10000');
    if ((db.pragma('user_version', { simple: true }) as number) < SCHEMA_VERSION) {
      db.exec(SCHEMA);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    }
    return db;
  } catch (err) {
    throw new TroveError('QA_STORE_FAILED', `cannot open the QA results ${file}: ${(err as Error).message}`, { path: file }, { cause: err });
  }
}

function withDb<T>(archiveDir: string, create: boolean, none: T, f: (db: Database.Database) => T): T {
  const db = openQaDb(archiveDir, create);
  if (!db) return none;
  try {
    return f(db);
  } finally {
    db.close();
  }
}

/**
 * A QA run being written: rows go in as pages are scored (a run cut short keeps what it scored),
 * `finish` stamps its end. One connection for the run's life.
 */
export class QaRunWriter {
  readonly id: number;
  readonly startedAt: string;
  readonly #db: Database.Database;
  readonly #insert: Database.Statement;

  constructor(archiveDir: string, options: unknown, afterPatchOf: number | null, now: Date = new Date()) {
    this.#db = openQaDb(archiveDir, true)!;
    this.startedAt = now.toISOString();
    this.id = Number(
      this.#db.prepare('INSERT INTO qa_runs (started_at, options, after_patch_of) VALUES (?, ?, ?)').run(this.startedAt, JSON.stringify(options ?? {}), afterPatchOf).lastInsertRowid,
    );
    this.#insert = this.#db.prepare(`INSERT OR REPLACE INTO qa_pages (run_id, url, ts, checked_at, reference, screenshot_score, text_score, resource_score, worst, band,
      captured, missing, errors, title, missing_urls, error_urls, script_errors) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  }

  add(r: QaPageResult, checkedAt: Date = new Date()): void {
    const worst = Math.min(r.resourceScore, r.screenshotScore ?? 1, r.textScore ?? 1);
    this.#insert.run(
      this.id,
      r.url,
      r.ts,
      checkedAt.toISOString(),
      r.reference,
      r.screenshotScore,
      r.textScore,
      r.resourceScore,
      worst,
      BANDS.indexOf(r.band),
      r.resources.captured,
      r.resources.missing,
      r.resources.errors,
      r.title ?? null,
      JSON.stringify(r.missingUrls),
      JSON.stringify(r.errorUrls),
      JSON.stringify(r.scriptErrors),
    );
  }

  finish(now: Date = new Date()): QaRunInfo {
    this.#db.prepare('UPDATE qa_runs SET finished_at = ? WHERE id = ?').run(now.toISOString(), this.id);
    return runInfo(this.#db, this.#db.prepare('SELECT id, started_at, finished_at, after_patch_of FROM qa_runs WHERE id = ?').get(this.id) as RunDbRow);
  }

  close(): void {
    this.#db.close();
  }
}

function runInfo(db: Database.Database, row: RunDbRow): QaRunInfo {
  const bands: Record<QaBand, number> = { severe: 0, moderate: 0, good: 0 };
  const references: Partial<Record<QaReference, number>> = {};
  let pages = 0;
  for (const c of db.prepare('SELECT band, reference, COUNT(*) AS n FROM qa_pages WHERE run_id = ? GROUP BY band, reference').all(row.id) as { band: number; reference: QaReference; n: number }[]) {
    bands[BANDS[c.band]!] += c.n;
    references[c.reference] = (references[c.reference] ?? 0) + c.n;
    pages += c.n;
  }
  return { id: row.id, startedAt: row.started_at, finishedAt: row.finished_at, references, pages, bands, afterPatchOf: row.after_patch_of };
}

/** Every QA run of the archive, newest first (none: an empty list). */
export function listQaRuns(archiveDir: string): QaRunInfo[] {
  return withDb(archiveDir, false, [], (db) =>
    (db.prepare('SELECT id, started_at, finished_at, after_patch_of FROM qa_runs ORDER BY id DESC').all() as RunDbRow[]).map((r) => runInfo(db, r)),
  );
}

/** The bands of the pages' current results (each page's newest scoring), the headline of the QA view. */
export function currentQaBands(archiveDir: string): Record<QaBand, number> {
  const bands: Record<QaBand, number> = { severe: 0, moderate: 0, good: 0 };
  withDb(archiveDir, false, null, (db) => {
    for (const c of db.prepare(`SELECT band, COUNT(*) AS n FROM (${CURRENT}) GROUP BY band`).all() as { band: number; n: number }[]) bands[BANDS[c.band]!] += c.n;
    return null;
  });
  return bands;
}

function pageResult(r: PageDbRow): QaPageResult {
  return {
    url: r.url,
    ts: r.ts,
    reference: r.reference as QaReference,
    screenshotScore: r.screenshot_score,
    textScore: r.text_score,
    resourceScore: r.resource_score,
    resources: { captured: r.captured, missing: r.missing, errors: r.errors },
    band: BANDS[r.band]!,
    missingUrls: JSON.parse(r.missing_urls) as string[],
    errorUrls: JSON.parse(r.error_urls) as { url: string; status: number }[],
    scriptErrors: JSON.parse(r.script_errors) as string[],
    verdict: (r.verdict as QaVerdict | null) ?? null,
    note: r.note ?? null,
    runId: r.run_id,
    checkedAt: r.checked_at,
    ...(r.title ? { title: r.title } : {}),
  };
}

/**
 * The pages' current results (each page's newest scoring), worst first: severe before moderate
 * before good, then by the lowest of the page's scores, then by URL. Filters and paging as asked.
 */
export function listQaPages(archiveDir: string, q: QaPageQuery = {}): QaPageResult[] {
  return withDb(archiveDir, false, [], (db) => {
    const where: string[] = [];
    const params: unknown[] = [];
    if (q.band) {
      where.push('band = ?');
      params.push(BANDS.indexOf(q.band));
    }
    if (q.reference) {
      where.push('reference = ?');
      params.push(q.reference);
    }
    if (q.verdict === 'none') where.push('verdict IS NULL');
    else if (q.verdict) {
      where.push('verdict = ?');
      params.push(q.verdict);
    }
    if (q.urlContains) {
      where.push("instr(url, ?) > 0");
      params.push(q.urlContains);
    }
    const sql = `SELECT * FROM (${CURRENT}) ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY band, worst, url, ts LIMIT ? OFFSET ?`;
    return (db.prepare(sql).all(...params, q.limit ?? -1, q.offset ?? 0) as PageDbRow[]).map(pageResult);
  });
}

/** One page's current result, or null when it was never scored. */
export function qaPage(archiveDir: string, url: string, ts: string): QaPageResult | null {
  return withDb(archiveDir, false, null, (db) => {
    const row = db.prepare(`SELECT * FROM (${CURRENT}) WHERE url = ? AND ts = ?`).get(url, ts) as PageDbRow | undefined;
    return row ? pageResult(row) : null;
  });
}

/**
 * The archivist's review of a page: approved or rejected, and a note; null clears either. Kept
 * by URL and capture timestamp, so it stays through later runs.
 */
export function setReview(archiveDir: string, url: string, ts: string, verdict: QaVerdict | null, note: string | null, now: Date = new Date()): void {
  if (verdict !== null && verdict !== 'approved' && verdict !== 'rejected') {
    throw new TroveError('QA_STORE_FAILED', `a review is approved, rejected or none, not ${String(verdict)}`, { verdict });
  }
  withDb(archiveDir, true, null, (db) => {
    if (verdict === null && (note === null || note === '')) db.prepare('DELETE FROM qa_reviews WHERE url = ? AND ts = ?').run(url, ts);
    else {
      db.prepare('INSERT INTO qa_reviews (url, ts, verdict, note, updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (url, ts) DO UPDATE SET verdict = excluded.verdict, note = excluded.note, updated_at = excluded.updated_at').run(
        url,
        ts,
        verdict,
        note,
        now.toISOString(),
      );
    }
    return null;
  });
}

/** The folder of a page's screenshots (see the header). */
export function qaShotDir(archiveDir: string, url: string, ts: string): string {
  const key = createHash('sha256').update(`${url} ${ts}`).digest('hex').slice(0, 16);
  return path.join(qaDir(archiveDir), SHOTS, key);
}

export type QaShotKind = 'reference' | 'replay' | 'diff';

/** Keep (or, with null, forget) one of a page's screenshots of its latest scoring. */
export function writeQaShot(archiveDir: string, url: string, ts: string, kind: QaShotKind, png: Buffer | null): void {
  const dir = qaShotDir(archiveDir, url, ts);
  const file = path.join(dir, `${kind}.png`);
  if (png === null) {
    fs.rmSync(file, { force: true });
    return;
  }
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(file, png);
}

/** The path of one of a page's screenshots, or null when there is none. */
export function qaShotPath(archiveDir: string, url: string, ts: string, kind: QaShotKind): string | null {
  const file = path.join(qaShotDir(archiveDir, url, ts), `${kind}.png`);
  return fs.existsSync(file) ? file : null;
}

/** A page's screenshots from the `qa/shots` files, as `data:` URLs for the app (the renderer has no file access). */
export function readQaShots(archiveDir: string, url: string, ts: string): QaShots {
  const read = (kind: QaShotKind): string | null => {
    const file = qaShotPath(archiveDir, url, ts, kind);
    return file ? `data:image/png;base64,${fs.readFileSync(file).toString('base64')}` : null;
  };
  return { reference: read('reference'), replay: read('replay'), diff: read('diff') };
}

/** The patch crawl of an archive made by imports: a directory name beside it, or null when none was made. */
export function importPatchCrawl(archiveDir: string): string | null {
  return withDb(archiveDir, false, null, (db) => (db.prepare('SELECT name FROM qa_patch_crawls ORDER BY created_at DESC LIMIT 1').get() as { name: string } | undefined)?.name ?? null);
}

/** Record the patch crawl made beside an archive of imports (its directory's name). */
export function setImportPatchCrawl(archiveDir: string, name: string, now: Date = new Date()): void {
  withDb(archiveDir, true, null, (db) => db.prepare('INSERT OR IGNORE INTO qa_patch_crawls (name, created_at) VALUES (?, ?)').run(name, now.toISOString()));
}

/** The WARC files (names in the patch crawl's warcs/) already joined to the archive. */
export function joinedPatchWarcs(archiveDir: string, crawl: string): Set<string> {
  return withDb(archiveDir, false, new Set<string>(), (db) => new Set((db.prepare('SELECT warc FROM qa_patch_warcs WHERE crawl = ?').all(crawl) as { warc: string }[]).map((r) => r.warc)));
}

export function addJoinedPatchWarcs(archiveDir: string, crawl: string, warcs: readonly string[], now: Date = new Date()): void {
  withDb(archiveDir, true, null, (db) => {
    const add = db.prepare('INSERT OR IGNORE INTO qa_patch_warcs (crawl, warc, joined_at) VALUES (?, ?, ?)');
    db.transaction(() => {
      for (const w of warcs) add.run(crawl, w, now.toISOString());
    })();
    return null;
  });
}
