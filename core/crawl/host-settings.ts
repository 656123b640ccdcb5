/**
 * Per-host and per-domain overrides, as Heritrix's settings sheets: an override for
 * `example.org` applies to that host; a domain override applies to the domain and its
 * subdomains. More specific wins: an exact host beats a domain, a longer domain beats a shorter.
 */
import type { CrawlSettings, HostOverride, RobotsPolicy } from '../api/settings.ts';

export interface HostSettings {
  delayFactor: number;
  minDelayMs: number;
  maxDelayMs: number;
  perHost: number;
  robots: RobotsPolicy;
  userAgent: string;
  maxKbpsPerHost: number;
  crawlDelayCapS: number;
  /** Which overrides applied, least specific first, for the monitor and warcinfo. */
  appliedOverrides: string[];
}

function specificity(o: HostOverride, host: string): number {
  if (o.host) {
    const h = o.host.toLowerCase();
    if (h.startsWith('.')) return host === h.slice(1) || host.endsWith(h) ? h.length : -1;
    return host === h ? 10_000 : -1;
  }
  if (o.domain) {
    const d = o.domain.toLowerCase().replace(/^\./, '');
    return host === d || host.endsWith('.' + d) ? d.length : -1;
  }
  return -1;
}

export function hostSettings(settings: CrawlSettings, host: string): HostSettings {
  const h = host.toLowerCase();
  const matching = settings.overrides
    .map((o) => ({ o, s: specificity(o, h) }))
    .filter((x) => x.s >= 0)
    .sort((a, b) => a.s - b.s);
  const out: HostSettings = {
    delayFactor: settings.delayFactor,
    minDelayMs: settings.minDelayMs,
    maxDelayMs: settings.maxDelayMs,
    perHost: settings.perHost,
    robots: settings.robots,
    userAgent: settings.userAgent,
    maxKbpsPerHost: settings.maxKbpsPerHost,
    crawlDelayCapS: settings.crawlDelayCapS,
    appliedOverrides: [],
  };
  for (const { o } of matching) {
    if (o.delayFactor !== undefined) out.delayFactor = o.delayFactor;
    if (o.minDelayMs !== undefined) out.minDelayMs = o.minDelayMs;
    if (o.maxDelayMs !== undefined) out.maxDelayMs = o.maxDelayMs;
    if (o.perHost !== undefined) out.perHost = o.perHost;
    if (o.robots !== undefined) out.robots = o.robots;
    if (o.userAgent !== undefined) out.userAgent = o.userAgent;
    if (o.maxKbpsPerHost !== undefined) out.maxKbpsPerHost = o.maxKbpsPerHost;
    out.appliedOverrides.push(o.host ? `host=${o.host}` : `domain=${o.domain}`);
  }
  return out;
}
