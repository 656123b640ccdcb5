/**
 * Fetch for a robots.txt prerequisite: fetched by HTTP, followed through up to 5 redirects,
 * recorded in the robots gate. The redirect hops are archived and indexed here (they have no
 * frontier entry of their own); the first response goes on down the chain as the URI's own.
 *
 * The first response is completed last: completing it frees the queue, and nothing of this
 * origin may be claimed (nor robots.txt asked for again, nor a second request be in flight)
 * before the redirect chain has ended and its outcome is recorded in the gate.
 */
import type { ClaimedUri } from '../../frontier/frontier.ts';
import type { FetchResult } from '../../fetch/fetcher.ts';
import type { Outlink } from '../../extract/outlink.ts';
import { decodeBodyStream } from '../../extract/decode-body.ts';
import { ROBOTS_MAX_REDIRECTS } from '../../robots/robots-state.ts';
import { outcomeName } from '../../api/outcome-codes.ts';
import { captureRows } from '../capture-rows.ts';
import { listFieldValue, redirectLocation } from '../../formats/http-fields.ts';
import { buildCaptureGroup } from '../capture-records.ts';
import { robotsSitemapOutlinks } from '../sitemap-seeder.ts';
import type { CrawlContext } from '../crawl-context.ts';
import type { Processor } from './crawl-uri.ts';
import { disposeFetch } from './dispose-fetch.ts';
import { requestHeaders } from './request-headers.ts';

export const fetchRobotsTxt: Processor = {
  name: 'fetch-robots-txt',
  reads: { settings: ['operator', 'sitemaps'], services: ['captures', 'chain', 'db', 'fetcher', 'fileIds', 'frontier', 'hardStop', 'robots', 'writer'] },
  async process(ctx, curi) {
    const { uri } = curi;
    let url = uri.url;
    let firstNext: string | null = null;
    for (let hop = 0; hop <= ROBOTS_MAX_REDIRECTS; hop++) {
      const f = await ctx.fetcher.fetch({ url, headers: requestHeaders(ctx, curi.hs, undefined), signal: ctx.hardStop });
      if (ctx.hardStop.aborted) {
        // Cut short by a hard stop: not a robots.txt failure; fetched again on resume.
        await disposeFetch(f);
        if (hop === 0) {
          ctx.frontier.defer(uri, Date.now());
          curi.disposition = { kind: 'deferred' };
          return 'finish';
        }
        break;
      }
      // The first response is the URI's own: the chain disposes of it when the URI is done.
      if (hop === 0) curi.fetch = f;
      try {
        const status = f.status ?? f.outcome;
        let body: Buffer | undefined;
        if (f.entity && status >= 200 && status < 300) {
          const decoded = await decodeBodyStream(f.entity.stream(), listFieldValue(f.headers, 'content-encoding') ?? undefined, 512 * 1024);
          body = decoded.body;
        }
        const next = redirectLocation(status, f.headers, url).absolute;
        // --sitemaps: the final robots.txt's Sitemap: lines become its hop-M outlinks.
        let sitemaps: Outlink[] = [];
        if (!next || hop === ROBOTS_MAX_REDIRECTS || f.outcome < 0) {
          const state = ctx.robots.record(uri.url, f.outcome < 0 && !f.status ? { status: 0, error: f.error?.code ?? outcomeName(f.outcome) } : { status, body }, Date.now());
          sitemaps = robotsSitemapOutlinks(ctx.settings, state, url);
        }
        if (hop === 0) {
          firstNext = next;
          curi.extraOutlinks = sitemaps;
        } else {
          await archiveOnly(ctx, url, uri, f, sitemaps);
        }
        if (!next) break;
        url = next;
      } finally {
        if (hop > 0) await disposeFetch(f);
      }
    }
    curi.noRetry = true;
    curi.redirectFollowed = true;
    if (firstNext) curi.annotations.push(`robots-redirect:${firstNext}`);
    return 'proceed';
  },
};

/** A robots.txt redirect hop: archived and indexed, no frontier entry of its own. */
async function archiveOnly(ctx: CrawlContext, url: string, uri: ClaimedUri, f: FetchResult, outlinks: Outlink[]): Promise<void> {
  // Sitemaps named by a redirected robots.txt are its outlinks (via the robots.txt URI).
  if (outlinks.length > 0) ctx.frontier.schedule(ctx.chain.fromOutlinks(uri, outlinks, false));
  if (!f.responseHead) return;
  const date = new Date(f.startedAt);
  const group = buildCaptureGroup({ url, date, fetch: f, revisitOf: null, metadata: { via: uri.url, hopsPath: uri.hopsPath + 'R', fetchTimeMs: f.durationMs, outlinks } });
  const written = await ctx.writer.writeGroup(group.records);
  const rows = captureRows(ctx, url, date, f, written, null, null);
  ctx.db.transaction(() => ctx.captures.addRecords(rows))();
}
