/**
 * Where a browser tab's exchanges go in a crawl: each one through the crawl's own capture path
 * (exchange-records.ts → buildCaptureGroup → the WARC writer → capture-index rows), with the
 * same revisit decision as an HTTP response (dedup-digest.ts), as it arrives. So a page's
 * scripts, images, fonts and XHR answers are archived and indexed exactly like HTTP captures.
 *
 * The page's own document is held back: its index rows are committed by the chain's
 * disposition with the URI's frontier outcome, as for an HTTP page, and its records carry the
 * page's title. Everything else is indexed at once, in its own transaction (as a robots.txt
 * redirect hop is); a kill between the WARC write and that transaction is mended at start-up by
 * reconcile-index.ts like any crawl write.
 *
 * robots.txt holds for what the page loads, before it is sent: the sink is the recorder's request
 * gate (`allowRequest`). A request of a host whose robots.txt the crawl knows is asked of the
 * crawl's robots gate and, if forbidden, failed unsent (counted as robots-precluded-embeds). A
 * host whose robots.txt is not known yet (or is due again, or cannot be had) is not contacted by
 * the browser at all: robots.txt is a prerequisite, as in Heritrix, so the request is blocked and
 * the URL queued as an E hop (fetch-browser.ts); the frontier then fetches that host's robots.txt
 * first, with the host's politeness, and the URL by HTTP only if its rules allow it. The page's
 * own URL passed check-robots before the tab was given it. Scope does not hold for what the page
 * loads: like Browsertrix, everything it loads is kept (a page needs its CDN's images and fonts to
 * replay), and only in-scope URLs are queued from it.
 */
import type { FetchResult } from '../../fetch/fetcher.ts';
import type { RecordRow } from '../../archive/capture-index.ts';
import { exchangeCaptureInput } from '../exchange-records.ts';
import type { RecordedExchange, RecordSink } from '../../browser/recorded-exchange.ts';
import type { WrittenRecord } from '../../warc/warc-writer.ts';
import { buildCaptureGroup, type CaptureGroupInput, type RevisitOf } from '../capture-records.ts';
import { captureRows } from '../capture-rows.ts';
import { hostSettings } from '../host-settings.ts';
import { headMediaType as mimeOf } from '../../formats/media-type.ts';
import type { CrawlContext } from '../crawl-context.ts';
import { dedupApplies, revisitFor, type RevisitDecision } from './dedup-digest.ts';
import { disposeFetch } from './dispose-fetch.ts';

/** The page's document as captured: its response, records and revisit, indexed by the disposition. */
export interface PageDocument {
  fetch: FetchResult;
  written: WrittenRecord[];
  responseId: string | null;
  revisitOf: RevisitOf | null;
  originalClaim: RevisitDecision['originalClaim'];
  annotation: string | null;
}

export class BrowserRecordSink implements RecordSink {
  /** URLs written (and indexed) from this page, the document aside. */
  readonly captured = new Set<string>();
  /** URLs the browser was not let send because their host's robots.txt forbids them. */
  readonly robotsPrecluded = new Set<string>();
  /** URLs not sent because their host's robots.txt is not known yet: fetched by HTTP behind it. */
  readonly awaitingRobots = new Set<string>();
  /** Bytes of every exchange the page made (for politeness). */
  bytes = 0;
  exchanges = 0;
  /** The page document(s), in order: a redirected navigation has one per hop. */
  readonly documents: { url: string; doc: PageDocument }[] = [];
  private ctx: CrawlContext;

  /** The hops path of the page the tab loads (its loads are its embeds: one E further). */
  private pageHops: string;

  /** With `holdDocuments`: the first load of the page that met the login's wall (not written; the page counts as logged out). */
  loggedOutLoad: { url: string; why: string } | null = null;
  /** Page documents not written yet (`holdDocuments`): written by writeHeld, or let go by dropHeld. */
  private held: { x: RecordedExchange; input: CaptureGroupInput }[] | null;

  /**
   * `holdDocuments`: the page's document(s) are not written as they arrive but when the page is
   * known to be wanted (writeHeld): `--logged-in-check` looks at the rendered page first, and a
   * page that says the login ended must leave nothing in the WARC (fetch-browser.ts). A load of
   * the page that meets the login's wall (a 401, a redirect to the login page) is not written
   * either, and makes the page logged out (`loggedOutLoad`).
   */
  constructor(ctx: CrawlContext, pageHops = '', opts: { holdDocuments?: boolean } = {}) {
    this.ctx = ctx;
    this.pageHops = pageHops;
    this.held = opts.holdDocuments ? [] : null;
  }

  async exchange(x: RecordedExchange): Promise<void> {
    const input = await exchangeCaptureInput(x);
    this.exchanges++;
    this.bytes += input.fetch.bytesReceived;
    if (x.isPageDocument && this.held) {
      this.held.push({ x, input });
      return;
    }
    // --logged-in-check: a load that met the login's wall (the session ended mid-page) is not archived.
    const wall = this.held && !x.isPageDocument ? (this.ctx.loggedIn?.check.loggedOutLoad(input.url, input.fetch) ?? null) : null;
    if (wall !== null) {
      this.loggedOutLoad ??= { url: input.url, why: wall };
      await disposeFetch(input.fetch);
      return;
    }
    await this.write(x, input);
  }

  /** The fetch of the page's first document while it is held (for a crawl.log line), or null. */
  heldFetch(): FetchResult | null {
    return this.held?.[0]?.input.fetch ?? null;
  }

  /** Write the held documents, in the order they came (then the sink is as if none had been held). */
  async writeHeld(): Promise<void> {
    const held = this.held ?? [];
    this.held = null;
    for (let i = 0; i < held.length; i++) {
      try {
        await this.write(held[i]!.x, held[i]!.input);
      } catch (err) {
        for (const rest of held.slice(i + 1)) await disposeFetch(rest.input.fetch);
        throw err;
      }
    }
  }

  /** Let the held documents go unwritten. */
  async dropHeld(): Promise<void> {
    const held = this.held ?? [];
    this.held = null;
    for (const h of held) await disposeFetch(h.input.fetch);
  }

  private async write(x: RecordedExchange, input: CaptureGroupInput): Promise<void> {
    const ctx = this.ctx;
    const f = input.fetch;
    let keep = false;
    let claim: RevisitDecision['originalClaim'] = null;
    try {
      const d: RevisitDecision = dedupApplies(ctx, f, x.status) ? await revisitFor(ctx, x.url, f.payloadDigest!) : { revisitOf: null, annotation: null, originalClaim: null };
      claim = d.originalClaim;
      const group = buildCaptureGroup({ ...input, revisitOf: d.revisitOf, bodyBuffer: d.revisitOf ? null : input.bodyBuffer, redactCredentials: ctx.settings.redactCredentials });
      const written = await ctx.writer.writeGroup(group.records);
      if (x.isPageDocument) {
        this.documents.push({ url: x.url, doc: { fetch: f, written, responseId: group.responseId, revisitOf: d.revisitOf, originalClaim: claim, annotation: d.annotation } });
        claim = null; // settled by the disposition, with the page's rows
        keep = true;
        return;
      }
      this.countLoad(x.url, x.status, f, d.revisitOf !== null);
      const rows: RecordRow[] = captureRows(ctx, x.url, x.date, f, written, null, d.revisitOf);
      for (const r of rows) if (r.recordType === 'request') r.method = x.method;
      ctx.db.transaction(() => ctx.captures.addRecords(rows))();
      this.captured.add(x.url);
      const resp = rows.find((r) => r.recordType === 'response');
      if (claim && group.responseId && resp?.date) claim.settle({ recordId: group.responseId, targetUri: x.url, date: resp.date });
      claim = null;
    } finally {
      claim?.settle(null);
      if (!keep) await disposeFetch(f);
    }
  }

  /**
   * A load the browser recorded beside the page (an exchange, or a redirect on the way to the
   * page's document) goes into the crawl's counters as a download, as an HTTP fetch of it would:
   * the WARC holds it. The page's own document is counted with its URI's outcome.
   */
  countLoad(url: string, status: number, f: FetchResult, duplicate: boolean): void {
    this.ctx.stats.recordBrowserLoad({
      time: this.ctx.now(),
      status,
      url,
      hopsPath: `${this.pageHops}E`,
      mime: mimeOf(f.headers),
      bytes: f.bytesReceived,
      durationMs: f.durationMs ?? 0,
      duplicate,
    });
  }

  /**
   * The request gate for the tab loading `pageUrl`: may the browser send a request for `url`?
   * The page itself passed check-robots; everything else asks the crawl's robots gate.
   */
  requestGate(pageUrl: string): (url: string, resourceType: string) => boolean {
    return (url) => {
      if (url === pageUrl) return true;
      let host: string;
      try {
        host = new URL(url).hostname;
      } catch {
        return false;
      }
      const hs = hostSettings(this.ctx.settings, host);
      if (hs.robots === 'ignore') return true;
      const gate = this.ctx.robots.check(url, hs.robots, hs.userAgent, Date.now());
      if (gate.kind === 'allowed') return true;
      if (gate.kind === 'precluded') this.robotsPrecluded.add(url);
      else this.awaitingRobots.add(url); // fetch-robots or unavailable: the HTTP path settles it
      return false;
    };
  }

  /** Index rows of a captured document (the disposition commits them with the URI's outcome). */
  documentRows(d: { url: string; doc: PageDocument }, title: string | null, page: boolean): RecordRow[] {
    const f = d.doc.fetch;
    return captureRows(this.ctx, d.url, new Date(f.startedAt), f, d.doc.written, title, d.doc.revisitOf, page);
  }

  /**
   * A capture that is not used (it failed, or a hard stop cut it): the documents already written
   * are indexed all the same (the WARC and the index must agree), then let go.
   */
  async discard(): Promise<void> {
    await this.dropHeld();
    const rows = this.documents.flatMap((d) => this.documentRows(d, null, false));
    try {
      if (rows.length > 0) this.ctx.db.transaction(() => this.ctx.captures.addRecords(rows))();
    } finally {
      for (const { doc } of this.documents) {
        doc.originalClaim?.settle(null);
        await disposeFetch(doc.fetch);
      }
      this.documents.length = 0;
    }
  }
}
