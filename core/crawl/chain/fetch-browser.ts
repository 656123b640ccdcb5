/**
 * Fetch in a browser tab (browser mode, for seeds and pages: choose-fetcher.ts). The page is
 * loaded in Chromium, its behaviors run (network quiet, scroll, media, details, load more), and
 * every exchange it makes is written by the crawl's record sink as it arrives. Then:
 *
 * - the page's document is the URI's response (its index rows are committed by the disposition
 *   with the frontier outcome, titled and listed as a page like an HTTP page);
 * - links from the live DOM (after script) are queued as L hops; what the page loaded but that
 *   was not captured (an exchange the browser would not hand out, a request held back until its
 *   host's robots.txt is known, one robots.txt forbids) as E hops, fetched by HTTP behind the
 *   robots prerequisite (or ended there as precluded). What the browser captured is not queued
 *   again;
 * - robots.txt is asked before the browser sends a request (the recorder's request gate, see
 *   browser-record-sink.ts): a forbidden URL is never sent;
 * - the page's text after script is its search text (in the index, not a WARC record: the
 *   crawl's HTTP pages keep theirs the same way), and its screenshot is a `resource` record
 *   `urn:view:<url>` (page-resource-records.ts, Browsertrix Crawler's name for it),
 *   WARC-Concurrent-To the page's response, written with the metadata record (outlinks);
 * - the whole page (document and resources, start to end) counts against its host's politeness:
 *   the delay follows its duration and bytes, as for one HTTP fetch.
 *
 * A navigation that redirects to a URL the tab may not request (its host's robots.txt not known
 * yet, or forbidding it) ends with the redirect the tab captured as the URI's response and its
 * target queued as an R hop, behind the robots prerequisite (`browser-redirect-refused`).
 *
 * A page the browser cannot load (connection refused, DNS, a download rather than a document, a
 * capture over --fetch-timeout-s) is fetched by HTTP instead, so it ends with the same outcome
 * codes and retries as any URI.
 */
import { capturePage, type PageCapture } from '../../browser/capture-page.ts';
import { screenshotRecord } from '../../browser/page-resource-records.ts';
import type { BrowserTab, TabPool } from '../../browser/tab-pool.ts';
import { primeTab } from '../../browser/profile-tab-source.ts';
import type { BehaviorOptions } from '../../browser/page-behaviors.ts';
import { mayBePage } from '../../frontier/page-hops.ts';
import type { Outlink } from '../../extract/outlink.ts';
import { metadataRecord } from '../capture-records.ts';
import { headMediaType as mimeOf } from '../../formats/media-type.ts';
import { fieldValue as headerValue } from '../../formats/http-fields.ts';
import type { CrawlContext } from '../crawl-context.ts';
import type { RecordRow } from '../../archive/capture-index.ts';
import { indexRow } from '../../archive/index-row.ts';
import { headOfWrittenFields } from '../../warc/read-record.ts';
import type { CrawlUri, ProcessResult, Processor } from './crawl-uri.ts';
import { BrowserRecordSink } from './browser-record-sink.ts';
import { fetchHttp } from './fetch-http.ts';
import { disposeFetch } from './dispose-fetch.ts';
import { logMediaReport } from './media-limits-log.ts';
import { loggedOut } from './check-logged-in.ts';
import { readTabState } from '../../browser/tab-state.ts';

const HTML = /^(text\/html|application\/xhtml\+xml)$/;

export function fetchBrowser(pool: TabPool, behaviors: BehaviorOptions = {}): Processor {
  // The profile generation each tab was primed with (a tab opened from the profile: 0, absent).
  const primed = new WeakMap<BrowserTab, number>();
  return {
    name: 'fetch-browser',
    reads: { settings: ['crawlDelayCapS', 'dedup', 'delayFactor', 'fetchTimeoutS', 'maxBodyBytes', 'maxDelayMs', 'maxKbpsPerHost', 'maxMediaBytes', 'maxPageMediaBytes', 'mediaRenditions', 'minDelayMs', 'operator', 'overrides', 'perHost', 'redactCredentials', 'robots', 'userAgent'], services: ['addRedirectSeed', 'browserProfile', 'captures', 'cookies', 'crawlLog', 'db', 'fetcher', 'fileIds', 'frontier', 'hardStop', 'loggedIn', 'now', 'paths', 'pendingOriginals', 'prior', 'robots', 'stats', 'tabLogin', 'writer'] },
    async process(ctx, curi): Promise<ProcessResult> {
      const { uri } = curi;
      const tab = await pool.acquire();
      const started = Date.now();
      // With --logged-in-check the page's document waits for the look at the rendered page (loggedOutInTab).
      const sink = new BrowserRecordSink(ctx, uri.hopsPath, { holdDocuments: ctx.loggedIn !== undefined });
      let capture: PageCapture | null = null;
      let failure: unknown = null;
      try {
        // The whole page within --fetch-timeout-s, as one HTTP fetch: a tab that hangs costs one page.
        const signal = AbortSignal.any([ctx.hardStop, AbortSignal.timeout(ctx.settings.fetchTimeoutS * 1000)]);
        // The agent of the page's host (the crawl's, or a per-host override's), as fetch-http sends:
        // the host's settings recheck-scope looked up from the URI's one parse.
        await pool.useAgent(tab, curi.hs.userAgent);
        // The profile was read again (resumed after a logged-out pause): this tab gets its cookies and storage.
        const generation = ctx.tabLogin?.generation() ?? 0;
        if (generation > (primed.get(tab) ?? 0)) {
          await primeTab(tab.session, ctx.tabLogin!.state());
          primed.set(tab, generation);
        }
        capture = await capturePage(tab.session, uri.url, {
          sink,
          signal,
          spoolDir: ctx.paths.tmp,
          behaviors: { screenshot: true, ...behaviors },
          // robots.txt before the request is sent, not after (browser-record-sink.ts).
          allowRequest: sink.requestGate(uri.url),
          // Whole media files and stream renditions, through the crawl's fetcher (media-completer.ts).
          media: { fetcher: ctx.fetcher, renditions: ctx.settings.mediaRenditions, maxResourceBytes: ctx.settings.maxMediaBytes, maxPageBytes: ctx.settings.maxPageMediaBytes, signal: ctx.hardStop },
          // What an earlier page of this tab loaded is archived already (recorded then): the tab's
          // cache answers it, where each page used to fetch and record every stylesheet and
          // script of a site again. A load the cache answers is queued as an E hop like any load
          // not captured here (fetched once by HTTP if the crawl has not seen it).
          reuseCache: true,
          ...(ctx.loggedIn ? { marker: ctx.loggedIn.check.marker } : {}),
        });
        // --save-profile: what the tab holds of the login now (the last reading is saved at the end).
        if (ctx.browserProfile) ctx.browserProfile.observe((await readTabState(tab.session)).state);
      } catch (err) {
        failure = err;
      } finally {
        await pool.release(tab, { broken: failure !== null || ctx.hardStop.aborted });
      }
      if (ctx.hardStop.aborted) {
        // Cut short by a hard stop: what was written is indexed; the page is captured again on resume.
        await sink.discard();
        ctx.frontier.defer(uri, Date.now());
        curi.disposition = { kind: 'deferred' };
        return 'finish';
      }
      if (capture && (await loggedOutInTab(ctx, curi, sink, capture))) return 'finish';
      await sink.writeHeld();
      const doc = sink.documents.find((d) => d.url === uri.url) ?? sink.documents[0];
      const refused = !capture && doc ? refusedRedirect(sink) : null;
      if (refused && doc) {
        // The navigation redirected to a URL the tab was not let request (robots.txt of its host
        // not known yet, or forbidding it): the redirect the tab captured is the URI's response,
        // and its target is queued as an R hop behind the robots prerequisite, as an HTTP fetch
        // would queue it (not fetched twice).
        const stub: PageCapture = { url: uri.url, finalUrl: refused, status: doc.doc.fetch.status ?? 0, title: '', text: '', outlinks: [], embeds: [], requested: [], scripted: [], blocked: [refused], behaviors: { detailsOpened: 0, mediaPlayed: 0, scrolls: 0, clicks: 0, budgetsHit: [] }, problems: [], timings: {} };
        await finishCapture(ctx, curi, sink, stub, doc, Date.now() - started, [{ url: refused, hop: 'R', context: 'browser/redirect' }]);
        curi.annotations.push('browser-redirect-refused');
        return 'proceed';
      }
      if (!capture || !doc) {
        // No document (the browser could not load it, or it was a download): HTTP says why.
        await sink.discard();
        curi.annotations.push(failure ? 'browser-failed' : 'browser-no-document');
        return fetchHttp.process(ctx, curi);
      }
      await finishCapture(ctx, curi, sink, capture, doc, Date.now() - started);
      logMediaReport(ctx, curi, capture.media);
      return 'proceed';
    },
  };
}

/**
 * --logged-in-check on the page as rendered: a page of the login's site without the marker (or
 * a navigation that ended on the login page, or a load of it that met the login's wall: the
 * session ended mid-page) is not archived (its held documents are dropped;
 * what it loaded beside is archived like any load), gets its LOGGED_OUT line and pauses the crawl.
 */
async function loggedOutInTab(ctx: CrawlContext, curi: CrawlUri, sink: BrowserRecordSink, capture: PageCapture): Promise<boolean> {
  const f = sink.heldFetch();
  if (!ctx.loggedIn || !f || capture.markerFound === undefined) return false;
  const load = sink.loggedOutLoad;
  const why = ctx.loggedIn.check.loggedOutRendered(curi.uri.url, capture.finalUrl, capture.markerFound) ?? (load ? `${load.url} (loaded by the page): ${load.why}` : null);
  if (why === null) return false;
  curi.mime = mimeOf(f.headers);
  loggedOut(ctx, curi, f, why);
  await sink.dropHeld();
  return true;
}

/** The target of the navigation's last redirect, when the request gate refused it; else null. */
function refusedRedirect(sink: BrowserRecordSink): string | null {
  const last = sink.documents[sink.documents.length - 1]!;
  const f = last.doc.fetch;
  const status = f.status ?? 0;
  const location = status >= 300 && status < 400 ? headerValue(f.headers, 'location') : null;
  if (!location) return null;
  let target: string;
  try {
    target = new URL(location, last.url).href;
  } catch {
    return null;
  }
  return sink.awaitingRobots.has(target) || sink.robotsPrecluded.has(target) ? target : null;
}

async function finishCapture(
  ctx: CrawlContext,
  curi: CrawlUri,
  sink: BrowserRecordSink,
  capture: PageCapture,
  primary: BrowserRecordSink['documents'][number],
  durationMs: number,
  extraOutlinks: Outlink[] = [],
): Promise<void> {
  const { uri } = curi;
  const f = primary.doc.fetch;
  f.durationMs = durationMs;
  curi.fetch = f;
  curi.captured = true;
  curi.politenessBytes = sink.bytes;
  curi.revisitOf = primary.doc.revisitOf;
  curi.originalClaim = primary.doc.originalClaim;
  primary.doc.originalClaim = null;
  if (primary.doc.annotation) curi.annotations.push(primary.doc.annotation);
  curi.annotations.push(`browser:${sink.exchanges}`);
  if (sink.robotsPrecluded.size > 0) curi.annotations.push(`robots-precluded-embeds:${sink.robotsPrecluded.size}`);
  if (sink.awaitingRobots.size > 0) curi.annotations.push(`robots-prerequisite-embeds:${sink.awaitingRobots.size}`);

  const mime = mimeOf(f.headers);
  curi.isHtml = !!mime && HTML.test(mime);
  curi.htmlPage = curi.isHtml && f.status === 200;
  curi.page = curi.isHtml && f.status === 200 && mayBePage(uri.hopsPath);
  curi.title = capture.title || null;
  curi.text = capture.text;
  curi.rendering = { links: capture.outlinks, scripted: capture.scripted };

  // Links from the live DOM lead on; the page's loads that the browser did not capture are
  // fetched by HTTP (the others are in the archive already).
  const outlinks: Outlink[] = [...extraOutlinks, ...capture.outlinks.map((url): Outlink => ({ url, hop: 'L', context: 'browser/a' }))];
  const documents = new Set(sink.documents.map((d) => d.url));
  // A load held back until its host's robots.txt is known goes the same way (it may not be
  // among the requests the Network domain reported, having never been sent).
  const queued = new Set<string>();
  for (const url of [...capture.embeds, ...sink.awaitingRobots]) {
    if (queued.has(url) || sink.captured.has(url) || documents.has(url) || !/^https?:/i.test(url)) continue;
    queued.add(url);
    outlinks.push({ url, hop: 'E', context: 'browser/load' });
  }
  curi.outlinks = outlinks;
  // A redirected navigation: the browser followed it, so its target is captured, not queued; a
  // seed's target becomes a seed (its links are in scope as the seed's would be).
  if (uri.seed) for (const d of sink.documents) if (d !== primary) ctx.addRedirectSeed(d.url);

  // Index rows of every document of the navigation, the page's own titled and listed as a page.
  const rows: RecordRow[] = [];
  for (const d of sink.documents) rows.push(...sink.documentRows(d, d === primary && curi.htmlPage ? curi.title : null, d === primary && curi.htmlPage));
  // The page as the browser left it: which document it ended on holds the screenshot.
  const last = sink.documents[sink.documents.length - 1]!;
  const pageId = last.doc.responseId;
  if (pageId) {
    const date = new Date(last.doc.fetch.startedAt);
    const records = [metadataRecord(last.url, date, pageId, { via: uri.via, hopsPath: uri.hopsPath, fetchTimeMs: durationMs, outlinks })];
    if (capture.screenshot) records.push(screenshotRecord(last.url, date, capture.screenshot, pageId));
    const written = await ctx.writer.writeGroup(records);
    // Indexed by the one row rule imports, recovery and recordings use (archive/index-row.ts).
    for (const w of written) {
      const record = headOfWrittenFields(w.fields, { offset: w.offset, length: w.length, compressed: w.filename.endsWith('.gz') });
      rows.push(indexRow({ record, fileId: ctx.fileIds.get(w.filename) ?? 0, offset: w.offset, length: w.length, http: null, page: null }));
    }
  }
  curi.rows = rows;
  // The other documents of the navigation were handed over with their rows: let them go.
  for (const d of sink.documents) {
    if (d === primary) continue;
    sink.countLoad(d.url, d.doc.fetch.status ?? 0, d.doc.fetch, d.doc.revisitOf !== null);
    d.doc.originalClaim?.settle(null);
    await disposeFetch(d.doc.fetch);
  }
}
