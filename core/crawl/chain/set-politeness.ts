/**
 * Politeness: Heritrix's formula, raised to Crawl-delay, bandwidth and Retry-After; 429 and 503
 * back the host off even without Retry-After (Browsertrix does the same). Then the fetch is over:
 * the queue slot is given back, so the queue may start its next fetch (after the delay) while
 * this response is extracted, written and indexed.
 */
import { fieldValue as headerValue } from '../../formats/http-fields.ts';
import { queueNote } from '../crawl-context.ts';
import { parseRetryAfter, politenessDelay, retryBackoffMs } from '../politeness.ts';
import type { Processor } from './crawl-uri.ts';

export const setPoliteness: Processor = {
  name: 'set-politeness',
  reads: { settings: [], services: ['frontier', 'queueNotes'] },
  shouldProcess: (_ctx, curi) => curi.fetch !== undefined,
  process(ctx, curi) {
    const f = curi.fetch!;
    const status = curi.status;
    const now = Date.now();
    const note = queueNote(ctx, curi.uri.queueKey);
    const retryAfterMs = status === 429 || status === 503 ? parseRetryAfter(headerValue(f.headers, 'retry-after'), now) : null;
    const delay = politenessDelay(curi.hs, { fetchDurationMs: f.durationMs, bytes: curi.politenessBytes ?? f.bytesReceived, robotsCrawlDelayS: curi.crawlDelayS, retryAfterMs });
    curi.queueReadyAt = now + delay.delayMs;
    note.delayMs = delay.delayMs;
    note.delayReason = delay.reason;
    if (status === 429 || status === 503) {
      const backoff = retryAfterMs ?? retryBackoffMs(++note.backoffs, 5_000, 10 * 60_000);
      curi.queueReadyAt = Math.max(curi.queueReadyAt, now + backoff);
      note.delayReason = retryAfterMs != null ? 'retry-after' : 'backoff';
    }
    ctx.frontier.releaseSlot(curi.uri, curi.queueReadyAt);
    curi.fetchDone?.();
    return 'proceed';
  },
};
