/**
 * Whole media beside a browser capture (issue 37). A browser plays audio and video with Range
 * requests, so what a page recorder sees of a video is 206 partial responses, and of an HLS or
 * DASH stream only the segments that happened to play; neither replays whole. So, as Browsertrix
 * Crawler does, Trove fetches itself, once the page is done:
 *
 * - each audio/video resource the page loaded by Range (a 206): the whole file, one 200 response;
 * - each stream: every segment (and init segment, key) of each rendition the player used, and
 *   of the one ReplayWeb.page and pywb keep when they replay the manifest (they rewrite it down to
 *   one rendition: formats/replay-rendition-choice.ts), or of every rendition with
 *   `renditions: 'all'`, plus the child playlists and the subtitle tracks. A rendition is "used"
 *   when the page fetched its HLS media playlist, or (DASH, whose one manifest lists every
 *   rendition) any of its segments.
 *
 * Politely: one request at a time per page, in the order found, with the page's own request
 * headers (its Cookie, User-Agent, Referer; without Range) and `Accept-Encoding: identity`, so the
 * stored body is the file. Through the crawl's HTTP fetcher, so the records are wire-exact HTTP
 * captures and large bodies stream to a spool file as any fetch's do. A URL the page already got
 * whole (a 200) is not fetched again, nor one this page already fetched.
 *
 * The page's request gate holds for these fetches too (robots.txt in a crawl: a segment the
 * player never asked for was never asked of it), and a hard stop (`signal`) ends them.
 *
 * Limits: `maxResourceBytes` per file and `maxPageBytes` for all of one page's. A file cut at
 * either is written truncated (`WARC-Truncated: length`) and reported in `limited` with outcome
 * OVER_SIZE_LIMIT (−51); once the page's budget is spent the rest is reported, not fetched.
 *
 * The recorder hands each exchange to `observe` before its sink takes it (page-recorder.ts), and
 * calls `finish` when it stops; the fetched responses go to the same sink as exchanges carrying
 * their FetchResult (`fetched`).
 */
import fs from 'node:fs';
import { Outcome } from '../api/outcome-codes.ts';
import type { Fetcher, FetchResult } from '../fetch/fetch-types.ts';
import { fieldValue as headerValue } from '../formats/http-fields.ts';
import { streamKind, type StreamKind } from '../formats/stream-kind.ts';
import type { RecordedExchange, RecordSink } from './recorded-exchange.ts';

export interface MediaCaptureOptions {
  fetcher: Fetcher;
  /** `used`: the renditions the player used; `all`: every rendition of every stream. */
  renditions: 'used' | 'all';
  /** Body bytes of one file; past it the record is cut. */
  maxResourceBytes: number;
  /** Body bytes of all the files fetched for one page. */
  maxPageBytes: number;
  /** Capture time of a fetched record (tests inject one). */
  now?: () => Date;
  /** The page's request gate (robots.txt in a crawl): a URL it refuses is not fetched. */
  allowRequest?: (url: string, resourceType: string) => boolean | Promise<boolean>;
  /** Stops the fetches (a crawl's hard stop). */
  signal?: AbortSignal;
}

/** A whole fetch cut (or skipped) at a limit. */
export interface MediaLimitHit {
  url: string;
  limit: 'resource' | 'page';
  /** Outcome code: OVER_SIZE_LIMIT (−51). */
  code: number;
  /** Body bytes stored (0 when skipped). */
  stored: number;
}

export interface MediaReport {
  /** URLs fetched whole, in order. */
  fetched: string[];
  limited: MediaLimitHit[];
  /** Fetches that failed (no response): the page's own records stand. */
  failed: { url: string; message: string }[];
  /** URLs the request gate refused (a stream segment robots.txt forbids…): not fetched. */
  refused: string[];
}

/** A manifest larger than this is not read (a live one gone wrong). */
const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

interface Job {
  url: string;
  headers: [string, string][];
}

/** Request fields not copied from the page's request into Trove's own fetch of the whole file. */
const NOT_COPIED = new Set(['host', 'range', 'if-range', 'content-length', 'connection', 'accept-encoding', 'if-none-match', 'if-modified-since', 'keep-alive', 'te', 'upgrade', 'proxy-connection']);

function isMedia(x: RecordedExchange): boolean {
  if (x.resourceType === 'Media') return true;
  const type = (headerValue(x.responseHeaders, 'content-type') ?? '').toLowerCase();
  return type.startsWith('video/') || type.startsWith('audio/');
}

function bodyText(body: RecordedExchange['body']): string {
  if (Buffer.isBuffer(body)) return body.toString('utf8');
  // A manifest over the in-memory threshold (4 MiB): read before the sink takes its spool file.
  return fs.readFileSync(body.path, 'utf8');
}

export class MediaCompleter {
  readonly report: MediaReport = { fetched: [], limited: [], failed: [], refused: [] };
  readonly #sink: RecordSink;
  readonly #o: MediaCaptureOptions;
  /** Every http(s) URL the page requested. */
  readonly #requested = new Set<string>();
  /** URLs the page got whole (a 200), or that this completer queued. */
  readonly #done = new Set<string>();
  /** Whole-file candidates: URL → the page's request headers (first 206 seen). */
  readonly #ranged = new Map<string, [string, string][]>();
  /** Manifests the page (or this completer) read, with the headers to fetch their parts with. */
  readonly #manifests: { kind: StreamKind; url: string; text: string; headers: [string, string][] }[] = [];
  #pageBytes = 0;
  #finishing: Promise<MediaReport> | null = null;

  constructor(sink: RecordSink, opts: MediaCaptureOptions) {
    this.#sink = sink;
    this.#o = opts;
  }

  /** An exchange the page made, before the sink takes it (and its spool file). */
  observe(x: RecordedExchange): void {
    if (x.method !== 'GET' || !/^https?:/i.test(x.url)) return;
    const url = x.url.split('#')[0]!;
    this.#requested.add(url);
    if (x.status === 200) {
      const type = (headerValue(x.responseHeaders, 'content-type') ?? '').split(';')[0]!.trim();
      const head = Buffer.isBuffer(x.body) ? x.body.subarray(0, 512) : undefined;
      const kind = streamKind(url, type, head);
      const empty = Buffer.isBuffer(x.body) ? x.body.length === 0 : x.body.size === 0;
      if (kind && empty) {
        // A manifest whose body the browser did not hand over: fetched whole, then read.
        if (!this.#done.has(url)) this.#ranged.set(url, x.requestHeaders);
        return;
      }
      this.#done.add(url);
      this.#ranged.delete(url);
      if (kind) this.#manifests.push({ kind, url, text: bodyText(x.body), headers: x.requestHeaders });
    } else if (x.status === 206 && (isMedia(x) || streamKind(url, (headerValue(x.responseHeaders, 'content-type') ?? '').split(';')[0]!.trim())) && !this.#done.has(url) && !this.#ranged.has(url)) {
      this.#ranged.set(url, x.requestHeaders);
    }
  }

  /** Fetch what is left (once; a second call waits for the first). */
  finish(): Promise<MediaReport> {
    this.#finishing ??= this.#finish();
    return this.#finishing;
  }

  async #finish(): Promise<MediaReport> {
    const jobs: Job[] = [];
    for (const [url, headers] of this.#ranged) jobs.push({ url, headers: ownHeaders(headers) });
    // Manifests may name manifests (HLS master → media playlists): read until none is new.
    const read = new Set<string>();
    const queued = new Set(jobs.map((j) => j.url));
    const queue = (url: string, headers: [string, string][]): void => {
      if (this.#done.has(url) || queued.has(url)) return;
      queued.add(url);
      jobs.push({ url, headers: ownHeaders(headers) });
    };
    const readManifests = async (): Promise<void> => {
      for (const m of this.#manifests) {
        if (read.has(m.url)) continue;
        read.add(m.url);
        await this.#plan(m, queue);
      }
    };
    await readManifests();
    for (let i = 0; i < jobs.length && !this.#o.signal?.aborted; i++) {
      const job = jobs[i]!;
      if (this.#done.has(job.url)) continue;
      this.#done.add(job.url);
      await this.#fetch(job);
      await readManifests();
    }
    return this.report;
  }

  /** What a manifest adds to the jobs, by the rendition rule. */
  async #plan(m: { kind: StreamKind; url: string; text: string; headers: [string, string][] }, queue: (url: string, headers: [string, string][]) => void): Promise<void> {
    // The parsers load only when a page has a stream.
    const { parseStreamManifest } = await import('../formats/media-manifest.ts');
    const parsed = parseStreamManifest(m.kind, m.text, m.url);
    const all = this.#o.renditions === 'all';
    // What ReplayWeb.page and pywb will ask for on replay (they rewrite the manifest down to it,
    // formats/replay-rendition-choice.ts) is taken besides what the player used.
    const forReplay = new Set(parsed.replayChoice);
    for (const p of parsed.playlists) {
      // Subtitle tracks are small and a player asks for them only when shown: always kept.
      if (all || p.type === 'subtitles') queue(p.url, m.headers);
      else if (forReplay.has(p.url)) for (const u of [p.url, ...p.groups]) queue(u, m.headers);
    }
    for (const r of parsed.renditions) {
      // An HLS media playlist was read because it was used (or `all`, or the replay tools' choice);
      // a DASH representation was used when the page fetched any of its URLs.
      const used = all || m.kind === 'hls' || r.type === 'subtitles' || forReplay.has(r.id) || r.urls.some((u) => this.#requested.has(u));
      if (used) for (const u of r.urls) queue(u, m.headers);
    }
  }

  async #fetch(job: Job): Promise<void> {
    const left = this.#o.maxPageBytes - this.#pageBytes;
    if (left <= 0) {
      this.report.limited.push({ url: job.url, limit: 'page', code: Outcome.OVER_SIZE_LIMIT, stored: 0 });
      return;
    }
    if (this.#o.allowRequest && !(await Promise.resolve(this.#o.allowRequest(job.url, 'Media')).catch(() => false))) {
      this.report.refused.push(job.url);
      return;
    }
    const cap = Math.min(this.#o.maxResourceBytes, left);
    const date = (this.#o.now ?? (() => new Date()))();
    const f = await this.#o.fetcher.fetch({ url: job.url, headers: job.headers, maxBodyBytes: cap, ...(this.#o.signal ? { signal: this.#o.signal } : {}) });
    if (!f.responseHead || f.status === null) {
      this.report.failed.push({ url: job.url, message: f.error?.message ?? 'no response' });
      await dispose(f);
      return;
    }
    const size = f.entity?.size ?? 0;
    this.#pageBytes += size;
    if (f.truncated === 'length') {
      this.report.limited.push({ url: job.url, limit: cap < this.#o.maxResourceBytes ? 'page' : 'resource', code: Outcome.OVER_SIZE_LIMIT, stored: size });
    }
    const ok = f.status >= 200 && f.status < 300;
    if (ok) this.report.fetched.push(job.url);
    // A child playlist, or a manifest the page got only by Range (Chromium's own HLS player asks
    // for playlists with `Range: bytes=0-`): read now that it is whole.
    const kind = ok && !f.truncated && f.entity ? streamKind(job.url, (headerValue(f.headers, 'content-type') ?? '').split(';')[0]!.trim(), await f.entity.read(512)) : null;
    if (kind && f.entity && f.entity.size <= MAX_MANIFEST_BYTES) this.#manifests.push({ kind, url: job.url, text: (await f.entity.read()).toString('utf8'), headers: job.headers });
    await this.#sink.exchange(fetchedExchange(job, f, date));
  }
}

/** The page's request headers for Trove's own GET of the whole resource. */
function ownHeaders(headers: [string, string][]): [string, string][] {
  const out = headers.filter(([k]) => !k.startsWith(':') && !NOT_COPIED.has(k.toLowerCase()));
  out.push(['Accept-Encoding', 'identity']);
  return out;
}

function fetchedExchange(job: Job, f: FetchResult, date: Date): RecordedExchange {
  return {
    url: job.url,
    method: 'GET',
    requestHeaders: job.headers,
    status: f.status!,
    statusText: f.statusText ?? '',
    httpVersion: f.httpVersion === '1.0' ? 'HTTP/1.0' : 'HTTP/1.1',
    responseHeaders: f.headers,
    body: Buffer.alloc(0),
    date,
    ...(f.remoteAddress ? { remoteAddress: f.remoteAddress } : {}),
    resourceType: 'Media',
    isPageDocument: false,
    fetched: f,
  };
}

async function dispose(f: FetchResult): Promise<void> {
  await Promise.all([f.body?.dispose(), f.entity !== f.body ? f.entity?.dispose() : undefined]).catch(() => {});
}
