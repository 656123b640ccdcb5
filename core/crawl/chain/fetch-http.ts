/**
 * Fetch: one HTTP request for the URI (conditional when an earlier crawl holds the URL), a media
 * file cut at `--max-media-bytes`. The response, or its failure, is left on the CrawlUri for the
 * processors after it.
 */
import { TroveError } from '../../errors.ts';
import { surtKey } from '../../scope/surt.ts';
import { claimedUrl, type Processor } from './crawl-uri.ts';
import { disposeFetch } from './dispose-fetch.ts';
import { cutAtMediaLimit, mediaBodyLimit } from './media-body-limit.ts';
import { requestHeaders } from './request-headers.ts';

export const fetchHttp: Processor = {
  name: 'fetch-http',
  reads: { settings: ['dedup', 'maxBodyBytes', 'maxMediaBytes', 'operator'], services: ['cookies', 'fetcher', 'frontier', 'hardStop', 'prior'] },
  async process(ctx, curi) {
    const { uri } = curi;
    // Across crawls: a URL an earlier crawl holds is asked for conditionally.
    const conditional: [string, string][] = [];
    if (ctx.prior && ctx.settings.dedup !== 'off') {
      curi.prior = ctx.prior.latest(surtKey(uri.url), uri.url);
      if (curi.prior) conditional.push(...(await ctx.prior.conditionalHeaders(curi.prior)));
    }
    const parsed = claimedUrl(curi) ?? undefined;
    const headers: [string, string][] = [...requestHeaders(ctx, curi.hs, curi.sendAgent), ...conditional];
    // A login's cookies that match this request, as a browser would send them (fetch/cookie-jar.ts).
    // A crawl without a login has no jar and does none of this per URI.
    const jar = ctx.cookies;
    const cookieRequest = jar ? { url: uri.url, via: uri.via, hopsPath: uri.hopsPath } : null;
    const cookie = jar && cookieRequest ? jar.header(cookieRequest) : null;
    if (cookie !== null) headers.push(['Cookie', cookie]);
    // --max-media-bytes: a media file is cut there (media-body-limit.ts).
    const mediaLimit = mediaBodyLimit(uri.viaContext, ctx.settings.maxMediaBytes);
    const f = await ctx.fetcher.fetch({ url: uri.url, parsed, headers, signal: ctx.hardStop, ...mediaLimit });
    if (cutAtMediaLimit(f, uri.viaContext, ctx.settings.maxMediaBytes, ctx.settings.maxBodyBytes)) curi.annotations.push('media-limit:resource');
    if (jar && cookieRequest && f.responseHead) jar.keep(cookieRequest, f.headers);
    if (f.error?.code === 'FETCH_SPOOL_FAILED') {
      // The spool is in the crawl directory: a body it could not hold means the crawl's disk
      // refused a write, not that the URI failed. The controller pauses and fetches it again.
      await disposeFetch(f);
      throw new TroveError('FETCH_SPOOL_FAILED', f.error.message);
    }
    if (ctx.hardStop.aborted) {
      // A hard stop cut this fetch short: nothing is archived, and the URI goes back to the queue
      // untouched (no attempt counted), to be fetched in full when the crawl resumes.
      await disposeFetch(f);
      ctx.frontier.defer(uri, Date.now());
      curi.disposition = { kind: 'deferred' };
      return 'finish';
    }
    curi.fetch = f;
    return 'proceed';
  },
};
