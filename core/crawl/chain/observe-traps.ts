/** Disposition: every fetched URI is shown once, with its text, to the crawler-trap detector. */
import { claimedUrl, type Processor } from './crawl-uri.ts';

export const observeTraps: Processor = {
  name: 'observe-traps',
  reads: { settings: [], services: ['traps'] },
  shouldProcess: (_ctx, curi) => curi.disposition?.kind === 'final' && curi.disposition.fetched !== undefined,
  process(ctx, curi) {
    const { uri } = curi;
    ctx.traps.observe({ url: uri.url, parsed: claimedUrl(curi), via: uri.via, hops: uri.hopsPath.length, text: curi.text, leadsOn: curi.candidates.length > 0 });
    return 'proceed';
  },
};
