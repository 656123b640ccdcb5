/**
 * Write, second half: the metadata record (via, hops, fetch time, every outlink; none for a
 * revisit of its own URL) joins the precompressed response and request records, the group is
 * written, and its capture-index rows are made (committed by the disposition with the frontier
 * outcome, in one transaction).
 *
 * The index lists every HTML 200 response as a page (as an import of the WARC would), and every
 * revisit of one (a 304 or an unchanged 200 of a recrawl); the crawl
 * counts, against its page limit, only those reached as pages (page-hops.ts): an HTML iframe is
 * part of the page that holds it.
 */
import { mayBePage } from '../../frontier/page-hops.ts';
import { captureRows } from '../capture-rows.ts';
import { metadataRecord, revisitsOwnUrl } from '../capture-records.ts';
import type { ProcessResult, Processor } from './crawl-uri.ts';

export const writeRecords: Processor = {
  name: 'write-records',
  reads: { settings: [], services: ['fileIds', 'rowsInFlight', 'writer'] },
  shouldProcess: (_ctx, curi) => curi.fetch !== undefined && curi.head !== undefined,
  async process(ctx, curi): Promise<ProcessResult> {
    const { uri } = curi;
    const f = curi.fetch!;
    const head = curi.head!;
    const date = new Date(f.startedAt);
    // A revisit of its own URL has no metadata record: its links are those of the record it revisits (capture-records.ts).
    const meta = head.responseId && !revisitsOwnUrl(uri.url, curi.revisitOf)
      ? [metadataRecord(uri.url, date, head.responseId, { via: uri.via, hopsPath: uri.hopsPath, fetchTimeMs: f.durationMs, outlinks: curi.outlinks })]
      : [];
    const written = await ctx.writer.writeGroup([...(await curi.precompressed!), ...meta]);
    // Until complete-uri adds the rows, the file waits for them before it may close.
    curi.rowsFile = written[0]?.filename ?? null;
    if (curi.rowsFile) ctx.rowsInFlight.add(curi.rowsFile);
    // A 304 archived as a revisit is the page it stands for (a recrawl's pages are mostly these).
    curi.htmlPage = curi.isHtml && (curi.status === 200 || (curi.status === 304 && curi.revisitOf !== null));
    curi.page = curi.htmlPage && mayBePage(uri.hopsPath);
    curi.rows = captureRows(ctx, uri.url, date, f, written, curi.htmlPage ? curi.title : null, curi.revisitOf, curi.htmlPage);
    return 'proceed';
  },
};
