/**
 * Heritrix's politeness formula, applied to a queue after each fetch:
 *
 *   wait = clamp(delayFactor × fetchDurationMs, minDelayMs, maxDelayMs)
 *   wait = max(wait, min(robotsCrawlDelayS, crawlDelayCapS) × 1000)      when robots.txt sets one
 *   wait = max(wait, time the host's bandwidth budget needs)               when maxKbpsPerHost > 0
 *   wait = max(wait, Retry-After)                                          on 429 / 503
 *
 * Pure: the crawl loop passes the clock in, so tests use a fake one.
 */

export interface PolitenessParams {
  delayFactor: number;
  minDelayMs: number;
  maxDelayMs: number;
  crawlDelayCapS: number;
  maxKbpsPerHost: number;
}

export interface PolitenessInput {
  fetchDurationMs: number;
  /** Bytes received in this fetch (for bandwidth shaping). */
  bytes: number;
  /** Crawl-delay (seconds) robots.txt gives our agent, if any. */
  robotsCrawlDelayS?: number | null;
  /** Parsed Retry-After, in ms from now, when the server sent one with 429/503. */
  retryAfterMs?: number | null;
}

export interface PolitenessDelay {
  delayMs: number;
  /** Which term decided the delay, for the per-host table in the monitor. */
  reason: 'formula' | 'crawl-delay' | 'bandwidth' | 'retry-after';
}

export function politenessDelay(p: PolitenessParams, input: PolitenessInput): PolitenessDelay {
  const formula = Math.min(Math.max(p.delayFactor * input.fetchDurationMs, p.minDelayMs), Math.max(p.maxDelayMs, p.minDelayMs));
  let delayMs = formula;
  let reason: PolitenessDelay['reason'] = 'formula';
  if (input.robotsCrawlDelayS != null && input.robotsCrawlDelayS > 0) {
    const cd = Math.min(input.robotsCrawlDelayS, p.crawlDelayCapS) * 1000;
    if (cd > delayMs) {
      delayMs = cd;
      reason = 'crawl-delay';
    }
  }
  if (p.maxKbpsPerHost > 0 && input.bytes > 0) {
    // The time this many bytes should take at the cap, minus the time they did take.
    const budgetMs = (input.bytes / 1024 / p.maxKbpsPerHost) * 1000 - input.fetchDurationMs;
    if (budgetMs > delayMs) {
      delayMs = budgetMs;
      reason = 'bandwidth';
    }
  }
  if (input.retryAfterMs != null && input.retryAfterMs > delayMs) {
    delayMs = input.retryAfterMs;
    reason = 'retry-after';
  }
  return { delayMs: Math.max(0, Math.round(delayMs)), reason };
}

/** Parse a Retry-After header (delta-seconds or HTTP-date) into ms from `now`; null when absent or bad. */
export function parseRetryAfter(value: string | null | undefined, now: number): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // Only the HTTP-date shapes (all name a month): Date.parse reads "1.5" or "-5" as dates in
  // the past, which would turn a garbled header into "no wait at all".
  if (!/\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\b/i.test(v)) return null;
  const t = Date.parse(v);
  if (Number.isNaN(t)) return null;
  return Math.max(0, t - now);
}

/** Exponential back-off for retries: base × 2^(attempt−1), capped. */
export function retryBackoffMs(attempt: number, baseMs = 10_000, capMs = 15 * 60_000): number {
  return Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
}
