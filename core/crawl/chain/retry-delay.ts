/** When to try a failed URI again: the configured delay, doubled per attempt unless fixed. */
import type { CrawlContext } from '../crawl-context.ts';
import { retryBackoffMs } from '../politeness.ts';

export function retryDelay(ctx: CrawlContext, attempt: number): number {
  const base = ctx.settings.retryDelayS * 1000;
  return ctx.settings.retryBackoff === 'fixed' ? base : retryBackoffMs(attempt, base, Math.max(base, 15 * 60_000));
}
