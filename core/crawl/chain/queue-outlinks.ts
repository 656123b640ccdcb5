/**
 * The outlinks that lead on become frontier candidates (scoped by the candidate chain), queued
 * with the URI's outcome. Sitemap entries are followed only under --sitemaps; a redirect the
 * fetch followed itself (robots.txt) makes no R candidate; a seed's redirect target becomes a
 * seed too (Heritrix's seedsRedirectNewSeeds).
 */
import { followableOutlinks } from '../sitemap-seeder.ts';
import type { Processor } from './crawl-uri.ts';

export const queueOutlinks: Processor = {
  name: 'queue-outlinks',
  reads: { settings: ['sitemaps'], services: ['addRedirectSeed', 'chain'] },
  shouldProcess: (_ctx, curi) => curi.fetch !== undefined,
  process(ctx, curi) {
    const { uri } = curi;
    const followable = followableOutlinks(ctx.settings, uri.hopsPath, curi.outlinks);
    if (followable.skipped > 0) curi.annotations.push(`sitemap-entries-not-followed:${followable.skipped}`);
    if (curi.redirectFollowed) followable.follow = followable.follow.filter((l) => l.hop !== 'R');
    const seedRedirect = uri.seed && curi.status >= 300 && curi.status < 400;
    curi.candidates = ctx.chain.fromOutlinks(uri, followable.follow, seedRedirect);
    if (seedRedirect) {
      for (const c of curi.candidates) if (c.seed) ctx.addRedirectSeed(c.url);
    }
    return 'proceed';
  },
};
