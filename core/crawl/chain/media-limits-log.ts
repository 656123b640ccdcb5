/**
 * The whole-media fetches of a browser page (core/browser/media-completer.ts) in crawl.log: each
 * file cut or skipped at `--max-media-bytes` / `--max-page-media-bytes` gets a line of its own
 * with outcome OVER_SIZE_LIMIT (−51) and `media-limit:resource|page`, as a body cut at
 * `--max-body-bytes` is reported; the page's line counts what was fetched whole. The crawl goes on.
 */
import type { MediaReport } from '../../browser/media-completer.ts';
import { formatCrawlLogLine } from '../crawl-log.ts';
import type { CrawlContext } from '../crawl-context.ts';
import type { CrawlUri } from './crawl-uri.ts';

export function logMediaReport(ctx: CrawlContext, curi: CrawlUri, report: MediaReport | undefined): void {
  if (!report) return;
  if (report.fetched.length > 0) curi.annotations.push(`media-whole:${report.fetched.length}`);
  if (report.limited.length > 0) curi.annotations.push(`media-over-limit:${report.limited.length}`);
  if (report.failed.length > 0) curi.annotations.push(`media-failed:${report.failed.length}`);
  if (report.refused.length > 0) curi.annotations.push(`media-refused:${report.refused.length}`);
  for (const hit of report.limited) {
    ctx.crawlLog.write(
      formatCrawlLogLine({
        time: new Date(),
        status: hit.code,
        size: hit.stored,
        url: hit.url,
        hopsPath: `${curi.uri.hopsPath}E`,
        via: curi.uri.url,
        mime: null,
        slot: curi.slot,
        annotations: [`media-limit:${hit.limit}`, ...(hit.stored > 0 ? ['truncated:length'] : ['not-fetched'])],
      }),
    );
  }
}
