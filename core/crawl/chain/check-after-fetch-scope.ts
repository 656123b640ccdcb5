/**
 * MIME and content-length rules of the crawl config decide once the response is known: a
 * rejected response is not archived (the URI ends out of scope, counted under its rule).
 */
import { decideAfterFetch } from '../../scope/decide-rules.ts';
import { Outcome } from '../../api/outcome-codes.ts';
import { finishWith, type Processor } from './crawl-uri.ts';

export const checkAfterFetchScope: Processor = {
  name: 'check-after-fetch-scope',
  reads: { settings: ['scopeRules'], services: ['chain'] },
  shouldProcess: (ctx, curi) => curi.fetch !== undefined && !curi.captured && ctx.settings.scopeRules.some((r) => r.type === 'mime' || r.type === 'content-length'),
  process(ctx, curi) {
    const { uri } = curi;
    const d = decideAfterFetch(ctx.settings.scopeRules, { mime: curi.mime, contentLength: curi.fetch!.entity?.size ?? null });
    if (d?.decision !== 'REJECT') return 'proceed';
    ctx.chain.reportRejection({ url: uri.url, hopsPath: uri.hopsPath, via: uri.via, rule: d.rule, reason: d.reason });
    return finishWith(curi, Outcome.OUT_OF_SCOPE, [...curi.annotations, `after-fetch:${d.rule}`], Date.now() + curi.hs.minDelayMs);
  },
};
