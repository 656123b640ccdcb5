/**
 * The crawler's HTTP fetcher. undici runs the connections (one Agent, keep-alive, a per-origin
 * limit, pipelining off, header and idle timeouts); a tap on each socket records the exact bytes
 * sent and received (wire-tap.ts) and a framer cuts them into head, raw body and entity
 * (response-framer.ts), spooling and digesting as they stream. Redirects are never followed.
 *
 * TLS certificates are not verified (`rejectUnauthorized: false`): archivists crawl sites with
 * expired, self-signed or mismatched certificates too, and a capture is a record of what was
 * served, not an endorsement of who served it.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import type * as Undici from 'undici';
import type { Dispatcher } from 'undici';
import { TroveError } from '../errors.ts';
import { outcomeForCode } from './fetch-errors.ts';
import { FetchRecording, resultSpools } from './fetch-recording.ts';
import type { FetchOptions, FetchRequest, FetchResult, FetchTimers, Fetcher } from './fetch-types.ts';
import { ClaimSlot, installWireTap } from './wire-tap.ts';

// Only the two parts of undici the fetcher uses. Its index loads every feature it has (fetch,
// WebSocket, EventSource, mocks, caches, HTTP/2): 28 MB of resident memory in the crawl process
// against 14 MB for the Agent and the connector. The fetcher tests fail if a new undici moves
// these files. Not named `require`: the Electron
// bundle declares one of its own at the top of the chunk (test/app/bundled-workers.test.ts).
const undiciPart = createRequire(import.meta.url);
const Agent = undiciPart('undici/lib/dispatcher/agent.js') as typeof Undici.Agent;
const buildConnector = undiciPart('undici/lib/core/connect.js') as typeof Undici.buildConnector;

export type { FetchOptions, FetchRequest, FetchResult, FetchTimers, Fetcher } from './fetch-types.ts';
export type { Spool } from './spool.ts';

export const DEFAULT_MAX_HEADER_COUNT = 1000;
export const DEFAULT_MAX_CONNECTIONS = 6;
export const DEFAULT_ACCEPT_ENCODING = 'gzip, br';

/** What one fetcher's fetches share: made once by createFetcher, read by each attempt. */
interface FetcherState {
  opts: FetchOptions;
  timers: FetchTimers;
  /** Hands each new socket's tap the recording of the request it carries (wire-tap.ts). */
  slot: ClaimSlot;
  agent: Undici.Agent;
  /** The `stop` of each attempt under way, for close. */
  inFlight: Set<(reason: TroveError) => void>;
  closed: boolean;
}

export function createFetcher(opts: FetchOptions): Fetcher {
  checkOptions(opts);
  fs.mkdirSync(opts.spoolDir, { recursive: true });
  const slot = new ClaimSlot();
  const f: FetcherState = {
    opts,
    timers: opts.timers ?? { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout) },
    slot,
    agent: openAgent(opts, slot),
    inFlight: new Set(),
    closed: false,
  };

  async function fetch(req: FetchRequest): Promise<FetchResult> {
    const startedAt = Date.now();
    const t0 = performance.now();
    const prepared = prepare(req);
    if (prepared instanceof TroveError || f.closed) {
      const err = f.closed ? new TroveError('FETCH_ABORTED', 'fetcher is closed') : (prepared as TroveError);
      return failedBeforeSending(req.url, startedAt, performance.now() - t0, err);
    }
    const first = await attempt(f, req, prepared, startedAt, t0);
    if (!first.retry || f.closed) return first.result;
    // A keep-alive connection the server had already closed: nothing of this request reached
    // it, so try once on a fresh connection (what browsers do).
    await Promise.all(resultSpools(first.result).map((s) => s.dispose()));
    return (await attempt(f, req, prepared, startedAt, t0)).result;
  }

  async function close(): Promise<void> {
    f.closed = true;
    for (const stop of [...f.inFlight]) stop(new TroveError('FETCH_ABORTED', 'fetcher closed'));
    await f.agent.destroy();
  }

  return { fetch, close };
}

/** undici's Agent over a connector whose sockets get the wire tap. */
function openAgent(opts: FetchOptions, slot: ClaimSlot): Undici.Agent {
  const connector = buildConnector({
    rejectUnauthorized: false, // see the file comment
    allowH2: false, // HTTP/1.1 only: the tap and the framer read HTTP/1 bytes
    timeout: opts.connectTimeoutMs,
    ...(opts.lookup ? { lookup: opts.lookup } : {}),
  });
  return new Agent({
    connect(options, callback) {
      connector(options, (...args) => {
        if (args[0] === null) installWireTap(args[1], slot);
        callback(...args);
      });
    },
    connections: opts.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    pipelining: 1,
    headersTimeout: opts.headersTimeoutMs,
    bodyTimeout: opts.idleTimeoutMs,
    // undici counts only field names and values; our framer counts the whole head against the
    // same limit, so it trips first and reports the precise error.
    maxHeaderSize: opts.maxHeaderBytes,
  });
}

/**
 * One request on the agent, recorded from the wire; settles once, on the response's end or
 * error, a stop (timeout, the caller's abort, close) or a throw of dispatch. `retry` says the
 * request may be sent again: its keep-alive connection was found closed before any of it went out.
 */
function attempt(f: FetcherState, req: FetchRequest, dispatch: Dispatcher.DispatchOptions, startedAt: number, t0: number): Promise<{ result: FetchResult; retry: boolean }> {
  const { opts, timers, slot, inFlight } = f;
  return new Promise((resolve) => {
    let controller: Dispatcher.DispatchController | null = null;
    let stopReason: TroveError | null = null;
    let settled = false;

    const recording = new FetchRecording({
      url: req.url,
      method: dispatch.method,
      maxHeaderBytes: opts.maxHeaderBytes,
      maxHeaderCount: opts.maxHeaderCount ?? DEFAULT_MAX_HEADER_COUNT,
      maxBodyBytes: Math.min(opts.maxBodyBytes, req.maxBodyBytes ?? Infinity),
      ...(req.bodyLimitForHead ? { bodyLimitForHead: req.bodyLimitForHead } : {}),
      spoolDir: opts.spoolDir,
      spoolMemoryBytes: opts.spoolMemoryBytes,
      onStop: (reason) => stop(reason),
    });

    const settle = (undiciError: unknown): void => {
      if (settled) return;
      settled = true;
      timers.clearTimeout(timer);
      req.signal?.removeEventListener('abort', onAbort);
      inFlight.delete(stop);
      let result: FetchResult;
      try {
        result = recording.finish({ stopReason, undiciError, startedAt, durationMs: Math.round(performance.now() - t0) });
      } catch (err) {
        recording.abandon();
        result = failedBeforeSending(req.url, startedAt, performance.now() - t0, new TroveError('FETCH_FAILED', String((err as Error)?.message ?? err), {}, { cause: err }));
      }
      const retry = result.error?.code === 'FETCH_CONNECTION_LOST' && stopReason === null && recording.retryable;
      resolve(recording.storedPayloadDigest(result).then((r) => ({ result: r, retry })));
    };

    function stop(reason: TroveError): void {
      if (settled || stopReason !== null) return;
      stopReason = reason;
      // abort() reports back through onResponseError synchronously; if undici had already
      // finished with the request it does nothing, and we settle here.
      controller?.abort(reason);
      settle(null);
    }

    const onAbort = (): void => stop(new TroveError('FETCH_ABORTED', 'fetch aborted by the caller'));
    const timer = timers.setTimeout(() => stop(new TroveError('FETCH_TIMEOUT_TOTAL', `fetch took longer than ${opts.fetchTimeoutMs} ms`)), opts.fetchTimeoutMs);
    inFlight.add(stop);
    if (req.signal?.aborted) onAbort();
    else req.signal?.addEventListener('abort', onAbort, { once: true });
    if (settled) return;

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        if (stopReason !== null) {
          c.abort(stopReason);
          return;
        }
        controller = c;
        slot.offer(recording);
      },
      // Status, headers and body come from the wire bytes (the recording); undici's parsed
      // copies are not needed. Never pausing also keeps undici from buffering on our behalf.
      onResponseStart() {},
      onResponseData() {},
      onResponseEnd() {
        settle(null);
      },
      onResponseError(_c, err) {
        settle(err);
      },
    };
    try {
      f.agent.dispatch(dispatch, handler);
    } catch (err) {
      settle(err);
    }
  });
}

/** Validate the URL and build undici's dispatch options, or say why not. */
function prepare(req: FetchRequest): Dispatcher.DispatchOptions | TroveError {
  const url = req.parsed ?? URL.parse(req.url);
  if (url === null) return new TroveError('FETCH_BAD_URL', `not a URL: ${String(req.url).slice(0, 200)}`);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return new TroveError('FETCH_BAD_URL', `unsupported scheme ${url.protocol}`);
  }
  const headers: string[] = [];
  let hasAcceptEncoding = false;
  for (const [name, value] of req.headers) {
    if (name.toLowerCase() === 'accept-encoding') hasAcceptEncoding = true;
    headers.push(name, value);
  }
  if (!hasAcceptEncoding) headers.push('Accept-Encoding', DEFAULT_ACCEPT_ENCODING);
  return {
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    method: req.method ?? 'GET',
    headers,
  };
}

function failedBeforeSending(url: string, startedAt: number, durationMs: number, err: TroveError): FetchResult {
  return {
    url,
    startedAt,
    durationMs: Math.round(durationMs),
    remoteAddress: null,
    outcome: outcomeForCode(err.code),
    error: { code: err.code, message: err.message },
    status: null,
    statusText: null,
    httpVersion: null,
    headers: [],
    requestHead: Buffer.alloc(0),
    responseHead: null,
    body: null,
    entity: null,
    truncated: null,
    blockDigest: null,
    payloadDigest: null,
    bytesReceived: 0,
  };
}

function checkOptions(opts: FetchOptions): void {
  const positive = ['connectTimeoutMs', 'headersTimeoutMs', 'idleTimeoutMs', 'fetchTimeoutMs', 'maxHeaderBytes'] as const;
  for (const k of positive) {
    if (!Number.isFinite(opts[k]) || opts[k] <= 0) throw new TroveError('FETCH_BAD_OPTIONS', `${k} must be a positive number`, { [k]: opts[k] });
  }
  if (!Number.isFinite(opts.maxBodyBytes) || opts.maxBodyBytes < 0) {
    throw new TroveError('FETCH_BAD_OPTIONS', 'maxBodyBytes must be zero or more', { maxBodyBytes: opts.maxBodyBytes });
  }
  if (typeof opts.spoolDir !== 'string' || opts.spoolDir === '') throw new TroveError('FETCH_BAD_OPTIONS', 'spoolDir is required');
}
