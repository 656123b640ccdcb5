/**
 * `--capture auto`, for seeds and pages (choose-fetcher.ts): every page is fetched over HTTP
 * first, and goes to a browser tab (fetch-browser.ts) only when the evidence says it needs one:
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
import { needsBrowser, pageTemplate, renderSignals, textLength, type RenderEvidence } from '../page-template.ts';
import type { RenderDecisions } from '../render-decisions.ts';
import type { CrawlContext } from '../crawl-context.ts';
import type { CrawlUri, ProcessResult, Processor } from './crawl-uri.ts';
import { claimedUrl } from './crawl-uri.ts';
import { disposeFetch } from './dispose-fetch.ts';
import { fetchHttp } from './fetch-http.ts';

const HTML = /^(text\/html|application\/xhtml\+xml)$/;

export function fetchAuto(browser: Processor, decisions: RenderDecisions): Processor {
  return {
    name: 'fetch-auto',
    reads: { settings: ['maxExtractBytes', 'maxLinksPerDocument'], services: ['chain', 'extractor', 'frontier', 'hardStop'] },
    async process(ctx, curi): Promise<ProcessResult> {
      if ((await fetchHttp.process(ctx, curi)) === 'finish') return 'finish';
      const f = curi.fetch!;
      const mime = mimeOf(f.headers);
      if (f.status !== 200 || !f.entity || !mime || !HTML.test(mime)) return 'proceed';
      const decoded = await decodeBodyStream(f.entity.stream(), listFieldValue(f.headers, 'content-encoding') ?? undefined, ctx.settings.maxExtractBytes);
      const html = decoded.body.toString('utf8');
      const template = pageTemplate(claimedUrl(curi)?.host ?? '', html);
      const decision = await decisions.claim(template, ctx.hardStop);
      if (ctx.hardStop.aborted) {
        if (decision === 'sample') decisions.settle(template, null);
        await putBack(ctx, curi);
        return 'finish';
      }
      const reason = decision === 'browser' ? 'template' : decision === 'sample' ? 'sample' : (renderSignals(html)[0] ?? null);
      if (!reason) return 'proceed';

      let http: { urls: Set<string>; textLength: number } | null = null;
      try {
        if (decision === 'sample') http = await httpFound(ctx, curi, decoded.body, mime);
        // The browser's capture is the page's: the HTTP response is let go unwritten.
        await disposeFetch(f);
        curi.fetch = undefined;
        const r = await browser.process(ctx, curi);
        if (curi.captured) curi.annotations.push(`rendered:${reason}`);
        if (decision === 'sample') decisions.settle(template, curi.captured && http && curi.rendering ? verdict(ctx, curi, http) : null);
        return r;
      } catch (err) {
        if (decision === 'sample') decisions.settle(template, null);
        throw err;
      }
    },
  };
}

/** Cut by a hard stop after its HTTP fetch: nothing written, the page fetched again on resume. */
async function putBack(ctx: CrawlContext, curi: CrawlUri): Promise<void> {
  if (curi.fetch) await disposeFetch(curi.fetch);
  curi.fetch = undefined;
  ctx.frontier.defer(curi.uri, Date.now());
  curi.disposition = { kind: 'deferred' };
}

/** What HTTP extraction finds in the page's body: its links and embeds (fragments off), and its text length. */
async function httpFound(ctx: CrawlContext, curi: CrawlUri, body: Buffer, mime: string): Promise<{ urls: Set<string>; textLength: number }> {
  const f = curi.fetch!;
  const ex = await ctx.extractor.run({ url: curi.uri.url, status: f.status ?? 200, headers: f.headers, body: Buffer.from(body), mime, maxLinks: ctx.settings.maxLinksPerDocument });
  const urls = new Set<string>([withoutFragment(curi.uri.url)]);
  for (const l of ex.outlinks) urls.add(withoutFragment(l.url));
  return { urls, textLength: textLength(ex.text) };
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
