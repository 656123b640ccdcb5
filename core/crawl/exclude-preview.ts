/**
 * What an exclusion would do to a crawl, before it is added: the queued URLs it would drop and
 * the captures it matches (kept), each a count and a sample. It reads through a read-only
 * connection of its own: under WAL that never waits for the crawl's writes and never takes the
 * write lock, so it can neither fail on a busy database nor disturb a running crawl's group of
 * writes (issue 33; exclude-requests.ts says how another writer fails the crawl). The app's
 * dialog and its refreshes, and `trove exclude --dry-run`, all come here.
 */
import fs from 'node:fs';
import type { ExcludePreview } from '../api/app-types.ts';
import { TroveError } from '../errors.ts';
import { capturesMatching } from '../archive/capture-preview.ts';
import { createCaptureIndex } from '../archive/capture-index.ts';
import { createFrontierView } from '../frontier/frontier-view.ts';
import { compileRegex } from '../scope/standard-rules.ts';
import { closeDatabase, openDatabase } from '../storage/open-database.ts';
import { crawlPaths } from './crawl-dir.ts';

/**
 * A preview scans at most this many queue rows and as many capture rows (a regex cannot use an
 * index): about a second each; past it the preview says "at least".
 */
export const PREVIEW_SCAN_CAP = 1_000_000;

/** Throws SCOPE_BAD_REGEX for a bad pattern, CRAWL_NOT_FOUND when `dir` holds no crawl database. */
export function previewExclude(dir: string, pattern: string, opts: { samples?: number; cap?: number } = {}): ExcludePreview {
  const re = compileRegex(pattern, 'exclude');
  const file = crawlPaths(dir).db;
  if (!fs.existsSync(file)) throw new TroveError('CRAWL_NOT_FOUND', `no crawl in ${crawlPaths(dir).dir} (crawl.sqlite is missing)`, { dir });
  const db = openDatabase(file, { readonly: true });
  try {
    const n = opts.samples ?? 10;
    const cap = opts.cap ?? PREVIEW_SCAN_CAP;
    return { pattern, captured: capturesMatching(createCaptureIndex(db), re, n, cap), queued: createFrontierView(db).queuedMatching(re, n, cap) };
  } finally {
    closeDatabase(db);
  }
}
