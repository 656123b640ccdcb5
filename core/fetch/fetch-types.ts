/**
 * The fetcher's public shapes. Kept apart from fetcher.ts so the WARC writer, the crawl loop
 * and tests can import the types without pulling in undici.
 */
import type { LookupFunction } from 'node:net';
import type { ResponseHead } from '../formats/http-head.ts';
import type { Spool } from './spool.ts';

export interface FetchOptions {
  /** DNS + TCP + TLS handshake. */
  connectTimeoutMs: number;
  /** From the request written to the end of the response head. */
  headersTimeoutMs: number;
  /** Longest silence between two body reads. */
  idleTimeoutMs: number;
  /** Whole fetch, from the call to the last byte (includes waiting for a free connection). */
  fetchTimeoutMs: number;
  /** Raw body bytes kept; past this the body is cut (`truncated: 'length'`). */
  maxBodyBytes: number;
  /** Whole response head (status line, fields, line ends). */
  maxHeaderBytes: number;
  /** Header fields in the response head. Default 1000. */
  maxHeaderCount?: number;
  /** Directory for bodies too large for memory. Created if missing. */
  spoolDir: string;
  /** Bytes of a body held in memory before it goes to a temp file. Default 1 MiB. */
  spoolMemoryBytes?: number;
  /** Connections per origin (scheme, host, port). Default 6. */
  maxConnections?: number;
  /** DNS lookup override (same contract as net.connect's `lookup`), e.g. a caching resolver. */
  lookup?: LookupFunction;
  /**
   * The timer behind `fetchTimeoutMs`. Default: the global setTimeout/clearTimeout. Tests pass
   * their own to make the deadline pass at a chosen moment instead of racing a wall clock.
   */
  timers?: FetchTimers;
}

export interface FetchTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface FetchRequest {
  url: string;
  /**
   * `url` WHATWG-parsed by the caller already (the crawl URI's one parse), so the fetcher need
   * not parse it again. The caller owns it; the fetcher only reads it.
   */
  parsed?: URL;
  method?: 'GET' | 'HEAD';
  /**
   * Request headers in the order they should be sent. The caller sets User-Agent, From, Accept,
   * If-None-Match…; the fetcher adds `Accept-Encoding: gzip, br` when absent. undici writes the
   * Host line itself, first, from the URL (or from a `Host` header given here).
   */
  headers: [string, string][];
  signal?: AbortSignal;
  /** A lower body cut than the fetcher's `maxBodyBytes` for this request (media limits). */
  maxBodyBytes?: number;
  /**
   * A lower body cut decided from the response head, before any body byte is kept (the media
   * limit for a response that says it is audio or video); null keeps the request's cut.
   */
  bodyLimitForHead?: (head: ResponseHead) => number | null;
}

export interface FetchResult {
  url: string;
  /** Epoch ms when fetch() was called. */
  startedAt: number;
  durationMs: number;
  /** Peer IP address of the socket the request went out on. */
  remoteAddress: string | null;
  /** HTTP status, or a negative code from core/crawl/outcome-codes.ts. */
  outcome: number;
  /** Why there is no complete response: stable code (FETCH_CONNECT_FAILED, FETCH_TIMEOUT_IDLE…). */
  error: { code: string; message: string } | null;
  status: number | null;
  /** Reason phrase as sent. */
  statusText: string | null;
  /** `1.1`, `1.0`, from the status line. */
  httpVersion: string | null;
  /** As received: wire order and case, duplicates kept. */
  headers: [string, string][];
  /** Exact bytes of the request line and headers sent (ends CRLF CRLF); empty if nothing was sent. */
  requestHead: Buffer;
  /** Exact bytes of the status line and headers received (ends with the empty line). */
  responseHead: Buffer | null;
  /**
   * Raw body bytes exactly as received after the head (chunk framing kept when the server
   * chunked). When no complete head arrived (garbage instead of a status line, a timeout
   * mid-head), `responseHead` is null and `body` holds the bytes that did arrive, if any, so
   * the caller can decide whether to archive the prefix; after a head over the size or count
   * limits it is null.
   */
  body: Spool | null;
  /**
   * Body with transfer-coding removed (same object as `body` when not chunked); content-coding
   * kept. When the chunk framing broke, what decoded before the bad byte.
   */
  entity: Spool | null;
  /** Why the body is shorter than the server meant it to be. */
  truncated: 'length' | 'time' | 'disconnect' | null;
  /** `sha1:` + base32 of responseHead + body (the WARC response block). */
  blockDigest: string | null;
  /**
   * `sha1:` + base32 of the WARC payload: the entity, or the body as received when its chunk
   * framing broke and the transfer coding cannot be removed (docs/FORMATS.md).
   */
  payloadDigest: string | null;
  /** Bytes received on the wire for this request (heads, body, anything after). */
  bytesReceived: number;
}

export interface Fetcher {
  /** Never rejects: failures come back as `outcome` + `error`. Dispose the spools when done. */
  fetch(req: FetchRequest): Promise<FetchResult>;
  /** Abort fetches in flight and close all connections. */
  close(): Promise<void>;
}
