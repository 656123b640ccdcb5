/**
 * One URI on its way through the processor chain (Heritrix's CrawlURI): what the processors
 * learn about it (host settings, the fetch, revisit, links, records, index rows) and how it is
 * to end (its disposition). Each processor reads what earlier ones left here and adds its own
 * part, so no processor calls another and each can be swapped or tested alone.
 */
import type { ClaimedUri, Candidate } from '../../frontier/frontier.ts';
import type { FetchResult } from '../../fetch/fetcher.ts';
import type { Outlink } from '../../extract/outlink.ts';
import type { RecordRow } from '../../archive/capture-index.ts';
import type { PrecompressedRecord } from '../../warc/warc-writer.ts';
import type { CaptureGroup, RevisitOf } from '../capture-records.ts';
import type { PriorCapture } from '../prior-captures.ts';
import type { OriginalClaim } from '../pending-originals.ts';
import type { HostSettings } from '../host-settings.ts';
import type { CrawlContext } from '../crawl-context.ts';
import type { CrawlSettings } from '../../api/settings.ts';

/**
 * How the URI ends; the disposition processors carry it out.
 * - `final`: its one outcome (a crawl.log line and the stats);
 * - `retry`: it comes back at `retryAt` (an attempt counted, nothing logged);
 * - `deferred`: a processor already put it back without an attempt (robots.txt first, hard stop).
 */
export type Disposition =
  | {
      kind: 'final';
      status: number;
      queueReadyAt: number;
      /** For the log and stats. */
      size: number;
      mime: string | null;
      duplicate: boolean;
      page: boolean;
      /** What the frontier keeps of a fetched response (absent when nothing was archived). */
      fetched?: { bytes: number; mime?: string; digest?: string };
    }
  | { kind: 'retry'; status: number; retryAt: number; queueReadyAt: number }
  | { kind: 'deferred' };

export interface CrawlUri {
  readonly uri: ClaimedUri;
  readonly slot: number;
  /** Called once the URI's fetch is over and its queue slot given back (frontier.releaseSlot). */
  readonly fetchDone?: () => void;
  /**
   * Park (true) or unpark (false) the URI: while parked it waits on something other than the
   * network (an auto crawl's page for its template's verdict, fetch-auto.ts), its fetch slot is
   * given back and it does not count against the crawl's URIs in flight, so the next fetches go on.
   */
  readonly park?: (on: boolean) => void;
  /**
   * `uri.url` WHATWG-parsed, once (claimedUrl below), or null when it does not parse. Owned by
   * this CrawlUri and never mutated: scope recheck, robots gate, fetcher and trap detector read
   * its parts instead of each parsing the string again. Undefined until first asked for.
   */
  parsed?: URL | null;
  host: string;
  hs: HostSettings;
  /** The User-Agent robots.txt told us to send (masquerade), if not our own. */
  sendAgent?: string;
  /** robots.txt's Crawl-delay for this host, in seconds. */
  crawlDelayS: number | null;
  /** An earlier crawl's capture of this URL (--dedup-from), asked for conditionally. */
  prior: PriorCapture | null;
  /** The HTTP response (or its failure), disposed of by the chain once the URI is done. */
  fetch?: FetchResult;
  /**
   * The fetch processor wrote the capture itself (the browser: every exchange as it arrived): the
   * HTTP write and extract processors pass it by; its index rows and links are already here.
   */
  captured: boolean;
  /** Bytes the fetch cost its host when more than the response (a page and its resources). */
  politenessBytes?: number;
  /** robots.txt only: the URI is not retried and no R candidate is made (its redirects are followed by the fetch). */
  noRetry: boolean;
  redirectFollowed: boolean;
  /** Outlinks found outside the body (robots.txt Sitemap: lines). */
  extraOutlinks: Outlink[];
  annotations: string[];
  /** The fetch's outcome for the log: the HTTP status, or the failure code of a response cut short. */
  outcome: number;
  /** The HTTP status (or the failure code when there is no response). */
  status: number;
  mime: string | null;
  /** When the URI's queue may fetch again. */
  queueReadyAt: number;
  revisitOf: RevisitOf | null;
  /** Set when this response is the first with its payload: settled once it is indexed (or not). */
  originalClaim: Extract<OriginalClaim, { kind: 'original' }> | null;
  /** The response and request records, being compressed while the links are extracted. */
  head?: CaptureGroup;
  precompressed?: Promise<PrecompressedRecord[]>;
  outlinks: Outlink[];
  /** What a browser rendering found (fetch-browser.ts): live-DOM links, and the URLs its scripts requested. */
  rendering?: { links: string[]; scripted: string[] };
  title: string | null;
  text: string;
  isHtml: boolean;
  /** An HTML 200 response: listed as a page in the index. */
  htmlPage: boolean;
  /** Counted as a page by the crawl (page-hops.ts). */
  page: boolean;
  rows: RecordRow[];
  /** The WARC file its records went to while their rows are not yet in the open group (rows-in-flight.ts). */
  rowsFile: string | null;
  candidates: Candidate[];
  disposition?: Disposition;
  /** Set once the frontier holds the URI's outcome (its lease is over). */
  completed: boolean;
  /** Set once its crawl.log line and stats are recorded. */
  logged: boolean;
  /** The unexpected error that made this a −5, for the controller's log. */
  error?: unknown;
}

/**
 * What a processor says when it is done with the URI: go on to the next processor, or skip to
 * the disposition (the URI's end is decided). As Heritrix's PROCEED and FINISH.
 */
export type ProcessResult = 'proceed' | 'finish';

/**
 * What a processor reads from the crawl's context, declared next to its code as a Heritrix
 * processor declares its collaborators: the settings keys and the context's services it (or a
 * helper it hands `ctx` to) reads. test/architecture/processor-reads.test.ts checks each against
 * the processor's source, both ways.
 */
export interface ProcessorReads {
  readonly settings: readonly (keyof CrawlSettings)[];
  readonly services: readonly Exclude<keyof CrawlContext, 'settings'>[];
}

export interface Processor {
  readonly name: string;
  readonly reads: ProcessorReads;
  /** Whether this processor has anything to do for this URI (default: yes). */
  shouldProcess?(ctx: CrawlContext, curi: CrawlUri): boolean;
  process(ctx: CrawlContext, curi: CrawlUri): Promise<ProcessResult> | ProcessResult;
}

export function newCrawlUri(uri: ClaimedUri, slot: number, fetchDone?: () => void, park?: (on: boolean) => void): CrawlUri {
  return {
    uri,
    slot,
    fetchDone,
    park,
    parsed: undefined,
    host: '',
    hs: undefined as unknown as HostSettings, // set by the precondition processors, before any use
    crawlDelayS: null,
    prior: null,
    captured: false,
    noRetry: false,
    redirectFollowed: false,
    extraOutlinks: [],
    annotations: [],
    outcome: 0,
    status: 0,
    mime: null,
    queueReadyAt: 0,
    revisitOf: null,
    originalClaim: null,
    outlinks: [],
    title: null,
    text: '',
    isHtml: false,
    htmlPage: false,
    page: false,
    rows: [],
    rowsFile: null,
    candidates: [],
    completed: false,
    logged: false,
  };
}

/**
 * The claimed URL's one parse (`new URL(uri.url)`, what each step used to do for itself), made on
 * first use and kept on the CrawlUri, so a processor run alone still gets it.
 */
export function claimedUrl(curi: CrawlUri): URL | null {
  if (curi.parsed === undefined) curi.parsed = URL.parse(curi.uri.url);
  return curi.parsed;
}

/** End the URI here with `status` and nothing archived (robots precluded, out of scope, unreachable, …). */
export function finishWith(curi: CrawlUri, status: number, annotations: string[], queueReadyAt = Date.now()): ProcessResult {
  curi.disposition = { kind: 'final', status, queueReadyAt, size: 0, mime: null, duplicate: false, page: false };
  curi.annotations = annotations;
  return 'finish';
}
