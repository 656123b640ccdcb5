/**
 * Heritrix's politeness formula and the per-host settings lookup, as pure functions: the clock
 * is just numbers passed in.
 */
import { describe, expect, it } from 'vitest';
import { parseRetryAfter, politenessDelay, retryBackoffMs, type PolitenessParams } from '../../core/crawl/politeness.ts';
import { hostSettings } from '../../core/crawl/host-settings.ts';
import { defaultSettings, POLITENESS_PRESETS } from '../../core/api/settings.ts';

const HERITRIX: PolitenessParams = { ...POLITENESS_PRESETS.polite, crawlDelayCapS: 300, maxKbpsPerHost: 0 };

describe('politenessDelay (Heritrix defaults: factor 5, min 3000, max 30000)', () => {
  it('clamps delayFactor × fetch time between min and max', () => {
    expect(politenessDelay(HERITRIX, { fetchDurationMs: 100, bytes: 0 })).toEqual({ delayMs: 3000, reason: 'formula' });
    expect(politenessDelay(HERITRIX, { fetchDurationMs: 1000, bytes: 0 })).toEqual({ delayMs: 5000, reason: 'formula' });
    expect(politenessDelay(HERITRIX, { fetchDurationMs: 5999, bytes: 0 })).toEqual({ delayMs: 29995, reason: 'formula' });
    expect(politenessDelay(HERITRIX, { fetchDurationMs: 10_000, bytes: 0 })).toEqual({ delayMs: 30000, reason: 'formula' });
  });

  it('rounds to whole ms and never goes negative', () => {
    expect(politenessDelay({ ...HERITRIX, delayFactor: 3, minDelayMs: 0 }, { fetchDurationMs: 33.3, bytes: 0 }).delayMs).toBe(100);
    expect(politenessDelay({ delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, crawlDelayCapS: 300, maxKbpsPerHost: 0 }, { fetchDurationMs: 50, bytes: 0 }).delayMs).toBe(0);
  });

  it('lets min win when it is above max (a misconfigured sheet still waits at least min)', () => {
    expect(politenessDelay({ ...HERITRIX, minDelayMs: 5000, maxDelayMs: 1000 }, { fetchDurationMs: 10_000, bytes: 0 }).delayMs).toBe(5000);
  });

  it('raises the wait to robots Crawl-delay, capped at crawlDelayCapS', () => {
    expect(politenessDelay(HERITRIX, { fetchDurationMs: 100, bytes: 0, robotsCrawlDelayS: 10 })).toEqual({ delayMs: 10_000, reason: 'crawl-delay' });
    expect(politenessDelay(HERITRIX, { fetchDurationMs: 100, bytes: 0, robotsCrawlDelayS: 2 })).toEqual({ delayMs: 3000, reason: 'formula' });
    expect(politenessDelay(HERITRIX, { fetchDurationMs: 100, bytes: 0, robotsCrawlDelayS: 600 })).toEqual({ delayMs: 300_000, reason: 'crawl-delay' });
    expect(politenessDelay({ ...HERITRIX, crawlDelayCapS: 1 }, { fetchDurationMs: 100, bytes: 0, robotsCrawlDelayS: 10 }).delayMs).toBe(3000);
    expect(politenessDelay({ ...HERITRIX, minDelayMs: 0, crawlDelayCapS: 1 }, { fetchDurationMs: 100, bytes: 0, robotsCrawlDelayS: 10 })).toEqual({ delayMs: 1000, reason: 'crawl-delay' });
    expect(politenessDelay(HERITRIX, { fetchDurationMs: 100, bytes: 0, robotsCrawlDelayS: 0.5 }).delayMs).toBe(3000);
    expect(politenessDelay({ ...HERITRIX, minDelayMs: 0 }, { fetchDurationMs: 10, bytes: 0, robotsCrawlDelayS: 0.5 }).delayMs).toBe(500);
  });

  it('waits until the bytes fit the per-host bandwidth cap, counting the time the fetch took', () => {
    const capped = { ...HERITRIX, maxKbpsPerHost: 100 };
    // 500 KiB at 100 KiB/s = 5000 ms, 1000 ms of which the fetch itself took.
    expect(politenessDelay(capped, { fetchDurationMs: 1000, bytes: 500 * 1024 })).toEqual({ delayMs: 5000, reason: 'formula' });
    expect(politenessDelay({ ...capped, delayFactor: 1 }, { fetchDurationMs: 1000, bytes: 500 * 1024 })).toEqual({ delayMs: 4000, reason: 'bandwidth' });
    expect(politenessDelay({ ...capped, minDelayMs: 0, delayFactor: 0 }, { fetchDurationMs: 50, bytes: 20 * 1024 })).toEqual({ delayMs: 150, reason: 'bandwidth' });
    // No bytes, or a cap of 0: the cap does nothing.
    expect(politenessDelay({ ...capped, minDelayMs: 0, delayFactor: 0 }, { fetchDurationMs: 50, bytes: 0 }).delayMs).toBe(0);
    expect(politenessDelay({ ...HERITRIX, minDelayMs: 0, delayFactor: 0 }, { fetchDurationMs: 50, bytes: 1e9 }).delayMs).toBe(0);
  });

  it('honours Retry-After above everything else', () => {
    expect(politenessDelay(HERITRIX, { fetchDurationMs: 100, bytes: 0, retryAfterMs: 60_000, robotsCrawlDelayS: 10 })).toEqual({ delayMs: 60_000, reason: 'retry-after' });
    expect(politenessDelay(HERITRIX, { fetchDurationMs: 100, bytes: 0, retryAfterMs: 1000 })).toEqual({ delayMs: 3000, reason: 'formula' });
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2015-10-21T07:27:55Z');
  it('reads delta-seconds and HTTP-dates relative to the given clock', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 1 ', now)).toBe(1000);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:00:00 GMT', now)).toBe(0);
  });
  it('returns null for nothing or nonsense', () => {
    expect(parseRetryAfter(null, now)).toBeNull();
    expect(parseRetryAfter('', now)).toBeNull();
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter('-5', now)).toBeNull();
    expect(parseRetryAfter('1.5', now)).toBeNull();
  });
});

describe('retryBackoffMs', () => {
  it('doubles per attempt from the base, up to the cap', () => {
    expect([1, 2, 3, 4].map((a) => retryBackoffMs(a))).toEqual([10_000, 20_000, 40_000, 80_000]);
    expect(retryBackoffMs(30)).toBe(15 * 60_000);
    expect([1, 2, 3].map((a) => retryBackoffMs(a, 5000, 12_000))).toEqual([5000, 10_000, 12_000]);
    expect(retryBackoffMs(0, 5000)).toBe(5000);
  });
});

describe('hostSettings: per-host and per-domain overrides, more specific wins', () => {
  const base = { ...defaultSettings(), minDelayMs: 3000, perHost: 1 };
  it('leaves other hosts alone', () => {
    const s = hostSettings({ ...base, overrides: [{ host: 'example.org', minDelayMs: 500 }] }, 'other.org');
    expect(s.minDelayMs).toBe(3000);
    expect(s.appliedOverrides).toEqual([]);
  });
  it('an exact host beats a domain, whatever the order they are given in', () => {
    const overrides = [
      { host: 'www.example.org', minDelayMs: 200 },
      { domain: 'example.org', minDelayMs: 900, perHost: 2 },
    ];
    const s = hostSettings({ ...base, overrides }, 'WWW.example.org');
    expect(s.minDelayMs).toBe(200);
    expect(s.perHost).toBe(2); // from the domain: the host override does not set it
    expect(s.appliedOverrides).toEqual(['domain=example.org', 'host=www.example.org']);
    expect(hostSettings({ ...base, overrides }, 'img.example.org').minDelayMs).toBe(900);
    expect(hostSettings({ ...base, overrides }, 'example.org').minDelayMs).toBe(900);
    expect(hostSettings({ ...base, overrides }, 'notexample.org').minDelayMs).toBe(3000);
  });
  it('a longer domain beats a shorter one; a leading-dot host covers subdomains', () => {
    const overrides = [
      { domain: 'a.example.org', minDelayMs: 100 },
      { domain: 'example.org', minDelayMs: 900 },
      { host: '.b.example.org', minDelayMs: 50 },
    ];
    expect(hostSettings({ ...base, overrides }, 'x.a.example.org').minDelayMs).toBe(100);
    expect(hostSettings({ ...base, overrides }, 'c.example.org').minDelayMs).toBe(900);
    expect(hostSettings({ ...base, overrides }, 'x.b.example.org').minDelayMs).toBe(50);
  });
});
