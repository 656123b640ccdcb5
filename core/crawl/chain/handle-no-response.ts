/**
 * No HTTP response at all: connect-level failures are retried (up to --max-retries), then the URI
 * ends with the failure's code. Repeated connection errors to one host back the whole queue off,
 * not just this URI.
 */
import { Outcome } from '../../api/outcome-codes.ts';
import { queueNote } from '../crawl-context.ts';
import { retryBackoffMs } from '../politeness.ts';
import { finishWith, type Processor } from './crawl-uri.ts';
import { retryDelay } from './retry-delay.ts';

const RETRYABLE_NEGATIVE = new Set<number>([Outcome.CONNECT_FAILED, Outcome.CONNECT_LOST, Outcome.TIMEOUT, Outcome.DOMAIN_UNRESOLVABLE]);

export const handleNoResponse: Processor = {
  name: 'handle-no-response',
  reads: { settings: ['maxRetries', 'retryBackoff', 'retryDelayS'], services: ['hardStop', 'now', 'queueNotes'] },
  shouldProcess: (_ctx, curi) => curi.fetch !== undefined,
  process(ctx, curi) {
    const { uri } = curi;
    const f = curi.fetch!;
    const note = queueNote(ctx, uri.queueKey);
    if (f.responseHead) {
      note.consecutiveErrors = 0;
      return 'proceed';
    }
    const now = ctx.now();
    note.consecutiveErrors++;
    const retryable = RETRYABLE_NEGATIVE.has(f.outcome) && !curi.noRetry && !ctx.hardStop.aborted;
    const hostBackoff = note.consecutiveErrors >= 3 ? retryBackoffMs(note.consecutiveErrors - 2, 5_000, 5 * 60_000) : 0;
    if (hostBackoff) note.backoffs++;
    const queueReadyAt = now + Math.max(curi.hs.minDelayMs, hostBackoff);
    if (retryable && uri.attempts < ctx.settings.maxRetries) {
      curi.disposition = { kind: 'retry', status: f.outcome, retryAt: now + retryDelay(ctx, uri.attempts + 1), queueReadyAt };
      return 'finish';
    }
    return finishWith(curi, f.outcome, curi.annotations, queueReadyAt);
  },
};
