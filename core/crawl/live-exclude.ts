/**
 * A live exclusion: a regex added to a crawl while it runs (Heritrix's scope edit plus
 * delete-by-regex, Browsertrix's "Edit exclusions"). Applied by the owner of the crawl's
 * database only — the crawl itself, through its own connection and inside its group of writes —
 * so nothing else ever writes a running crawl's database (exclude-requests.ts says why):
 *
 * - queued URIs (pending or waiting) that match are finished as out of scope (−5000) and each is
 *   logged in logs/scope.log with the rule (`exclude-regex`) and the pattern;
 * - URLs found from now on that match are rejected by the scope's exclude-regex rule (and those
 *   already claimed are rechecked as they are processed, chain/recheck-scope.ts);
 * - the pattern is stored in the crawl's settings, so a resume keeps it.
 *
 * Seeds and robots.txt prerequisites are never dropped, as recheck-scope spares them. A crawl
 * that is not running is changed the same way by `excludeStoppedCrawl`, under the directory lock.
 */
import type Database from 'better-sqlite3';
import type { CrawlSettings } from '../api/settings.ts';
import type { LiveExcludeResult } from '../api/app-types.ts';
import { Outcome } from '../api/outcome-codes.ts';
import { TroveError } from '../errors.ts';
import type { Frontier } from '../frontier/frontier.ts';
import { createSqliteFrontier } from '../frontier/sqlite-frontier.ts';
import { compileRegex } from '../scope/standard-rules.ts';
import { getMeta, setMeta } from '../storage/meta.ts';
import { closeDatabase, openDatabase } from '../storage/open-database.ts';
import { acquireLock, crawlPaths } from './crawl-dir.ts';
import { LineLog } from './crawl-log.ts';

/** The scope.log rule name of a live exclusion's drops (the same rule that rejects new links). */
export const LIVE_EXCLUDE_RULE = 'exclude-regex';
/** Dropped URLs returned as samples (all of them go to scope.log). */
const SAMPLES = 10;

export interface LiveExcludeDeps {
  db: Database.Database;
  frontier: Frontier;
  /** The crawl's settings object (its `exclude` list grows). */
  settings: CrawlSettings;
  /** The running crawl's scope and its claim-time list; absent on a stopped crawl. */
  scope?: { addExclude(pattern: string): void };
  excludes?: RegExp[];
  scopeLog: { write(line: string): void };
  /** Counts the drops among the crawl's outcomes. */
  stats?: { recordDropped(status: number, n: number): void };
  /** Runs the database writes as one unit of the crawl's group (GroupCommit.unit). */
  unit?: <T>(fn: () => T) => T;
  /** Commits the crawl's open group (GroupCommit.commit). */
  commit?: () => void;
  now?: () => number;
}

/** Add `pattern` to the crawl and drop the queued URIs it matches. Throws SCOPE_BAD_REGEX. */
export function applyLiveExclude(deps: LiveExcludeDeps, pattern: string): LiveExcludeResult {
  const re = compileRegex(pattern, 'exclude');
  const now = deps.now ?? Date.now;
  if (!deps.frontier.dropQueued) {
    throw new TroveError('NOT_AVAILABLE', 'a live exclusion needs the crawl’s own SQLite frontier (a shared crawl takes excludes at start)');
  }
  const added = !deps.settings.exclude.includes(pattern);
  const run = deps.unit ?? (<T>(fn: () => T): T => fn());
  const appliedAt = now();
  const iso = new Date(appliedAt).toISOString();
  const samples: string[] = [];
  const dropped = run(() => {
    const n = deps.frontier.dropQueued!(
      (u) => !u.seed && !(u.hopsPath.endsWith('P') && u.viaContext === 'robots') && re.test(u.url),
      Outcome.OUT_OF_SCOPE,
      LIVE_EXCLUDE_RULE,
      // Said with the group that drops them (committed-line-log.ts): a lost group logs nothing.
      (u) => {
        if (samples.length < SAMPLES) samples.push(u.url);
        deps.scopeLog.write(`${iso} ${LIVE_EXCLUDE_RULE} ${u.url} ${u.hopsPath || '-'} ${u.via ?? '-'} dropped from the queue by a live exclusion: matched ${String(re)}`);
      },
    );
    if (added) setMeta(deps.db, 'settings', { ...deps.settings, exclude: [...deps.settings.exclude, pattern] });
    // Counted with the group too: its counters are persisted just before its COMMIT.
    deps.stats?.recordDropped(Outcome.OUT_OF_SCOPE, n);
    return n;
  });
  // Durable before it is answered: readers (the preview, `trove status`) see the queue without them.
  deps.commit?.();
  // Taken by the database: now the settings, the scope and the claim-time check.
  if (added) {
    deps.settings.exclude = [...deps.settings.exclude, pattern];
    deps.scope?.addExclude(pattern);
    deps.excludes?.push(re);
  }
  return { pattern, added, dropped, samples, appliedAt };
}

/**
 * The same on a crawl that is not running: under the directory lock (CRAWL_DIR_LOCKED when a
 * crawl holds it), through a connection of its own. CRAWL_NOT_FOUND when `dir` holds no crawl.
 */
export function excludeStoppedCrawl(dir: string, pattern: string, opts: { now?: () => number } = {}): LiveExcludeResult {
  compileRegex(pattern, 'exclude');
  const paths = crawlPaths(dir);
  const release = acquireLock(paths);
  try {
    const db = openDatabase(paths.db);
    const scopeLog = new LineLog(paths.scopeLog);
    try {
      const settings = getMeta<CrawlSettings>(db, 'settings');
      if (!settings) throw new TroveError('CRAWL_NOT_FOUND', `${paths.dir} holds no crawl (no settings in crawl.sqlite)`, { dir: paths.dir });
      const frontier = createSqliteFrontier(db);
      const stats = getMeta<{ failed?: number }>(db, 'stats');
      const tallies = getMeta<{ statusCodes?: Record<string, number> }>(db, 'statsTallies');
      const unit = <T>(fn: () => T): T => db.transaction(fn)();
      return applyLiveExclude(
        {
          db,
          frontier,
          settings,
          scopeLog,
          unit,
          now: opts.now,
          // The stored counters a resume carries on from, kept in step with the frontier's.
          stats: {
            recordDropped: (status, n) => {
              if (n <= 0) return;
              unit(() => {
                if (stats) setMeta(db, 'stats', { ...stats, failed: (stats.failed ?? 0) + n });
                if (tallies) setMeta(db, 'statsTallies', { ...tallies, statusCodes: { ...tallies.statusCodes, [status]: (tallies.statusCodes?.[status] ?? 0) + n } });
              });
            },
          },
        },
        pattern,
      );
    } finally {
      void scopeLog.close(); // synchronous underneath (LineLog)
      closeDatabase(db);
    }
  } finally {
    release();
  }
}
