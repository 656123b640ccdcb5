/**
 * Deduplication by payload digest (revisit records), as Heritrix and Browsertrix do: a payload
 * this crawl already holds (or is writing), or an earlier crawl holds (--dedup-from), is stored
 * as a revisit of it. The first response with a payload claims it, so duplicates fetched while
 * it is being written wait for it rather than storing it twice. `revisitFor` is the decision,
 * shared by the HTTP chain and the browser's exchanges (browser-record-sink.ts).
 */
import type { FetchResult } from '../../fetch/fetcher.ts';
import { REVISIT_PROFILE_IDENTICAL, type RevisitOf } from '../capture-records.ts';
import type { OriginalClaim } from '../pending-originals.ts';
import type { CrawlContext } from '../crawl-context.ts';
import type { ProcessResult, Processor } from './crawl-uri.ts';

export interface RevisitDecision {
  revisitOf: RevisitOf | null;
  annotation: string | null;
  /** This response is the first with its payload: settle it once indexed (or with null if not). */
  originalClaim: Extract<OriginalClaim, { kind: 'original' }> | null;
}

/**
 * Whether a response can be a revisit or an original at all (a whole 2xx with a payload). Not a
 * 206: it holds a part of a resource (a browser's Range request of a video), so a whole 200 of the
 * same bytes must not be written as a revisit of it (replay and other tools would serve the part's
 * record for the whole), nor a part as a revisit of the whole.
 */
export function dedupApplies(ctx: CrawlContext, f: FetchResult, status: number): boolean {
  return ctx.settings.dedup !== 'off' && !!f.payloadDigest && status >= 200 && status < 300 && status !== 206 && (f.entity?.size ?? 0) > 0 && !f.truncated;
}

export async function revisitFor(ctx: CrawlContext, url: string, digest: string): Promise<RevisitDecision> {
  const claim = await ctx.pendingOriginals.claim(ctx.captures, digest);
  if (claim.kind === 'duplicate' && (ctx.settings.dedup === 'digest' || claim.original.targetUri === url)) {
    const original = claim.original;
    return {
      revisitOf: { recordId: original.recordId, targetUri: original.targetUri, date: original.date, profile: REVISIT_PROFILE_IDENTICAL },
      annotation: 'duplicate:digest',
      originalClaim: null,
    };
  }
  const originalClaim = claim.kind === 'original' ? claim : null;
  const p = ctx.prior?.byDigest(digest, ctx.settings.dedup === 'url' ? url : undefined);
  if (p) {
    originalClaim?.settle(null);
    return {
      revisitOf: { recordId: p.recordId, targetUri: p.url, date: p.date, profile: REVISIT_PROFILE_IDENTICAL },
      annotation: 'duplicate:digest:earlier-crawl',
      originalClaim: null,
    };
  }
  return { revisitOf: null, annotation: null, originalClaim };
}

export const dedupDigest: Processor = {
  name: 'dedup-digest',
  reads: { settings: ['dedup'], services: ['captures', 'pendingOriginals', 'prior'] },
  shouldProcess: (ctx, curi) => !!curi.fetch && !curi.captured && dedupApplies(ctx, curi.fetch, curi.status),
  async process(ctx, curi): Promise<ProcessResult> {
    const d = await revisitFor(ctx, curi.uri.url, curi.fetch!.payloadDigest!);
    curi.revisitOf = d.revisitOf;
    curi.originalClaim = d.originalClaim;
    if (d.annotation) curi.annotations.push(d.annotation);
    return 'proceed';
  },
};
