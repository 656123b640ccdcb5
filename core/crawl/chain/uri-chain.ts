/**
 * The processor chain one claimed URI goes through (Heritrix's shape), built once per crawl:
 *
 *   precondition: recheck-scope → check-robots
 *   fetch:        fetch-robots-txt | fetch-http | fetch-browser   (chosen per URI, choose-fetcher.ts)
 *   post-fetch:   note-response → handle-no-response → check-after-fetch-scope → check-logged-in → note-login-wall → set-politeness
 *   write/extract: dedup-digest → start-records → extract-links → write-records
 *   post-process: retry-server-errors → queue-outlinks
 *   disposition:  complete-uri → observe-traps → log-outcome
 *
 * A processor proceeds or finishes (the URI's end is decided: skip to the disposition). Every
 * URI ends in exactly one disposition: final (one crawl.log line, counted in the stats), retry,
 * or deferred (waiting for robots.txt, or cut by a hard stop). Nothing but a full disk throws out
 * of here (the controller pauses for it): an unexpected error in any processor makes the URI a
 * −5 that goes through the same disposition as every other outcome, and the crawl goes on.
 */
import type { ClaimedUri } from '../../frontier/frontier.ts';
import type { CrawlContext } from '../crawl-context.ts';
import { isDiskFullError } from '../disk-guard.ts';
import { Outcome } from '../../api/outcome-codes.ts';
import { newCrawlUri, type CrawlUri, type ProcessResult, type Processor } from './crawl-uri.ts';
import { chooseFetcher, type FetchProcessors } from './choose-fetcher.ts';
import { disposeFetch } from './dispose-fetch.ts';
import { recheckScope } from './recheck-scope.ts';
import { checkRobots } from './check-robots.ts';
import { fetchHttp } from './fetch-http.ts';
import { fetchRobotsTxt } from './fetch-robots-txt.ts';
import { noteResponse } from './note-response.ts';
import { handleNoResponse } from './handle-no-response.ts';
import { checkAfterFetchScope } from './check-after-fetch-scope.ts';
import { checkLoggedIn } from './check-logged-in.ts';
import { noteLoginWall } from './note-login-wall.ts';
import { setPoliteness } from './set-politeness.ts';
import { dedupDigest } from './dedup-digest.ts';
import { startRecords } from './start-records.ts';
import { extractLinks } from './extract-links.ts';
import { writeRecords } from './write-records.ts';
import { retryServerErrors } from './retry-server-errors.ts';
import { queueOutlinks } from './queue-outlinks.ts';
import { completeUri, releaseRows } from './complete-uri.ts';
import { observeTraps } from './observe-traps.ts';
import { logOutcome } from './log-outcome.ts';

export interface UriChain {
  preconditions: Processor[];
  /** The decide rule: which fetch processor this URI goes to. */
  fetcher(curi: CrawlUri): Processor;
  /** Post-fetch, extract, write and post-processing, in order. */
  processors: Processor[];
  disposition: Processor[];
}

export interface UriResult {
  /** 'final' = the URI has its one outcome; 'retry' / 'deferred' = it will come back. */
  kind: 'final' | 'retry' | 'deferred';
  status: number;
  bytes: number;
  page: boolean;
  /** The unexpected error that made it a −5 (for the crawl's error log). */
  error?: unknown;
}

/** The chain of a crawl: HTTP only, or with a browser fetch processor for pages. */
export function buildUriChain(opts: { browser?: Processor } = {}): UriChain {
  const fetchers: FetchProcessors = { http: fetchHttp, robotsTxt: fetchRobotsTxt, browser: opts.browser };
  return {
    preconditions: [recheckScope, checkRobots],
    fetcher: chooseFetcher(fetchers),
    processors: [noteResponse, handleNoResponse, checkAfterFetchScope, checkLoggedIn, noteLoginWall, setPoliteness, dedupDigest, startRecords, extractLinks, writeRecords, retryServerErrors, queueOutlinks],
    disposition: [completeUri, observeTraps, logOutcome],
  };
}

/**
 * `fetchDone` is called once the URI's fetch is over and its queue slot given back
 * (frontier.releaseSlot): from then on the rest of the chain runs beside the next fetches.
 */
export async function processUri(ctx: CrawlContext, chain: UriChain, uri: ClaimedUri, slot: number, fetchDone?: () => void, park?: (on: boolean) => void): Promise<UriResult> {
  const curi = newCrawlUri(uri, slot, fetchDone, park);
  try {
    try {
      await runMain(ctx, chain, curi);
    } catch (err) {
      if (isDiskFullError(err)) throw err;
      runtimeError(ctx, curi, err);
    }
    // Through the whole chain: the URI ends with its fetch's outcome.
    curi.disposition ??= fetchedOutcome(curi);
    try {
      await run(ctx, chain.disposition, curi);
    } catch (err) {
      // A failing disposition is tried once more as a −5 (a URI must not stay leased for nothing).
      if (isDiskFullError(err) || curi.error !== undefined) throw err;
      runtimeError(ctx, curi, err);
      await run(ctx, chain.disposition, curi);
    }
    return resultOf(curi);
  } finally {
    curi.originalClaim?.settle(null); // not written (an error): a duplicate waiting on it looks again
    releaseRows(ctx, curi); // rows never added (an error, a lost group): the file need not wait
    if (curi.fetch) await disposeFetch(curi.fetch);
  }
}

async function runMain(ctx: CrawlContext, chain: UriChain, curi: CrawlUri): Promise<void> {
  if ((await run(ctx, chain.preconditions, curi)) === 'finish') return;
  if ((await runOne(ctx, chain.fetcher(curi), curi)) === 'finish') return;
  await run(ctx, chain.processors, curi);
}

async function run(ctx: CrawlContext, processors: Processor[], curi: CrawlUri): Promise<ProcessResult> {
  for (const p of processors) {
    const r = runOne(ctx, p, curi);
    if ((typeof r === 'string' ? r : await r) === 'finish') return 'finish';
  }
  return 'proceed';
}

/**
 * One processor, awaited only when it answers with a promise: most processors are synchronous,
 * and an `await` of a plain value still suspends the chain for a microtask turn each time (some
 * twenty per URI).
 */
function runOne(ctx: CrawlContext, p: Processor, curi: CrawlUri): ProcessResult | Promise<ProcessResult> {
  if (p.shouldProcess && !p.shouldProcess(ctx, curi)) return 'proceed';
  return p.process(ctx, curi);
}

function fetchedOutcome(curi: CrawlUri): NonNullable<CrawlUri['disposition']> {
  const f = curi.fetch!;
  return {
    kind: 'final',
    status: curi.outcome,
    queueReadyAt: curi.queueReadyAt,
    size: f.bytesReceived,
    mime: curi.mime,
    duplicate: curi.revisitOf !== null,
    page: curi.page,
    fetched: { bytes: f.bytesReceived, mime: curi.mime ?? undefined, digest: f.payloadDigest ?? undefined },
  };
}

/**
 * −5: the URI ends here with the error as its annotation. If the frontier already holds its
 * outcome, that outcome stands and only what is left of the disposition (its log line) runs.
 */
function runtimeError(ctx: CrawlContext, curi: CrawlUri, err: unknown): void {
  curi.error = err;
  if (curi.completed) return;
  // Records the WARC may hold already are not indexed: the URI's outcome is the error.
  curi.rows = [];
  curi.candidates = [];
  curi.htmlPage = false;
  const message = ((err as Error)?.message ?? String(err)) || 'error';
  curi.annotations = [message.replace(/[\s,]+/g, '_').slice(0, 200)];
  curi.disposition = { kind: 'final', status: Outcome.RUNTIME_EXCEPTION, queueReadyAt: Date.now() + ctx.settings.minDelayMs, size: 0, mime: null, duplicate: false, page: false };
}

function resultOf(curi: CrawlUri): UriResult {
  const d = curi.disposition!;
  const error = curi.error;
  if (d.kind === 'deferred') return { kind: 'deferred', status: 0, bytes: 0, page: false, error };
  if (d.kind === 'retry') return { kind: 'retry', status: d.status, bytes: curi.fetch?.responseHead ? curi.fetch.bytesReceived : 0, page: false, error };
  return { kind: 'final', status: d.status, bytes: d.size, page: d.page, error };
}
