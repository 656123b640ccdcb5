/**
 * Records every request a tab makes, over the DevTools Protocol, into a RecordSink.
 *
 * Bodies come from the Fetch domain, paused at the Response stage (the only point where the
 * browser hands them out for every resource type, media and fonts included): small ones with
 * Fetch.getResponseBody, ones the server says are large with Fetch.takeResponseBodyAsStream +
 * IO.read into a spool file, then handed back to the page with Fetch.fulfillRequest. Headers
 * come from the Network domain's *ExtraInfo events, which carry what went over the wire
 * (Cookie, Host, Set-Cookie…), falling back to what the pause reports. A redirect is one pause
 * per hop, and each hop is an exchange. The cache is disabled and service workers bypassed for
 * the capture, so every resource really goes over the network and can be recorded.
 *
 * One CDP requestId spans a redirect chain: the n-th pause of an id pairs with its n-th
 * requestWillBeSentExtraInfo / responseReceivedExtraInfo / response. The pause arrives before
 * the response events, so an exchange is handed to the sink once its hop's events are in, or
 * the load finished or failed, or the recorder stops.
 *
 * An optional request gate (`allowRequest`, e.g. the crawl's robots.txt rules) makes Fetch pause
 * at the Request stage too: a request it refuses is failed with Fetch.failRequest
 * (BlockedByClient) before anything reaches the network, so a polite crawl does not send what it
 * may not fetch; the page sees a blocked load, as with a content blocker. Without a gate only the
 * Response stage is paused, as before.
 *
 * A cross-site iframe lives in its own renderer process and its requests are not the tab's: the
 * recorder auto-attaches to it (held at start until recording) and a child recorder on its own
 * session (target-session.ts) records it into the same sink.
 */
import fsp from 'node:fs/promises';
import os from 'node:os';
import { SpoolWriter } from '../fetch/spool.ts';
import { fieldValue as headerValue } from '../formats/http-fields.ts';
import { parseHttpHead } from '../formats/http-head.ts';
import type { CdpSession } from './cdp-session.ts';
import type { RecordedExchange, RecordSink } from './recorded-exchange.ts';
import { headerList, storedBodyHeaders } from './stored-body-headers.ts';
import { TargetSession } from './target-session.ts';
import { MediaCompleter, type MediaCaptureOptions, type MediaReport } from './media-completer.ts';

// Only the reason phrases of node:http are needed, taken without an ES `import`: importing a
// builtin as an ES module builds its facade by reading every export, and node:http's WebSocket
// getter loads Node's own bundled copy of undici. Every crawl imports this module (start-crawl
// wires the browser chain in), so that was +14 MiB RSS per process (bench/touch-rss-probe.ts)
// for a table of status texts.
const { STATUS_CODES } = process.getBuiltinModule('node:http');

export interface PageRecorderOptions {
  /** Where bodies over `maxInMemory` are spooled. Default: the OS temp directory. */
  spoolDir?: string;
  /** Bytes of a body kept in memory; larger ones go to a spool file. Default 4 MiB. */
  maxInMemory?: number;
  /** The capture time of an exchange (tests inject one). */
  now?: () => Date;
  /** Told of each child target recorded (a cross-site iframe), e.g. to watch its network too. */
  onTarget?: (session: CdpSession) => void;
  /**
   * Asked before each http(s) request goes out (resourceType as CDP names it: Document, Image,
   * XHR…); false fails the request unsent. A gate that throws refuses too (fail closed).
   */
  allowRequest?: (url: string, resourceType: string) => boolean | Promise<boolean>;
  /**
   * Whole media beside the page (media-completer.ts): each file the page loaded by Range, and the
   * segments of the stream renditions it played, fetched when the recorder stops.
   */
  media?: MediaCaptureOptions;
}

/**
 * Child targets the recorder attaches to and records like the tab; others are only resumed. A
 * dedicated worker's requests are paused by the tab's own Fetch domain (a worker target has no
 * Fetch domain), so workers are not recorded separately.
 */
const RECORDED_TARGETS = new Set(['iframe']);

export const DEFAULT_MAX_IN_MEMORY = 4 * 1024 * 1024;
/** Bytes asked of IO.read at a time when streaming a large body. */
const IO_CHUNK = 1024 * 1024;

interface HopResponse {
  remoteAddress?: string;
  protocol?: string;
  statusText?: string;
}

/** What the Network domain said about one CDP requestId (all hops of a redirect chain). */
interface RequestNotes {
  requestExtra: [string, string][][];
  responseExtra: { headers: [string, string][]; statusCode?: number }[];
  responses: HopResponse[];
  pauses: number;
  done: boolean;
  waiters: (() => void)[];
}

export class PageRecorder {
  readonly requested: string[] = [];
  /** URLs the request gate refused (never sent), in order, once each. */
  readonly blocked: string[] = [];
  /** Failures that did not stop the capture (a body the browser would not hand out…). */
  readonly problems: { url: string; message: string }[] = [];
  readonly #session: CdpSession;
  readonly #sink: RecordSink;
  readonly #spoolDir: string;
  readonly #maxInMemory: number;
  readonly #now: () => Date;
  readonly #notes = new Map<string, RequestNotes>();
  readonly #pending = new Set<Promise<void>>();
  readonly #requestedSet = new Set<string>();
  #mainFrameId: string | null = null;
  #stopping = false;
  #listening: [string, (p: any) => void][] = [];
  readonly #opts: PageRecorderOptions;
  /** The tab's recorder: child targets' recorders report requests and problems to it. */
  #root: PageRecorder;
  readonly #children = new Map<string, { session: TargetSession; recorder: PageRecorder | null }>();
  /** The tab's whole-media fetcher (the root recorder's; children report to it). */
  readonly #media: MediaCompleter | null;

  constructor(session: CdpSession, sink: RecordSink, opts: PageRecorderOptions = {}) {
    this.#session = session;
    this.#sink = sink;
    this.#opts = opts;
    this.#spoolDir = opts.spoolDir ?? os.tmpdir();
    this.#maxInMemory = opts.maxInMemory ?? DEFAULT_MAX_IN_MEMORY;
    this.#now = opts.now ?? (() => new Date());
    this.#root = this;
    this.#media = opts.media ? new MediaCompleter(sink, { now: this.#now, ...(opts.allowRequest ? { allowRequest: opts.allowRequest } : {}), ...opts.media }) : null;
  }

  /** What the whole-media fetches did, once stopped; null without `media`. */
  get media(): MediaReport | null {
    return this.#media?.report ?? null;
  }

  /** A recorder for a child target of `root`'s tab. */
  static #child(session: CdpSession, root: PageRecorder): PageRecorder {
    const { media: _, ...opts } = root.#opts;
    const r = new PageRecorder(session, root.#sink, opts);
    r.#root = root;
    return r;
  }

  async start(): Promise<void> {
    this.#listen('Fetch.requestPaused', (p) => this.#track(this.#onPaused(p)));
    this.#listen('Network.requestWillBeSent', (p) => this.#onRequest(p));
    this.#listen('Network.requestWillBeSentExtraInfo', (p) => {
      this.#notesOf(p.requestId).requestExtra.push(headerList(p.headers));
      this.#wake(p.requestId);
    });
    this.#listen('Network.responseReceivedExtraInfo', (p) => {
      const headers = p.headersText ? parseHeadersText(p.headersText) : headerList(p.headers);
      this.#notesOf(p.requestId).responseExtra.push({ headers, statusCode: p.statusCode });
      this.#wake(p.requestId);
    });
    this.#listen('Network.responseReceived', (p) => {
      this.#notesOf(p.requestId).responses.push(hopResponse(p.response));
      this.#wake(p.requestId);
    });
    const finished = (p: any): void => {
      const n = this.#notes.get(p.requestId);
      if (!n) return;
      n.done = true;
      wakeAll(n);
      // Nothing more comes for this id; a pause still being handled keeps its own reference.
      this.#notes.delete(p.requestId);
    };
    this.#listen('Network.loadingFinished', finished);
    this.#listen('Network.loadingFailed', finished);

    this.#listen('Target.attachedToTarget', (p) => this.#track(this.#onAttached(p)));
    this.#listen('Target.receivedMessageFromTarget', (p) => this.#children.get(p.sessionId)?.session.receive(p.message));
    this.#listen('Target.detachedFromTarget', (p) => this.#children.get(p.sessionId)?.session.detached());

    const child = this.#root !== this;
    // A child target (a cross-site iframe) may refuse the tab-wide cache and service-worker switches.
    const optional = (p: Promise<unknown>) => (child ? p.catch(() => {}) : p);
    await this.#session.send('Network.enable', {});
    await optional(this.#session.send('Network.setCacheDisabled', { cacheDisabled: true }));
    await optional(this.#session.send('Network.setBypassServiceWorker', { bypass: true }));
    try {
      const tree = await this.#session.send('Page.getFrameTree');
      this.#mainFrameId = tree?.frameTree?.frame?.id ?? null;
    } catch {
      this.#mainFrameId = null; // a target without frames: no page document
    }
    const patterns = [{ urlPattern: '*', requestStage: 'Response' }];
    if (this.#opts.allowRequest) patterns.unshift({ urlPattern: '*', requestStage: 'Request' });
    await this.#session.send('Fetch.enable', { patterns });
    // Cross-site iframes (own process under site isolation): attached paused, recorded, resumed.
    await this.#session.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: false, filter: [{ type: 'iframe' }, { exclude: true }] }).catch(() => {});
  }

  async #onAttached(p: any): Promise<void> {
    const sessionId: string = p.sessionId;
    const child = new TargetSession(this.#session, sessionId);
    const record = RECORDED_TARGETS.has(p.targetInfo?.type) && !this.#stopping;
    const recorder = record ? PageRecorder.#child(child, this.#root) : null;
    this.#children.set(sessionId, { session: child, recorder });
    try {
      if (recorder) {
        await recorder.start();
        this.#root.#opts.onTarget?.(child);
      }
    } catch (err) {
      this.#root.problems.push({ url: p.targetInfo?.url ?? '', message: `child target not recorded: ${(err as Error)?.message ?? err}` });
    } finally {
      if (p.waitingForDebugger) await child.send('Runtime.runIfWaitingForDebugger').catch(() => {});
      if (!recorder) await this.#session.send('Target.detachFromTarget', { sessionId }).catch(() => {});
    }
  }

  /**
   * Stop intercepting; resolves once every exchange already paused has reached the sink, and the
   * whole media (with `media`) too.
   */
  async stop(): Promise<void> {
    this.#stopping = true;
    // No more targets held at start for a recorder that is going away.
    if (this.#listening.length > 0) await this.#session.send('Target.setAutoAttach', { autoAttach: false, waitForDebuggerOnStart: false, flatten: false }).catch(() => {});
    for (const n of this.#notes.values()) wakeAll(n);
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
    await Promise.allSettled([...this.#children.values()].map((c) => c.recorder?.stop()));
    for (const [event, l] of this.#listening) this.#session.off(event, l);
    this.#listening = [];
    await this.#session.send('Fetch.disable').catch(() => {});
    // Once the page's own exchanges are all in: which renditions it played is known.
    await this.#media?.finish();
  }

  #listen(event: string, listener: (p: any) => void): void {
    this.#session.on(event, listener);
    this.#listening.push([event, listener]);
  }

  #track(p: Promise<void>): void {
    const tracked = p.catch((err) => {
      this.#root.problems.push({ url: '', message: String((err as Error)?.message ?? err) });
    });
    this.#pending.add(tracked);
    void tracked.finally(() => this.#pending.delete(tracked));
  }

  #notesOf(id: string): RequestNotes {
    let n = this.#notes.get(id);
    if (!n) this.#notes.set(id, (n = { requestExtra: [], responseExtra: [], responses: [], pauses: 0, done: false, waiters: [] }));
    return n;
  }

  #wake(id: string): void {
    const n = this.#notes.get(id);
    if (n) wakeAll(n);
  }

  #onRequest(p: any): void {
    const notes = this.#notesOf(p.requestId);
    // A redirect reuses the requestId: the hop before it ended with `redirectResponse`.
    if (p.redirectResponse) notes.responses.push(hopResponse(p.redirectResponse));
    const url: string = p.request?.url ?? '';
    const root = this.#root;
    if (/^https?:/i.test(url) && !root.#requestedSet.has(url)) {
      root.#requestedSet.add(url);
      root.requested.push(url);
    }
    wakeAll(notes);
  }

  async #onPaused(p: any): Promise<void> {
    const url: string = p.request.url;
    const status: number | undefined = p.responseStatusCode;
    // A pause with neither status nor error is the Request stage: only there when gated.
    if (this.#opts.allowRequest && status === undefined && p.responseErrorReason === undefined) {
      await this.#gate(p);
      return;
    }
    // data:/blob: URLs carry their bytes in the page; a failed load has no response to keep.
    if (!/^https?:/i.test(url) || p.responseErrorReason || status === undefined) {
      await this.#continue(p.requestId);
      return;
    }
    const id: string = p.networkId ?? p.requestId;
    const notes = this.#notesOf(id);
    const hop = notes.pauses++;
    const date = this.#now();
    const pausedHeaders: [string, string][] = (p.responseHeaders ?? []).map((h: { name: string; value: string }) => [h.name, h.value]);
    const requestBody = await this.#requestBody(p, id);

    let body: Buffer | { path: string; size: number } = Buffer.alloc(0);
    let answered = false;
    try {
      if (hasBody(status, pausedHeaders)) {
        const length = Number(headerValue(pausedHeaders, 'content-length') ?? NaN);
        if (length > this.#maxInMemory) {
          body = await this.#streamBody(p.requestId);
          // The stream consumed the body: the page gets it back from the spool.
          await this.#fulfill(p, status, pausedHeaders, body);
          answered = true;
        } else {
          body = await this.#wholeBody(p.requestId);
        }
      }
    } catch (err) {
      this.#root.problems.push({ url, message: `body not recorded: ${(err as Error)?.message ?? err}` });
    } finally {
      if (!answered) await this.#continue(p.requestId);
    }

    await this.#hopSettled(notes, hop);
    const reqHeaders = notes.requestExtra[hop] ?? headerList(p.request.headers);
    const extra = notes.responseExtra[hop];
    const resp = notes.responses[hop] ?? {};
    const exchange: RecordedExchange = {
      url,
      method: p.request.method ?? 'GET',
      requestHeaders: reqHeaders,
      ...(requestBody ? { requestBody } : {}),
      status,
      statusText: p.responseStatusText || resp.statusText || STATUS_CODES[status] || '',
      httpVersion: resp.protocol?.toLowerCase() === 'http/1.0' ? 'HTTP/1.0' : 'HTTP/1.1',
      responseHeaders: extra && extra.headers.length > 0 ? extra.headers : pausedHeaders,
      body,
      date,
      ...(resp.remoteAddress ? { remoteAddress: resp.remoteAddress } : {}),
      resourceType: p.resourceType ?? 'Other',
      isPageDocument: this.#root === this && p.resourceType === 'Document' && this.#mainFrameId !== null && p.frameId === this.#mainFrameId,
    };
    this.#root.#media?.observe(exchange);
    await this.#sink.exchange(exchange);
  }

  /** The request gate's answer for a request paused before it was sent. */
  async #gate(p: any): Promise<void> {
    const url: string = p.request.url;
    if (!/^https?:/i.test(url)) return this.#continue(p.requestId);
    let allowed = false;
    try {
      allowed = await this.#opts.allowRequest!(url, p.resourceType ?? 'Other');
    } catch (err) {
      this.#root.problems.push({ url, message: `request gate failed, request not sent: ${(err as Error)?.message ?? err}` });
    }
    if (allowed) return this.#continue(p.requestId);
    const root = this.#root;
    if (!root.blocked.includes(url)) root.blocked.push(url);
    // The tab may be gone: nothing left to fail.
    await this.#session.send('Fetch.failRequest', { requestId: p.requestId, errorReason: 'BlockedByClient' }).catch(() => {});
  }

  /** Until the hop's response events arrived, or the load is over, or the recorder stops. */
  async #hopSettled(n: RequestNotes, hop: number): Promise<void> {
    while (!this.#stopping && !n.done && !(n.responses.length > hop && n.responseExtra.length > hop)) {
      await new Promise<void>((resolve) => n.waiters.push(resolve));
    }
  }

  async #requestBody(p: any, id: string): Promise<Buffer | undefined> {
    const r = p.request;
    if (!r.hasPostData && r.postData === undefined) return undefined;
    if (Array.isArray(r.postDataEntries) && r.postDataEntries.length > 0) {
      return Buffer.concat(r.postDataEntries.map((e: { bytes?: string }) => Buffer.from(e.bytes ?? '', 'base64')));
    }
    if (typeof r.postData === 'string') return Buffer.from(r.postData, 'utf8');
    try {
      const got = await this.#session.send('Network.getRequestPostData', { requestId: id });
      return Buffer.from(got.postData ?? '', got.base64Encoded ? 'base64' : 'utf8');
    } catch {
      return undefined;
    }
  }

  async #wholeBody(requestId: string): Promise<Buffer | { path: string; size: number }> {
    const got = await this.#session.send('Fetch.getResponseBody', { requestId });
    const buf = Buffer.from(got.body ?? '', got.base64Encoded ? 'base64' : 'utf8');
    if (buf.length <= this.#maxInMemory) return buf;
    const w = new SpoolWriter(this.#spoolDir, 0);
    w.write(buf);
    const s = w.finish();
    return { path: s.path!, size: s.size };
  }

  async #streamBody(requestId: string): Promise<Buffer | { path: string; size: number }> {
    const { stream } = await this.#session.send('Fetch.takeResponseBodyAsStream', { requestId });
    const w = new SpoolWriter(this.#spoolDir, this.#maxInMemory);
    try {
      for (;;) {
        const chunk = await this.#session.send('IO.read', { handle: stream, size: IO_CHUNK });
        if (chunk.data) w.write(Buffer.from(chunk.data, chunk.base64Encoded ? 'base64' : 'utf8'));
        if (chunk.eof) break;
      }
    } catch (err) {
      w.abandon();
      throw err;
    } finally {
      await this.#session.send('IO.close', { handle: stream }).catch(() => {});
    }
    const s = w.finish();
    return s.path ? { path: s.path, size: s.size } : await s.read();
  }

  /**
   * Hand a streamed body back to the page. Fetch.fulfillRequest takes the body in one base64
   * string (CDP has no streaming fulfil), so this briefly holds it in memory once more.
   */
  async #fulfill(p: any, status: number, headers: [string, string][], body: Buffer | { path: string; size: number }): Promise<void> {
    const bytes = Buffer.isBuffer(body) ? body : await fsp.readFile(body.path);
    await this.#session.send('Fetch.fulfillRequest', {
      requestId: p.requestId,
      responseCode: status,
      ...(p.responseStatusText ? { responsePhrase: p.responseStatusText } : {}),
      responseHeaders: storedBodyHeaders(headers, bytes.length).map(([name, value]) => ({ name, value })),
      body: bytes.toString('base64'),
    });
  }

  async #continue(requestId: string): Promise<void> {
    // The tab may be gone (closed, navigated away): nothing left to continue.
    await this.#session.send('Fetch.continueRequest', { requestId }).catch(() => {});
  }
}

function wakeAll(n: RequestNotes): void {
  const w = n.waiters;
  n.waiters = [];
  for (const f of w) f();
}

function hopResponse(r: any): HopResponse {
  return {
    ...(r?.remoteIPAddress ? { remoteAddress: String(r.remoteIPAddress).replace(/^\[|\]$/g, '') } : {}),
    ...(r?.protocol ? { protocol: String(r.protocol) } : {}),
    ...(r?.statusText ? { statusText: String(r.statusText) } : {}),
  };
}

/** Responses that carry no body by definition (RFC 9110 §6.4.1), and redirects, which Chromium does not hand out. */
function hasBody(status: number, headers: [string, string][]): boolean {
  if (status === 204 || status === 304 || (status >= 100 && status < 200)) return false;
  if (status >= 300 && status < 400 && headerValue(headers, 'location') !== null) return false;
  return true;
}

/** The header fields of a raw HTTP/1 response head (responseReceivedExtraInfo.headersText). */
function parseHeadersText(text: string): [string, string][] {
  return parseHttpHead(Buffer.from(text, 'latin1'), { blockEnd: true })?.headers ?? [];
}
