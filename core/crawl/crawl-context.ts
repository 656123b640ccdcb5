/**
 * The services one crawl is made of, built once by the controller and handed to the URI
 * processor. No module-level state anywhere: two crawls in one process never share anything.
 */
import type Database from 'better-sqlite3';
import type { CrawlSettings } from '../api/settings.ts';
import type { CaptureIndex } from '../archive/capture-index.ts';
import type { ExtractPool } from '../extract/extract-pool.ts';
import type { Fetcher } from '../fetch/fetcher.ts';
import type { CrawlCookieJar } from '../fetch/cookie-jar.ts';
import type { LoggedInCheck } from './logged-in-check.ts';
import type { ProfileState } from '../api/profile-types.ts';
import type { Frontier } from '../frontier/frontier.ts';
import type { WarcWriter } from '../warc/warc-writer.ts';
import type { CandidateChain } from './candidate-chain.ts';
import type { LineLog } from './crawl-log.ts';
import type { CrawlPaths } from './crawl-dir.ts';
import type { CrawlStats } from './crawl-stats.ts';
import type { RobotsGate } from './robots-gate.ts';
import type { PageTextBuffer } from './page-text-buffer.ts';
import type { PriorCaptures } from './prior-captures.ts';
import type { PendingOriginals } from './pending-originals.ts';
import type { TrapDetector } from './trap-detector.ts';
import type { GroupCommit } from '../storage/group-commit.ts';
import type { RowsInFlight } from './rows-in-flight.ts';

export interface QueueNote {
  delayMs: number;
  delayReason: string;
  backoffs: number;
  consecutiveErrors: number;
  /** The in-flight limit last set on this queue in this run (per-host overrides of --per-host). */
  maxInFlight?: number;
}

export interface CrawlContext {
  settings: CrawlSettings;
  /**
   * The crawl's clock (ms since epoch): the controller's loop, claims and snapshots, and the
   * times retries are due. Date.now, unless a test injects one (StartCrawlOptions.clock).
   */
  now(): number;
  paths: CrawlPaths;
  db: Database.Database;
  /** Many URIs' writes share one transaction on `db` (core/storage/group-commit.ts). */
  group: GroupCommit;
  /** Records written whose index rows are still to come (rows-in-flight.ts). */
  rowsInFlight: RowsInFlight;
  frontier: Frontier;
  captures: CaptureIndex;
  writer: WarcWriter;
  fetcher: Fetcher;
  /** The login's cookie jar (--profile, --cookies), or null when the crawl carries none (crawl-login.ts). */
  cookies?: CrawlCookieJar | null;
  extractor: ExtractPool;
  robots: RobotsGate;
  /** Scopes and queues the links found (the candidate chain). */
  chain: CandidateChain;
  stats: CrawlStats;
  crawlLog: LineLog;
  pageText: PageTextBuffer;
  /** Sees every fetched URI once, with its text, to suggest excludes for crawler traps. */
  traps: TrapDetector;
  /** Captures of earlier crawls (--dedup-from), or null. */
  prior: PriorCaptures | null;
  /** Responses being written, by payload digest: duplicates fetched meanwhile become revisits of them. */
  pendingOriginals: PendingOriginals;
  /** Capture-index file id per WARC base name. */
  fileIds: Map<string, number>;
  /** Per-queue politeness notes for the monitor. */
  queueNotes: Map<string, QueueNote>;
  /** Aborted on a hard stop: in-flight fetches end at once (their URIs stay leased and are re-queued on resume). */
  hardStop: AbortSignal;
  /**
   * The exclude pattern a queued URL matches, or null. Re-checked when a URI is claimed (as
   * Heritrix's Preselector rechecks scope), so an exclusion added to a running crawl also drops
   * the URLs already queued, not only those discovered from then on.
   */
  excluded?(url: string): string | null;
  /**
   * --logged-in-check: the check, and what to do when a response says the login ended (the
   * controller pauses the crawl with the reason). Absent without the setting.
   */
  loggedIn?: { check: LoggedInCheck; onLoggedOut(url: string, why: string): void };
  /** Without --logged-in-check: a response that is a login wall (note-login-wall.ts); the crawl says once that it needs a login. */
  loginWall?: { seen(url: string, why: string): void };
  /** --profile: the profile the tabs start from, and how many times it was read again (a resume after a logged-out pause). */
  tabLogin?: { generation(): number; state(): ProfileState };
  /** --save-profile with --profile: a browser tab's login state after each page, for the refreshed profile (crawl-login.ts). */
  browserProfile?: { observe(state: ProfileState): void };
  /** A seed redirected: its target becomes a seed too (Heritrix seedsRedirectNewSeeds). */
  addRedirectSeed(url: string): void;
}

/** The politeness note of a queue, made on first use. */
export function queueNote(ctx: CrawlContext, queueKey: string): QueueNote {
  let n = ctx.queueNotes.get(queueKey);
  if (!n) {
    n = { delayMs: 0, delayReason: '-', backoffs: 0, consecutiveErrors: 0 };
    ctx.queueNotes.set(queueKey, n);
  }
  return n;
}
