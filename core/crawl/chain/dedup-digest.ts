/**
 * Deduplication by payload digest (revisit records), as Heritrix and Browsertrix do: a payload
 * this crawl already holds (or is writing), or an earlier crawl holds (--dedup-from), is stored
 * as a revisit of it. The first response with a payload claims it, so duplicates fetched while
 * it is being written wait for it rather than storing it twice.
 */
import { REVISIT_PROFILE_IDENTICAL } from '../capture-records.ts';
import type { ProcessResult, Processor } from './crawl-uri.ts';

export const dedupDigest: Processor = {
  name: 'dedup-digest',
  shouldProcess: (ctx, curi) => {
    const f = curi.fetch;
    return !!f && ctx.settings.dedup !== 'off' && !!f.payloadDigest && curi.status >= 200 && curi.status < 300 && (f.entity?.size ?? 0) > 0 && !f.truncated;
  },
  async process(ctx, curi): Promise<ProcessResult> {
    const digest = curi.fetch!.payloadDigest!;
    const url = curi.uri.url;
    const claim = await ctx.pendingOriginals.claim(ctx.captures, digest);
    if (claim.kind === 'duplicate' && (ctx.settings.dedup === 'digest' || claim.original.targetUri === url)) {
      const original = claim.original;
      curi.revisitOf = { recordId: original.recordId, targetUri: original.targetUri, date: original.date, profile: REVISIT_PROFILE_IDENTICAL };
      curi.annotations.push('duplicate:digest');
      return 'proceed';
    }
    if (claim.kind === 'original') curi.originalClaim = claim;
    const p = ctx.prior?.byDigest(digest, ctx.settings.dedup === 'url' ? url : undefined);
    if (p) {
      curi.revisitOf = { recordId: p.recordId, targetUri: p.url, date: p.date, profile: REVISIT_PROFILE_IDENTICAL };
      curi.annotations.push('duplicate:digest:earlier-crawl');
      curi.originalClaim?.settle(null);
      curi.originalClaim = null;
    }
    return 'proceed';
  },
};
