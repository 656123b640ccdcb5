/**
 * `--capture auto`, for seeds and pages (choose-fetcher.ts): every page is fetched over HTTP
 * first, and goes to a browser tab (fetch-browser.ts) only when the evidence says it needs one.
 * A page whose body shows HTTP has all of it (page-template.ts `servedWhole`: no script, or text
 * with external scripts only, no lazy-load mark, no inline script that loads) goes on over HTTP
 * at once, neither sampled nor waiting, unless its template was decided `browser`: on a static
 * site no page waits for Chromium (the Python docs: 529 of 530 pages). Otherwise:
 *
 * - its template (page-template.ts: host and DOM skeleton of the HTTP body) was decided `browser`
 *   by a rendered sample (`rendered:template`);
 * - its template is not decided yet: this page is the template's sample (`rendered:sample`). What
 *   the browser found is compared with what HTTP extraction found in the same body: in-scope
 *   URLs only the browser reached (live-DOM links, requests its scripts made) or a fifth more
 *   text make the template `browser`, else `http` (render-decisions.ts keeps the verdict, in the
 *   crawl's database, so a resume neither forgets it nor samples again);
 * - the body alone shows a sign (`rendered:app-root`, `rendered:noscript`, `rendered:script-only`).
 *
 * Otherwise the HTTP response goes on through the chain as in an HTTP-only crawl, and its
 * crawl.log line carries no `rendered:` annotation. A rendered page's HTTP response is let go
 * unwritten: the browser's capture of the page is the one archived (its document, its
 * resources, its screenshot), as in `--capture browser`. A page the browser could not load is
 * fetched over HTTP by fetch-browser itself and is not `rendered:`.
 */
import { decodeBodyStream } from '../../extract/decode-body.ts';
import { listFieldValue } from '../../formats/http-fields.ts';
import { headMediaType as mimeOf } from '../../formats/media-type.ts';
import { needsBrowser, pageTemplate, renderSignals, servedWhole, textLength, type RenderEvidence } from '../page-template.ts';
import type { RenderDecisions } from '../render-decisions.ts';
import type { CrawlContext } from '../crawl-context.ts';
import type { CrawlUri, ProcessResult, Processor } from './crawl-uri.ts';
import { claimedUrl } from './crawl-uri.ts';
import { disposeFetch } from './dispose-fetch.ts';
import type { Spool } from '../../fetch/spool.ts';
import { fetchHttp } from './fetch-http.ts';
import { politenessDelay } from '../politeness.ts';
import type { Outlink } from '../../extract/outlink.ts';

const HTML = /^(text\/html|application\/xhtml\+xml)$/;

export function fetchAuto(browser: Processor, decisions: RenderDecisions): Processor {
  return {
    name: 'fetch-auto',
    reads: { settings: ['crawlDelayCapS', 'delayFactor', 'maxDelayMs', 'maxExtractBytes', 'maxKbpsPerHost', 'maxLinksPerDocument', 'minDelayMs'], services: ['chain', 'extractor', 'frontier', 'hardStop'] },
    async process(ctx, curi): Promise<ProcessResult> {
      // Put back after waiting parked (below): rendered now, holding its host's slot.
      const again = decisions.takeRenderWhenClaimed(curi.uri.url);
      if (again) return renderAs(ctx, curi, browser, again);
      if ((await fetchHttp.process(ctx, curi)) === 'finish') return 'finish';
      const f = curi.fetch!;
      const mime = mimeOf(f.headers);
      if (f.status !== 200 || !f.entity || !mime || !HTML.test(mime)) return 'proceed';
      const decoded = await bodyOf(f.entity, listFieldValue(f.headers, 'content-encoding') ?? undefined, ctx.settings.maxExtractBytes);
      const html = decoded.body.toString('utf8');
      const template = pageTemplate(claimedUrl(curi)?.host ?? '', html);
      const signs = renderSignals(html);
      // Served whole by HTTP, by the body's own evidence: no sample, no wait (unless its template was decided `browser`).
      if (signs.length === 0 && decisions.decided(template) === undefined && servedWhole(html)) return 'proceed';
      // Waiting for the template's sample: parked, so that the crawl's next fetches go on.
      const parked = decisions.awaitsSample(template) && park(ctx, curi);
      const decision = await decisions.claim(template, ctx.hardStop);
      if (parked) curi.park!(false);
      if (ctx.hardStop.aborted) {
        if (decision === 'sample') decisions.settle(template, null);
        await putBack(ctx, curi);
        return 'finish';
      }
      const reason = decision === 'browser' ? 'template' : decision === 'sample' ? 'sample' : (signs[0] ?? null);
      if (!reason) return 'proceed';
      if (parked) {
        // Its slot went back while it waited: it renders only once it holds one again (a
        // sample's turn goes to the next page, this one is fetched again like any other).
        if (decision === 'sample') decisions.settle(template, null);
        else decisions.renderWhenClaimed(curi.uri.url, reason);
        await putBack(ctx, curi);
        return 'finish';
      }

      let http: { urls: Set<string>; textLength: number; outlinks: Outlink[] } | null = null;
      try {
        if (decision === 'sample') {
          http = await httpFound(ctx, curi, decoded.body, mime);
          // What HTTP found in the sample leads on at once: the crawl goes on while it renders
          // (the browser's own links are queued with its outcome; one seen already is not again).
          ctx.frontier.schedule(ctx.chain.fromOutlinks(curi.uri, http.outlinks, false));
        }
        // The browser's capture is the page's: the HTTP response is let go unwritten.
        await disposeFetch(f);
        curi.fetch = undefined;
        const r = await renderAs(ctx, curi, browser, reason);
        if (decision === 'sample') decisions.settle(template, curi.captured && http && curi.rendering ? verdict(ctx, curi, http) : null);
        return r;
      } catch (err) {
        if (decision === 'sample') decisions.settle(template, null);
        throw err;
      }
    },
  };
}

/**
 * The page's body as read here (every HTML page of an auto crawl): a body held in memory
 * without a Content-Encoding is read where it lies (a view, not a copy: nothing here keeps or
 * changes it); any other through the decoder.
 */
async function bodyOf(entity: Spool, contentEncoding: string | undefined, maxBytes: number): Promise<{ body: Buffer }> {
  const held = entity.buffers();
  if (held && !contentEncoding) {
    const whole = held.length === 1 ? (held[0] as Buffer) : Buffer.concat(held as Buffer[]);
    return { body: whole.subarray(0, Math.max(0, Math.floor(maxBytes))) };
  }
  return decodeBodyStream(entity.stream(), contentEncoding, maxBytes);
}

/** The page in a browser tab (fetch-browser.ts), its crawl.log line annotated with why. */
async function renderAs(ctx: CrawlContext, curi: CrawlUri, browser: Processor, reason: string): Promise<ProcessResult> {
  const r = await browser.process(ctx, curi);
  if (curi.captured) curi.annotations.push(`rendered:${reason}`);
  return r;
}

/**
 * Park a page that waits for its template's verdict: its fetch is over, so its queue slot goes
 * back (after the politeness delay its fetch earned, as set-politeness would set it) and the
 * crawl's next fetches go on. To be rendered after all, it goes back to the queue first
 * (process above), so that no page renders without its host's slot.
 */
function park(ctx: CrawlContext, curi: CrawlUri): boolean {
  if (!curi.park) return false;
  const f = curi.fetch!;
  const delay = politenessDelay(curi.hs, { fetchDurationMs: f.durationMs, bytes: f.bytesReceived, robotsCrawlDelayS: curi.crawlDelayS });
  ctx.frontier.releaseSlot(curi.uri, Date.now() + delay.delayMs);
  curi.fetchDone?.();
  curi.park(true);
  return true;
}

/** Back to the queue after its HTTP fetch (a hard stop, or to render holding a slot): nothing written, the page claimed again. */
async function putBack(ctx: CrawlContext, curi: CrawlUri): Promise<void> {
  if (curi.fetch) await disposeFetch(curi.fetch);
  curi.fetch = undefined;
  ctx.frontier.defer(curi.uri, Date.now());
  curi.disposition = { kind: 'deferred' };
}

/** What HTTP extraction finds in the page's body: its links and embeds (fragments off), and its text length. */
async function httpFound(ctx: CrawlContext, curi: CrawlUri, body: Buffer, mime: string): Promise<{ urls: Set<string>; textLength: number; outlinks: Outlink[] }> {
  const f = curi.fetch!;
  const ex = await ctx.extractor.run({ url: curi.uri.url, status: f.status ?? 200, headers: f.headers, body: Buffer.from(body), mime, maxLinks: ctx.settings.maxLinksPerDocument });
  const urls = new Set<string>([withoutFragment(curi.uri.url)]);
  for (const l of ex.outlinks) urls.add(withoutFragment(l.url));
  return { urls, textLength: textLength(ex.text), outlinks: ex.outlinks };
}

/** The sample's verdict: in-scope URLs only the browser reached, and the text each side read. */
function verdict(ctx: CrawlContext, curi: CrawlUri, http: { urls: Set<string>; textLength: number }): { decision: 'browser' | 'http'; sample: string; evidence: RenderEvidence } {
  const r = curi.rendering!;
  const more = new Set<string>();
  const parent = { url: curi.uri.url, hopsPath: curi.uri.hopsPath };
  const consider = (url: string, hop: 'L' | 'E'): void => {
    const u = withoutFragment(url);
    if (!http.urls.has(u) && !more.has(u) && ctx.chain.wouldAccept(parent, { url: u, hop, context: 'browser/evidence' })) more.add(u);
  };
  for (const u of r.links) consider(u, 'L');
  for (const u of r.scripted) consider(u, 'E');
  const evidence: RenderEvidence = { moreUrls: [...more].slice(0, 20), httpTextLength: http.textLength, browserTextLength: textLength(curi.text) };
  return { decision: needsBrowser({ ...evidence, moreUrls: [...more] }) ? 'browser' : 'http', sample: curi.uri.url, evidence };
}

function withoutFragment(url: string): string {
  try {
    const u = new URL(url);
    u.hash = '';
    return u.href;
  } catch {
    return url.split('#')[0]!;
  }
}
