/**
 * Precondition: robots.txt. Without a fresh robots.txt for the host the URI goes back behind its
 * prerequisite (scheduled first); a host whose robots.txt cannot be had, or a path it forbids,
 * ends the URI here. robots.txt itself passes.
 */
import { Outcome } from '../../api/outcome-codes.ts';
import { claimedUrl, finishWith, type Processor } from './crawl-uri.ts';
import { isRobotsUri } from './is-robots-uri.ts';

export const checkRobots: Processor = {
  name: 'check-robots',
  reads: { settings: [], services: ['chain', 'frontier', 'robots'] },
  shouldProcess: (_ctx, curi) => !isRobotsUri(curi.uri),
  process(ctx, curi) {
    const { uri, hs } = curi;
    const now = Date.now();
    const gate = ctx.robots.check(uri.url, hs.robots, hs.userAgent, now, claimedUrl(curi) ?? undefined);
    if (gate.kind === 'fetch-robots') {
      ctx.frontier.forceSchedule(ctx.chain.prerequisite(gate.robotsUrl, uri, gate.notBefore));
      // Back behind its prerequisite; the small margin keeps the queue from spinning on it.
      ctx.frontier.defer(uri, Math.max(gate.notBefore, now) + 50);
      curi.disposition = { kind: 'deferred' };
      return 'finish';
    }
    if (gate.kind === 'unavailable') return finishWith(curi, Outcome.PREREQUISITE_UNSCHEDULABLE_FAILURE, ['robots-unavailable']);
    if (gate.kind === 'precluded') return finishWith(curi, Outcome.ROBOTS_PRECLUDED, ['robots:' + gate.verdict.policy]);
    curi.sendAgent = gate.verdict.sendUserAgent;
    curi.crawlDelayS = gate.crawlDelayS;
    return 'proceed';
  },
};
