/**
 * Sitemaps as a source of URIs (`--sitemaps`), as Heritrix's ExtractorRobotsTxt + ExtractorSitemap:
 *
 * - the `Sitemap:` lines of an origin's robots.txt become outlinks of robots.txt with hop M, so
 *   a sitemap's hops path reads e.g. `PM` (prerequisite of the seed, then sitemap);
 * - a fetched `<urlset>` / `<sitemapindex>` yields its `<loc>` entries with hop M (the extractor
 *   reads them; this module decides whether they are followed).
 *
 * Sitemap entries go through the scope rules like any other link (M counts as a link hop), so a
 * sitemap listing a whole site does not widen a `prefix` crawl.
 *
 * Without `--sitemaps`, robots.txt `Sitemap:` lines are ignored and sitemap entries found in a
 * sitemap the crawl merely stumbled on (linked from a page) are recorded in its metadata record
 * but not followed. A sitemap given as a seed is the exception: the operator asked for exactly
 * that file, so its entries — and those of its child sitemaps (hops path all M) — are followed.
 */
import type { CrawlSettings } from '../api/settings.ts';
import type { Outlink } from '../extract/outlink.ts';
import { looksLikeSitemapUrl } from '../extract/sitemap.ts';
import type { RobotsState } from '../robots/robots-state.ts';

/** Bodies that may hold a gzip-compressed sitemap (`sitemap.xml.gz` is rarely served as XML). */
const MAYBE_GZIP_SITEMAP = new Set(['application/gzip', 'application/x-gzip', 'application/gzip-compressed', 'application/x-gunzip', 'application/octet-stream', 'binary/octet-stream']);

/** The `Sitemap:` lines of a parsed robots.txt as hop-M outlinks (none unless `--sitemaps`). */
export function robotsSitemapOutlinks(settings: Pick<CrawlSettings, 'sitemaps'>, state: RobotsState, robotsUrl: string): Outlink[] {
  if (!settings.sitemaps || state.kind !== 'rules') return [];
  const out: Outlink[] = [];
  const seen = new Set<string>();
  for (const raw of state.robots.sitemaps) {
    // RFC 9309 says absolute; a relative one is resolved against robots.txt rather than dropped.
    const url = URL.parse(raw.trim(), robotsUrl);
    if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) continue;
    url.hash = '';
    if (seen.has(url.href)) continue;
    seen.add(url.href);
    out.push({ url: url.href, hop: 'M', context: 'robots/Sitemap' });
  }
  return out;
}

/** Whether the M outlinks of the URI with this hops path are followed. */
export function followsSitemapEntries(settings: Pick<CrawlSettings, 'sitemaps'>, hopsPath: string): boolean {
  return settings.sitemaps || /^M*$/.test(hopsPath);
}

/** The outlinks to turn into candidates: sitemap entries only when `followsSitemapEntries`. */
export function followableOutlinks(settings: Pick<CrawlSettings, 'sitemaps'>, hopsPath: string, outlinks: Outlink[]): { follow: Outlink[]; skipped: number } {
  if (followsSitemapEntries(settings, hopsPath)) return { follow: outlinks, skipped: 0 };
  const follow = outlinks.filter((l) => l.hop !== 'M');
  return { follow, skipped: outlinks.length - follow.length };
}

/**
 * Whether a body of this MIME type should be handed to the extractor as a possible sitemap: a
 * gzip or octet-stream body reached by a sitemap hop or at a sitemap-looking URL. (XML types are
 * always extracted; the extractor sniffs the root element before treating anything as a sitemap.)
 */
export function mayBeSitemapBody(url: string, hopsPath: string, mime: string | null): boolean {
  if (mime === null || !MAYBE_GZIP_SITEMAP.has(mime)) return false;
  return hopsPath.endsWith('M') || looksLikeSitemapUrl(url);
}
