/**
 * Post-fetch, before anything is written: with `--logged-in-check`, a response of the login's
 * site that says the login has ended (logged-in-check.ts) is not archived. It gets its crawl.log
 * line with its own outcome (LOGGED_OUT, −7002), goes back to the queue untouched (no attempt
 * counted) and the crawl pauses with the reason; on resume, with a refreshed profile, it is
 * fetched again, so every page is archived once, logged in.
 */
import { Outcome } from '../../api/outcome-codes.ts';
import { formatCrawlLogLine } from '../crawl-log.ts';
import type { CrawlContext } from '../crawl-context.ts';
import type { FetchResult } from '../../fetch/fetcher.ts';
import type { CrawlUri, Processor } from './crawl-uri.ts';

export const checkLoggedIn: Processor = {
  name: 'check-logged-in',
  reads: { settings: [], services: ['crawlLog', 'frontier', 'loggedIn', 'now'] },
  shouldProcess: (ctx, curi) => ctx.loggedIn !== undefined && curi.fetch !== undefined && !curi.captured,
  async process(ctx, curi) {
    const f = curi.fetch!;
    const why = await ctx.loggedIn!.check.loggedOut(curi.uri.url, f, curi.mime);
    if (why === null) return 'proceed';
    loggedOut(ctx, curi, f, why);
    return 'finish';
  },
};

/**
 * The URI's login has ended: its crawl.log line (LOGGED_OUT), back to the queue untouched, and
 * the crawl pauses with `why`. Also what fetch-browser does with a page whose rendered DOM lacks
 * the check's marker (its records were held back, and are dropped).
 */
export function loggedOut(ctx: CrawlContext, curi: CrawlUri, f: FetchResult, why: string): void {
  const { uri } = curi;
  ctx.crawlLog.write(
    formatCrawlLogLine({
      time: new Date(),
      status: Outcome.LOGGED_OUT,
      size: 0,
      url: uri.url,
      hopsPath: uri.hopsPath,
      via: uri.via,
      mime: curi.mime,
      slot: curi.slot,
      fetchStart: f.startedAt,
      durationMs: f.durationMs,
      digest: null,
      annotations: [`logged-out:${f.status}`],
    }),
  );
  ctx.frontier.defer(uri, ctx.now());
  curi.disposition = { kind: 'deferred' };
  ctx.loggedIn!.onLoggedOut(uri.url, why);
}
