/**
 * Disposition: a URI's final outcome, whatever it is (a response, a failure, robots, scope, an
 * unexpected error), gets its crawl.log line and is counted in the stats, here and only here.
 * Retries and deferrals log nothing until their final attempt.
 */
import { formatCrawlLogLine } from '../crawl-log.ts';
import { outcomeName } from '../../api/outcome-codes.ts';
import type { Processor } from './crawl-uri.ts';

export const logOutcome: Processor = {
  name: 'log-outcome',
  reads: { settings: [], services: ['crawlLog', 'stats'] },
  shouldProcess: (_ctx, curi) => !curi.logged && curi.disposition?.kind === 'final',
  process(ctx, curi) {
    const { uri } = curi;
    const d = curi.disposition as Extract<typeof curi.disposition, { kind: 'final' }>;
    const f = curi.fetch;
    const time = new Date();
    curi.logged = true;
    ctx.crawlLog.write(
      formatCrawlLogLine({
        time,
        status: d.status,
        size: d.size,
        url: uri.url,
        hopsPath: uri.hopsPath,
        via: uri.via,
        mime: d.mime,
        slot: curi.slot,
        fetchStart: f?.startedAt,
        durationMs: f?.durationMs,
        digest: f?.payloadDigest ?? null,
        annotations: curi.annotations,
      }),
    );
    ctx.stats.recordOutcome({
      time: time.getTime(),
      status: d.status,
      outcome: outcomeName(d.status),
      url: uri.url,
      hopsPath: uri.hopsPath,
      mime: d.mime,
      bytes: d.size,
      durationMs: f?.durationMs ?? 0,
      duplicate: d.duplicate,
      page: d.page,
      rendered: curi.rendering !== undefined,
    });
    return 'proceed';
  },
};
