/**
 * Precondition: the URI is still one to fetch. Its URL must parse, and an exclusion added to
 * the running crawl after it was queued still applies (as Heritrix's Preselector rechecks
 * scope); seeds and robots.txt prerequisites are exempt. Also sets the host's settings.
 */
import { Outcome } from '../../api/outcome-codes.ts';
import { hostSettings } from '../host-settings.ts';
import { queueNote } from '../crawl-context.ts';
import type { CrawlContext } from '../crawl-context.ts';
import { claimedUrl, finishWith, type CrawlUri, type Processor } from './crawl-uri.ts';
import { isRobotsUri } from './is-robots-uri.ts';

export const recheckScope: Processor = {
  name: 'recheck-scope',
  reads: { settings: ['crawlDelayCapS', 'delayFactor', 'maxDelayMs', 'maxKbpsPerHost', 'minDelayMs', 'overrides', 'perHost', 'queuePolicy', 'robots', 'userAgent'], services: ['excluded', 'frontier', 'queueNotes'] },
  process(ctx, curi) {
    const { uri } = curi;
    const parsed = claimedUrl(curi);
    if (parsed === null) return finishWith(curi, Outcome.UNFETCHABLE_URI, ['bad-url']);
    curi.host = parsed.hostname;
    if (!uri.seed && !isRobotsUri(uri)) {
      const pattern = ctx.excluded?.(uri.url) ?? null;
      if (pattern !== null) return finishWith(curi, Outcome.OUT_OF_SCOPE, ['exclude-regex']);
    }
    curi.hs = hostSettings(ctx.settings, curi.host);
    applyQueueLimit(ctx, curi);
    return 'proceed';
  },
};

/** Per-host --per-host overrides: the queue's in-flight limit, set once per run. */
function applyQueueLimit(ctx: CrawlContext, curi: CrawlUri): void {
  if (ctx.settings.queuePolicy !== 'host') return;
  const note = queueNote(ctx, curi.uri.queueKey);
  if (note.maxInFlight === curi.hs.perHost) return;
  note.maxInFlight = curi.hs.perHost;
  ctx.frontier.setQueueLimit(curi.uri.queueKey, curi.hs.perHost);
}
