/**
 * Add an exclusion to the crawl in a directory, whoever runs it: `trove exclude DIR REGEX` and
 * the app (for a crawl it does not run itself). When no process holds the directory, the
 * exclusion is applied directly under its lock (live-exclude.ts, excludeStoppedCrawl). When a
 * crawl holds it, the crawl is asked through a request file (exclude-requests.ts) and applies it
 * with its own connection at its next snapshot; this waits for its answer. A request the crawl
 * did not take (it ended meanwhile) is withdrawn and applied directly.
 */
import fs from 'node:fs';
import type { LiveExcludeResult } from '../api/app-types.ts';
import { isErrorCode } from '../api/error-codes.ts';
import { isTroveError, TroveError } from '../errors.ts';
import { compileRegex } from '../scope/standard-rules.ts';
import { tryLock } from '../storage/owner-lock.ts';
import { crawlPaths } from './crawl-dir.ts';
import { isExcludeRequestTaken, readExcludeAnswer, withdrawExcludeRequest, writeExcludeRequest } from './exclude-requests.ts';
import { excludeStoppedCrawl } from './live-exclude.ts';

export interface ExcludeInDirOptions {
  /** How long to wait for a running crawl to take and answer the request. Default 30 s. */
  timeoutMs?: number;
  /** How often to look for the answer. Default 100 ms. */
  pollMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface ExcludeInDirResult {
  result: LiveExcludeResult;
  /** True when a running crawl applied it; false when it was applied to the stopped crawl. */
  running: boolean;
}

export async function excludeInCrawlDir(dir: string, pattern: string, opts: ExcludeInDirOptions = {}): Promise<ExcludeInDirResult> {
  compileRegex(pattern, 'exclude');
  const paths = crawlPaths(dir);
  if (!fs.existsSync(paths.db)) throw new TroveError('CRAWL_NOT_FOUND', `no crawl in ${paths.dir} (crawl.sqlite is missing)`, { dir });
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const direct = (): ExcludeInDirResult | null => {
    try {
      return { result: excludeStoppedCrawl(dir, pattern, { now }), running: false };
    } catch (err) {
      if (isTroveError(err, 'CRAWL_DIR_LOCKED')) return null;
      throw err;
    }
  };
  const first = direct();
  if (first) return first;

  let id = writeExcludeRequest(dir, pattern);
  const deadline = now() + timeoutMs;
  for (;;) {
    const answer = readExcludeAnswer(dir, id);
    if (answer) {
      if (answer.ok) return { result: answer.result, running: true };
      throw new TroveError(isErrorCode(answer.error.code) ? answer.error.code : 'INTERNAL', answer.error.message, { dir: paths.dir, pattern });
    }
    if (!isExcludeRequestTaken(dir, id)) {
      // Not taken: if no crawl holds the directory any more, take the request back and apply it here.
      if (!lockHeld(paths.lock) && withdrawExcludeRequest(dir, id)) {
        const done = direct();
        if (done) return done;
        id = writeExcludeRequest(dir, pattern); // a crawl started in between: ask it
      } else if (now() >= deadline && withdrawExcludeRequest(dir, id)) {
        throw new TroveError('EXCLUDE_NOT_TAKEN', `the crawl running in ${paths.dir} did not take the exclusion within ${Math.round(timeoutMs / 1000)} s; nothing was changed`, { dir: paths.dir, pattern });
      }
    } else if (now() >= deadline + timeoutMs) {
      throw new TroveError('EXCLUDE_NOT_TAKEN', `the crawl running in ${paths.dir} took the exclusion but has not answered; look at its log (and logs/scope.log) to see whether it was applied`, { dir: paths.dir, pattern });
    }
    await sleep(opts.pollMs ?? 100);
  }
}

/** Whether a live process holds the directory lock (looked at by taking and giving it back). */
function lockHeld(lockFile: string): boolean {
  const got = tryLock(lockFile);
  if (!got.ok) return true;
  got.release();
  return false;
}
