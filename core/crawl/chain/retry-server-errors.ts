/**
 * A 5xx or 429 response is archived, then tried again later (up to --max-retries, robots.txt
 * excepted); its links are not followed, and nothing is logged until its final attempt.
 */
import type { Processor } from './crawl-uri.ts';
import { retryDelay } from './retry-delay.ts';

export const retryServerErrors: Processor = {
  name: 'retry-server-errors',
  reads: { settings: ['maxRetries', 'retryBackoff', 'retryDelayS'], services: ['now'] },
  shouldProcess: (ctx, curi) =>
    curi.fetch !== undefined && (curi.status >= 500 || curi.status === 429) && !curi.noRetry && curi.uri.attempts < ctx.settings.maxRetries,
  process(ctx, curi) {
    const retryAt = Math.max(curi.queueReadyAt, ctx.now() + retryDelay(ctx, curi.uri.attempts + 1));
    curi.disposition = { kind: 'retry', status: curi.status, retryAt, queueReadyAt: curi.queueReadyAt };
    return 'finish';
  },
};
