/**
 * The fetch chain for one claimed URI (Heritrix's processor chains, flattened):
 *
 *   robots gate → fetch → extract → WARC records (one group) → one database transaction
 *   (frontier outcome + outlinks + capture index rows + page text) → crawl.log line.
 *
 * Every path ends in exactly one of: `complete` with a final outcome, `complete` with a retry
 * time, or `defer` (waiting for robots.txt). Nothing throws out of here; an unexpected error is
 * a −5 outcome for this URI and the crawl goes on.
 */
import type { ClaimedUri, Candidate } from '../frontier/frontier.ts';
import { TroveError } from '../errors.ts';
import type { FetchResult } from '../fetch/fetcher.ts';
import type { Outlink } from '../extract/outlink.ts';
import { decodeBodyStream } from '../extract/decode-body.ts';
import { inferredLinks } from '../extract/inferred-links.ts';
import { extractDocument } from '../extract/extract-document.ts';
import { surtKey } from '../scope/surt.ts';
import { mayBePage } from '../frontier/page-hops.ts';
import { captureRows } from './capture-rows.ts';
import { fieldValue as headerValue } from '../formats/http-fields.ts';
import { headMediaType as mimeOf } from '../formats/media-type.ts';
import { decideAfterFetch } from '../scope/decide-rules.ts';
import { ROBOTS_MAX_REDIRECTS } from '../robots/robots-state.ts';
import { Outcome, outcomeName } from '../api/outcome-codes.ts';
import { buildCaptureGroup, metadataRecord, REVISIT_PROFILE_IDENTICAL, REVISIT_PROFILE_NOT_MODIFIED, type RevisitOf } from './capture-records.ts';
import type { PriorCapture } from './prior-captures.ts';
import type { OriginalClaim } from './pending-originals.ts';
import { formatCrawlLogLine } from './crawl-log.ts';
import type { CrawlContext } from './crawl-context.ts';
import { hostSettings, type HostSettings } from './host-settings.ts';
import { parseRetryAfter, politenessDelay, retryBackoffMs } from './politeness.ts';
import { followableOutlinks, mayBeSitemapBody, robotsSitemapOutlinks } from './sitemap-seeder.ts';

const EXTRACTABLE = /^(text\/html|application\/xhtml\+xml|text\/css|application\/xml|text\/xml)$/;
const RETRYABLE_NEGATIVE = new Set<number>([Outcome.CONNECT_FAILED, Outcome.CONNECT_LOST, Outcome.TIMEOUT, Outcome.DOMAIN_UNRESOLVABLE]);

export interface UriResult {
  /** 'final' = the URI has its one outcome; 'retry' / 'deferred' = it will come back. */
  kind: 'final' | 'retry' | 'deferred';
  status: number;
  bytes: number;
  page: boolean;
}

/** When to try a failed URI again: the configured delay, doubled per attempt unless fixed. */
function retryDelay(ctx: CrawlContext, attempt: number): number {
  const base = ctx.settings.retryDelayS * 1000;
  return ctx.settings.retryBackoff === 'fixed' ? base : retryBackoffMs(attempt, base, Math.max(base, 15 * 60_000));
}

function isRobotsUri(uri: ClaimedUri): boolean {
  return uri.hopsPath.endsWith('P') && uri.viaContext === 'robots';
}

function requestHeaders(ctx: CrawlContext, hs: HostSettings, sendAgent: string | undefined): [string, string][] {
  const h: [string, string][] = [
    ['User-Agent', sendAgent ?? hs.userAgent],
    ['Accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'],
  ];
  const op = ctx.settings.operator.trim();
  // RFC 9110 `From` is a mailbox; Heritrix sends the operator's contact the same way.
  if (/^[^\s@]+@[^\s@]+$/.test(op)) h.push(['From', op]);
  return h;
}

/**
 * `fetchDone` is called once the URI's fetch is over and its queue slot given back
 * (frontier.releaseSlot): from then on the rest of the chain runs beside the next fetches.
 */
export async function processUri(ctx: CrawlContext, uri: ClaimedUri, slot: number, fetchDone?: () => void): Promise<UriResult> {
  let host = '';
  try {
    host = new URL(uri.url).hostname;
  } catch {
    return finish(ctx, uri, slot, { status: Outcome.UNFETCHABLE_URI, annotations: ['bad-url'] });
  }
  // An exclusion added after this URL was queued still applies (seeds and prerequisites excepted).
  if (!uri.seed && !isRobotsUri(uri)) {
    const pattern = ctx.excluded?.(uri.url) ?? null;
    if (pattern !== null) return finish(ctx, uri, slot, { status: Outcome.OUT_OF_SCOPE, annotations: ['exclude-regex'] });
  }
  const hs = hostSettings(ctx.settings, host);
  applyQueueLimit(ctx, uri.queueKey, hs);
  const now = Date.now();
  let sendAgent: string | undefined;
  let crawlDelayS: number | null = null;

  if (!isRobotsUri(uri)) {
    const gate = ctx.robots.check(uri.url, hs.robots, hs.userAgent, now);
    if (gate.kind === 'fetch-robots') {
      ctx.frontier.forceSchedule(ctx.chain.prerequisite(gate.robotsUrl, uri, gate.notBefore));
      // Back behind its prerequisite; the small margin keeps the queue from spinning on it.
      ctx.frontier.defer(uri, Math.max(gate.notBefore, now) + 50);
      return { kind: 'deferred', status: 0, bytes: 0, page: false };
    }
    if (gate.kind === 'unavailable') {
      return finish(ctx, uri, slot, { status: Outcome.PREREQUISITE_UNSCHEDULABLE_FAILURE, annotations: ['robots-unavailable'] });
    }
    if (gate.kind === 'precluded') {
      return finish(ctx, uri, slot, { status: Outcome.ROBOTS_PRECLUDED, annotations: ['robots:' + gate.verdict.policy] });
    }
    sendAgent = gate.verdict.sendUserAgent;
    crawlDelayS = gate.crawlDelayS;
  }

  if (isRobotsUri(uri)) return fetchRobots(ctx, uri, slot, hs, fetchDone);

  // Across crawls: a URL an earlier crawl holds is asked for conditionally.
  let prior: PriorCapture | null = null;
  const conditional: [string, string][] = [];
  if (ctx.prior && ctx.settings.dedup !== 'off') {
    prior = ctx.prior.latest(surtKey(uri.url), uri.url);
    if (prior) conditional.push(...(await ctx.prior.conditionalHeaders(prior)));
  }
  const fetched = await ctx.fetcher.fetch({ url: uri.url, headers: [...requestHeaders(ctx, hs, sendAgent), ...conditional], signal: ctx.hardStop });
  if (fetched.error?.code === 'FETCH_SPOOL_FAILED') {
    // The spool is in the crawl directory: a body it could not hold means the crawl's disk
    // refused a write, not that the URI failed. The controller pauses and fetches it again.
    await disposeFetch(fetched);
    throw new TroveError('FETCH_SPOOL_FAILED', fetched.error.message);
  }
  if (ctx.hardStop.aborted) {
    // A hard stop cut this fetch short: nothing is archived, and the URI goes back to the queue
    // untouched (no attempt counted), to be fetched in full when the crawl resumes.
    await disposeFetch(fetched);
    ctx.frontier.defer(uri, Date.now());
    return { kind: 'deferred', status: 0, bytes: 0, page: false };
  }
  try {
    return await handleFetched(ctx, uri, slot, hs, fetched, crawlDelayS, { prior, fetchDone });
  } finally {
    await disposeFetch(fetched);
  }
}

async function disposeFetch(f: FetchResult): Promise<void> {
  await f.body?.dispose().catch(() => {});
  if (f.entity && f.entity !== f.body) await f.entity.dispose().catch(() => {});
}

/** robots.txt: fetched, archived, followed through up to 5 redirects, then recorded in the gate. */
async function fetchRobots(ctx: CrawlContext, uri: ClaimedUri, slot: number, hs: HostSettings, fetchDone?: () => void): Promise<UriResult> {
  let url = uri.url;
  // The first response is completed last: completing it frees the queue, and nothing of this
  // origin may be claimed (nor robots.txt asked for again, nor a second request be in flight)
  // before the redirect chain has ended and its outcome is recorded in the gate.
  let first: { f: FetchResult; next: string | null; sitemaps: Outlink[] } | null = null;
  try {
    for (let hop = 0; hop <= ROBOTS_MAX_REDIRECTS; hop++) {
      const f = await ctx.fetcher.fetch({ url, headers: requestHeaders(ctx, hs, undefined), signal: ctx.hardStop });
      if (ctx.hardStop.aborted) {
        // Cut short by a hard stop: not a robots.txt failure; fetched again on resume.
        await disposeFetch(f);
        if (hop === 0) {
          ctx.frontier.defer(uri, Date.now());
          return { kind: 'deferred', status: 0, bytes: 0, page: false };
        }
        break;
      }
      let keep = false;
      try {
        const status = f.status ?? f.outcome;
        let body: Buffer | undefined;
        if (f.entity && status >= 200 && status < 300) {
          const decoded = await decodeBodyStream(f.entity.stream(), headerValue(f.headers, 'content-encoding') ?? undefined, 512 * 1024);
          body = decoded.body;
        }
        const location = status >= 300 && status < 400 ? headerValue(f.headers, 'location') : null;
        let next: string | null = null;
        if (location) {
          try {
            next = new URL(location, url).href;
          } catch {
            next = null;
          }
        }
        // --sitemaps: the final robots.txt's Sitemap: lines become its hop-M outlinks.
        let sitemaps: Outlink[] = [];
        if (!next || hop === ROBOTS_MAX_REDIRECTS || f.outcome < 0) {
          const state = ctx.robots.record(uri.url, f.outcome < 0 && !f.status ? { status: 0, error: f.error?.code ?? outcomeName(f.outcome) } : { status, body }, Date.now());
          sitemaps = robotsSitemapOutlinks(ctx.settings, state, url);
        }
        if (hop === 0) {
          first = { f, next, sitemaps };
          keep = true;
        } else {
          await archiveOnly(ctx, url, uri, f, sitemaps);
        }
        if (!next) break;
        url = next;
      } finally {
        if (!keep) await disposeFetch(f);
      }
    }
    const { f, next, sitemaps } = first!;
    return await handleFetched(ctx, uri, slot, hs, f, null, { noRetry: true, extra: next ? [`robots-redirect:${next}`] : [], outlinks: sitemaps, redirectFollowed: true, fetchDone });
  } finally {
    if (first) await disposeFetch(first.f);
  }
}

/** A robots.txt redirect hop: archived and indexed, no frontier entry of its own. */
async function archiveOnly(ctx: CrawlContext, url: string, uri: ClaimedUri, f: FetchResult, outlinks: Outlink[] = []): Promise<void> {
  // Sitemaps named by a redirected robots.txt are its outlinks (via the robots.txt URI).
  if (outlinks.length > 0) ctx.frontier.schedule(ctx.chain.fromOutlinks(uri, outlinks, false));
  if (!f.responseHead) return;
  const date = new Date(f.startedAt);
  const group = buildCaptureGroup({ url, date, fetch: f, revisitOf: null, metadata: { via: uri.url, hopsPath: uri.hopsPath + 'R', fetchTimeMs: f.durationMs, outlinks } });
  const written = await ctx.writer.writeGroup(group.records);
  const rows = captureRows(ctx, url, date, f, written, null, null);
  ctx.db.transaction(() => ctx.captures.addRecords(rows))();
}

interface HandleOptions {
  noRetry?: boolean;
  extra?: string[];
  /** Outlinks found outside the body (robots.txt Sitemap: lines). */
  outlinks?: Outlink[];
  /** The caller follows and archives this response's redirect itself (robots.txt): no R candidate. */
  redirectFollowed?: boolean;
  /** An earlier crawl's capture of this URL (--dedup-from), asked for conditionally. */
  prior?: PriorCapture | null;
  /** Called once the queue slot is given back (see processUri). */
  fetchDone?: () => void;
}

async function handleFetched(
  ctx: CrawlContext,
  uri: ClaimedUri,
  slot: number,
  hs: HostSettings,
  f: FetchResult,
  crawlDelayS: number | null,
  opts: HandleOptions = {},
): Promise<UriResult> {
  const annotations: string[] = [...(opts.extra ?? [])];
  if (uri.attempts > 0) annotations.push(`${uri.attempts + 1}t`);
  // Only an archived record can be truncated: garbage instead of a status line is not kept.
  if (f.truncated && f.responseHead) annotations.push(`truncated:${f.truncated}`);
  if (f.error) annotations.push(f.error.code);
  const status = f.status ?? f.outcome;
  // A response that broke off after its head (timeout, reset, bad chunking) is archived as the
  // truncated prefix it is, but its outcome is the failure (−4, −3, −50), as Heritrix logs it;
  // the HTTP status stays in the record and the index. A body cut at --max-body-bytes is our
  // own limit, not a failure: it keeps the HTTP status (f.outcome is the status then).
  const outcome = f.responseHead ? f.outcome : status;
  const mime = mimeOf(f.headers);
  const queueNote = noteFor(ctx, uri.queueKey);
  const now = Date.now();

  // No HTTP response at all: retry connect-level failures, then give up with the outcome code.
  if (!f.responseHead) {
    queueNote.consecutiveErrors++;
    const retryable = RETRYABLE_NEGATIVE.has(f.outcome) && !opts.noRetry && !ctx.hardStop.aborted;
    // Repeated connection errors to one host back the whole queue off, not just this URI.
    const hostBackoff = queueNote.consecutiveErrors >= 3 ? retryBackoffMs(queueNote.consecutiveErrors - 2, 5_000, 5 * 60_000) : 0;
    if (hostBackoff) queueNote.backoffs++;
    const queueReadyAt = now + Math.max(hs.minDelayMs, hostBackoff);
    if (retryable && uri.attempts < ctx.settings.maxRetries) {
      ctx.frontier.complete(uri, { status: f.outcome, retryAt: now + retryDelay(ctx, uri.attempts + 1), queueReadyAt });
      return { kind: 'retry', status: f.outcome, bytes: 0, page: false };
    }
    return finish(ctx, uri, slot, { status: f.outcome, annotations, queueReadyAt, fetch: f });
  }
  queueNote.consecutiveErrors = 0;

  // MIME and content-length rules of the crawl config decide once the response is known: a
  // rejected response is not archived (the URI ends out of scope, counted under its rule).
  if (ctx.settings.scopeRules.some((r) => r.type === 'mime' || r.type === 'content-length')) {
    const d = decideAfterFetch(ctx.settings.scopeRules, { mime, contentLength: f.entity?.size ?? null });
    if (d?.decision === 'REJECT') {
      ctx.chain.reportRejection({ url: uri.url, hopsPath: uri.hopsPath, via: uri.via, rule: d.rule, reason: d.reason });
      return finish(ctx, uri, slot, { status: Outcome.OUT_OF_SCOPE, annotations: [...annotations, `after-fetch:${d.rule}`], queueReadyAt: now + hs.minDelayMs, fetch: f });
    }
  }

  // Politeness: Heritrix's formula, raised to Crawl-delay, bandwidth and Retry-After.
  const retryAfterMs = status === 429 || status === 503 ? parseRetryAfter(headerValue(f.headers, 'retry-after'), now) : null;
  const delay = politenessDelay(hs, { fetchDurationMs: f.durationMs, bytes: f.bytesReceived, robotsCrawlDelayS: crawlDelayS, retryAfterMs });
  let queueReadyAt = now + delay.delayMs;
  queueNote.delayMs = delay.delayMs;
  queueNote.delayReason = delay.reason;
  if (status === 429 || status === 503) {
    // Back off the host even without Retry-After (Browsertrix does the same).
    const backoff = retryAfterMs ?? retryBackoffMs(++queueNote.backoffs, 5_000, 10 * 60_000);
    queueReadyAt = Math.max(queueReadyAt, now + backoff);
    queueNote.delayReason = retryAfterMs != null ? 'retry-after' : 'backoff';
  }

  // The fetch is over: the queue may start its next one (after the delay) while this response
  // is extracted, written and indexed.
  ctx.frontier.releaseSlot(uri, queueReadyAt);
  opts.fetchDone?.();

  // Extraction (off the crawl loop, in the worker pool), from the content-decoded entity.
  let outlinks: Outlink[] = [];
  let title: string | null = null;
  let text = '';
  let isHtml = false;
  // Deduplication by payload digest (revisit records), as Heritrix and Browsertrix do.
  let revisitOf: RevisitOf | null = null;
  // Set when this response is the first with its payload: settled once it is indexed (or not).
  let originalClaim: Extract<OriginalClaim, { kind: 'original' }> | null = null;
  if (ctx.settings.dedup !== 'off' && f.payloadDigest && status >= 200 && status < 300 && (f.entity?.size ?? 0) > 0 && !f.truncated) {
    const claim = await ctx.pendingOriginals.claim(ctx.captures, f.payloadDigest);
    if (claim.kind === 'duplicate' && (ctx.settings.dedup === 'digest' || claim.original.targetUri === uri.url)) {
      const original = claim.original;
      revisitOf = { recordId: original.recordId, targetUri: original.targetUri, date: original.date, profile: REVISIT_PROFILE_IDENTICAL };
      annotations.push('duplicate:digest');
    } else {
      if (claim.kind === 'original') originalClaim = claim;
      const p = ctx.prior?.byDigest(f.payloadDigest, ctx.settings.dedup === 'url' ? uri.url : undefined);
      if (p) {
        revisitOf = { recordId: p.recordId, targetUri: p.url, date: p.date, profile: REVISIT_PROFILE_IDENTICAL };
        annotations.push('duplicate:digest:earlier-crawl');
        originalClaim?.settle(null);
        originalClaim = null;
      }
    }
  }
  try {
    return await writeAndIndex();
  } finally {
    originalClaim?.settle(null); // not written (an error): a duplicate waiting on it looks again
  }

  async function writeAndIndex(): Promise<UriResult> {
    if (status === 304 && opts.prior) {
      revisitOf = { recordId: opts.prior.recordId, targetUri: opts.prior.url, date: opts.prior.date, profile: REVISIT_PROFILE_NOT_MODIFIED, payloadDigest: opts.prior.digest };
      annotations.push('duplicate:server-not-modified');
    }

    // The response and request records do not depend on the page's links: compress them (on the
    // thread pool) while the links are extracted; the metadata record follows once they are known.
    const date = new Date(f.startedAt);
    const bodyBuffer = !revisitOf && f.body && f.body.path === null ? await f.body.read() : null;
    const head = buildCaptureGroup({ url: uri.url, date, fetch: f, bodyBuffer, revisitOf, metadata: null });
    const precompressed = ctx.writer.precompress(head.records);
    precompressed.catch(() => {}); // its error, if any, surfaces from the await below

    const notModified = status === 304 && opts.prior ? await ctx.prior!.served(opts.prior) : null;
    if (notModified) {
      // 304: nothing new to store, but the page's links still lead on: take them from the
      // earlier capture the server says is unchanged.
      const ex = await ctx.extractor.run({ url: uri.url, status: notModified.status, headers: notModified.headers, body: notModified.body, mime: mimeOf(notModified.headers) ?? '', maxLinks: ctx.settings.maxLinksPerDocument });
      outlinks = ex.outlinks;
      title = ex.title;
      annotations.push('links-from-earlier-capture');
    } else if (status >= 200 && status < 400) {
      let body: Buffer = Buffer.alloc(0);
      if (f.entity && mime && (EXTRACTABLE.test(mime) || mayBeSitemapBody(uri.url, uri.hopsPath, mime))) {
        const decoded = await decodeBodyStream(f.entity.stream(), headerValue(f.headers, 'content-encoding') ?? undefined, ctx.settings.maxExtractBytes);
        body = decoded.body;
        if (decoded.truncated) annotations.push('extract-capped');
        if (decoded.error) annotations.push('decode-error');
      }
      const input = { url: uri.url, status, headers: f.headers, body, mime: mime ?? '', maxLinks: ctx.settings.maxLinksPerDocument };
      // No body to parse (an image, a script, a redirect): only header links, cheap enough to take
      // here rather than a round trip to the worker pool.
      const ex = body.length === 0 ? extractDocument(input) : await ctx.extractor.run(input);
      if (ex.error) annotations.push('extract-error');
      outlinks = ex.outlinks;
      title = ex.title;
      text = ex.text;
      isHtml = ex.isHtml;
      if (ex.truncatedLinks) annotations.push('links-capped');
      // Values that looked like links but did not parse (or were over 64 KiB): dropped, but counted.
      if (ex.skipped > 0) annotations.push(`unparsable-links:${ex.skipped}`);
      if (ex.nofollow) annotations.push('nofollow');
    }
    if (uri.hopsPath === '' && status >= 200 && status < 300) outlinks = [...outlinks, ...inferredLinks(uri.url)];
    if (opts.outlinks?.length) outlinks = [...outlinks, ...opts.outlinks];
    // All outlinks go in the metadata record; sitemap entries are followed only under --sitemaps.
    const followable = followableOutlinks(ctx.settings, uri.hopsPath, outlinks);
    if (followable.skipped > 0) annotations.push(`sitemap-entries-not-followed:${followable.skipped}`);
    if (opts.redirectFollowed) followable.follow = followable.follow.filter((l) => l.hop !== 'R');

    const meta = head.responseId
      ? [metadataRecord(uri.url, date, head.responseId, { via: uri.via, hopsPath: uri.hopsPath, fetchTimeMs: f.durationMs, outlinks })]
      : [];
    const written = await ctx.writer.writeGroup([...(await precompressed), ...meta]);
    // The index lists every HTML 200 response as a page (as an import of the WARC would); the
    // crawl counts, against its page limit, only those reached as pages (page-hops.ts): an HTML
    // iframe is part of the page that holds it.
    const htmlPage = isHtml && status === 200;
    const page = htmlPage && mayBePage(uri.hopsPath);
    const rows = captureRows(ctx, uri.url, date, f, written, htmlPage ? title : null, revisitOf, htmlPage);

    const retry = (status >= 500 || status === 429) && !opts.noRetry && uri.attempts < ctx.settings.maxRetries;
    const candidates: Candidate[] = retry ? [] : ctx.chain.fromOutlinks(uri, followable.follow, uri.seed && status >= 300 && status < 400);
    if (uri.seed && status >= 300 && status < 400) {
      for (const c of candidates) if (c.seed) ctx.addRedirectSeed(c.url);
    }

    const ids = ctx.db.transaction(() => {
      if (retry) {
        ctx.frontier.complete(uri, { status, retryAt: Math.max(queueReadyAt, now + retryDelay(ctx, uri.attempts + 1)), queueReadyAt });
      } else {
        ctx.frontier.complete(uri, { status: outcome, queueReadyAt, bytes: f.bytesReceived, mime: mime ?? undefined, digest: f.payloadDigest ?? undefined, page }, candidates);
      }
      return ctx.captures.addRecords(rows);
    })();
    // Search text only for rows that committed.
    if (htmlPage && text) ctx.pageText.add(ids[0]!, title ?? '', text);
    const responseRow = rows.find((r) => r.recordType === 'response');
    if (originalClaim && head.responseId && responseRow?.date) {
      originalClaim.settle({ recordId: head.responseId, targetUri: uri.url, date: responseRow.date });
    }

    if (retry) return { kind: 'retry', status, bytes: f.bytesReceived, page: false };
    ctx.traps.observe({ url: uri.url, via: uri.via, hops: uri.hopsPath.length, text });
    logOutcome(ctx, uri, slot, {
      status: outcome,
      size: f.bytesReceived,
      mime,
      fetch: f,
      annotations,
      duplicate: revisitOf !== null,
      page,
      host: uri.queueKey,
    });
    return { kind: 'final', status: outcome, bytes: f.bytesReceived, page };
  }
}

function applyQueueLimit(ctx: CrawlContext, queueKey: string, hs: HostSettings): void {
  if (ctx.settings.queuePolicy !== 'host') return;
  const note = noteFor(ctx, queueKey);
  if (note.maxInFlight === hs.perHost) return;
  note.maxInFlight = hs.perHost;
  ctx.frontier.setQueueLimit(queueKey, hs.perHost);
}

function noteFor(ctx: CrawlContext, queueKey: string) {
  let n = ctx.queueNotes.get(queueKey);
  if (!n) {
    n = { delayMs: 0, delayReason: '-', backoffs: 0, consecutiveErrors: 0 };
    ctx.queueNotes.set(queueKey, n);
  }
  return n;
}

interface FinishInput {
  status: number;
  annotations: string[];
  queueReadyAt?: number;
  fetch?: FetchResult;
}

/** A final outcome with no WARC capture (robots precluded, unreachable, …). */
function finish(ctx: CrawlContext, uri: ClaimedUri, slot: number, x: FinishInput): UriResult {
  ctx.frontier.complete(uri, { status: x.status, queueReadyAt: x.queueReadyAt ?? Date.now() });
  logOutcome(ctx, uri, slot, { status: x.status, size: 0, mime: null, fetch: x.fetch, annotations: x.annotations, duplicate: false, page: false, host: uri.queueKey });
  return { kind: 'final', status: x.status, bytes: 0, page: false };
}

function logOutcome(
  ctx: CrawlContext,
  uri: ClaimedUri,
  slot: number,
  o: { status: number; size: number; mime: string | null; fetch?: FetchResult; annotations: string[]; duplicate: boolean; page: boolean; host: string },
): void {
  const time = new Date();
  ctx.crawlLog.write(
    formatCrawlLogLine({
      time,
      status: o.status,
      size: o.size,
      url: uri.url,
      hopsPath: uri.hopsPath,
      via: uri.via,
      mime: o.mime,
      slot,
      fetchStart: o.fetch?.startedAt,
      durationMs: o.fetch?.durationMs,
      digest: o.fetch?.payloadDigest ?? null,
      annotations: o.annotations,
    }),
  );
  ctx.stats.recordOutcome({
    time: time.getTime(),
    status: o.status,
    outcome: outcomeName(o.status),
    url: uri.url,
    hopsPath: uri.hopsPath,
    mime: o.mime,
    bytes: o.size,
    durationMs: o.fetch?.durationMs ?? 0,
    duplicate: o.duplicate,
    page: o.page,
  });
}
