/**
 * Disposition: the frontier gets the URI's outcome (final or retry, and whether it was a page, which a
 * shared frontier counts crawl-wide against the page limit) together with its outlinks
 * and its capture-index rows, in one database transaction (a unit of the crawl's open group
 * commit, core/storage/group-commit.ts: it commits with other URIs', and a throw leaves none of
 * this URI's writes behind); then the page's search text and the payload claim other fetches may
 * be waiting on (dedup-digest.ts).
 */
import type Database from 'better-sqlite3';
import type { RecordRow } from '../../archive/capture-index.ts';
import type { Candidate, ClaimedUri, Outcome } from '../../frontier/frontier.ts';
import { atomic } from '../../storage/group-commit.ts';
import type { CrawlContext } from '../crawl-context.ts';
import type { CrawlUri, Processor } from './crawl-uri.ts';

type CompleteWithRows = (ctx: CrawlContext, uri: ClaimedUri, outcome: Outcome, candidates: Candidate[], rows: RecordRow[]) => number[];

/**
 * The outcome and the rows in one transaction function, made once per database: better-sqlite3's
 * `db.transaction(fn)` builds four wrappers and defines five properties on each every time it is
 * called, and this one was made for every URI (issue 20).
 */
const completeWithRows = new WeakMap<Database.Database, CompleteWithRows>();

function completeWithRowsOf(db: Database.Database): CompleteWithRows {
  let fn = completeWithRows.get(db);
  if (!fn) {
    fn = atomic(db, (ctx: CrawlContext, uri: ClaimedUri, outcome: Outcome, candidates: Candidate[], rows: RecordRow[]): number[] => {
      ctx.frontier.complete(uri, outcome, candidates);
      return ctx.captures.addRecords(rows);
    });
    completeWithRows.set(db, fn);
  }
  return fn;
}

export const completeUri: Processor = {
  name: 'complete-uri',
  reads: { settings: [], services: ['captures', 'db', 'frontier', 'group', 'pageText', 'rowsInFlight'] },
  shouldProcess: (_ctx, curi) => !curi.completed && curi.disposition !== undefined && curi.disposition.kind !== 'deferred',
  process(ctx, curi) {
    const { uri } = curi;
    const d = curi.disposition as Exclude<CrawlUri['disposition'], { kind: 'deferred' } | undefined>;
    // One literal (one object shape) rather than a spread of the fetched fields: the readers use
    // `?? null` on each, so an absent field and an undefined one read alike.
    const outcome =
      d.kind === 'retry'
        ? { status: d.status, retryAt: d.retryAt, queueReadyAt: d.queueReadyAt }
        : { status: d.status, queueReadyAt: d.queueReadyAt, page: d.page, bytes: d.fetched?.bytes, mime: d.fetched?.mime, digest: d.fetched?.digest };
    const candidates = d.kind === 'final' ? curi.candidates : [];
    ctx.group.unit((): void => {
      if (curi.rows.length === 0 && candidates.length === 0) {
        ctx.frontier.complete(uri, outcome);
        return;
      }
      const ids = completeWithRowsOf(ctx.db)(ctx, uri, outcome, candidates, curi.rows);
      // Search text for the page's row (the first one for an HTTP capture), buffered into the
      // same group as the row: a group full after this unit commits them together.
      if (curi.htmlPage && curi.text && ids.length > 0) ctx.pageText.add(ids[Math.max(0, curi.rows.findIndex((r) => r.page))]!, curi.title ?? '', curi.text);
    });
    releaseRows(ctx, curi);
    curi.completed = true;
    const responseRow = curi.rows.find((r) => r.recordType === 'response' && r.targetUri === uri.url);
    if (curi.originalClaim && responseRow?.recordId && responseRow.date) {
      curi.originalClaim.settle({ recordId: responseRow.recordId, targetUri: uri.url, date: responseRow.date });
      curi.originalClaim = null;
    }
    return 'proceed';
  },
};

/** The URI's rows are in the open group (or dropped by an error): its WARC file may close. */
export function releaseRows(ctx: CrawlContext, curi: CrawlUri): void {
  if (curi.rowsFile === null) return;
  ctx.rowsInFlight.done(curi.rowsFile);
  curi.rowsFile = null;
}
