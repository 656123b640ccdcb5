/**
 * Maps whatever ended a fetch (undici errors, socket errors, DNS errors, our own TroveErrors)
 * to a stable error code and a Heritrix outcome code, so crawl.log and scripts see the same
 * vocabulary whichever layer noticed the problem first.
 */
import { isTroveError } from '../errors.ts';
import { Outcome } from '../api/outcome-codes.ts';

export interface FetchFailure {
  /** Negative outcome code from core/crawl/outcome-codes.ts. */
  outcome: number;
  /** Stable UPPER_SNAKE code, e.g. FETCH_CONNECT_FAILED. */
  code: string;
  message: string;
  /** How a body cut short by this failure is labelled (WARC-Truncated). */
  truncation: 'time' | 'disconnect';
}

/** Outcome for each code the fetcher raises itself or maps to. */
const OUTCOME_BY_CODE: Record<string, number> = {
  FETCH_BAD_URL: Outcome.UNFETCHABLE_URI,
  FETCH_INVALID_REQUEST: Outcome.RUNTIME_EXCEPTION,
  FETCH_DNS_FAILED: Outcome.DOMAIN_UNRESOLVABLE,
  FETCH_CONNECT_FAILED: Outcome.CONNECT_FAILED,
  FETCH_TLS_FAILED: Outcome.CONNECT_FAILED,
  FETCH_CONNECTION_LOST: Outcome.CONNECT_LOST,
  FETCH_TIMEOUT_CONNECT: Outcome.TIMEOUT,
  FETCH_TIMEOUT_HEADERS: Outcome.TIMEOUT,
  FETCH_TIMEOUT_IDLE: Outcome.TIMEOUT,
  FETCH_TIMEOUT_TOTAL: Outcome.TIMEOUT,
  FETCH_BAD_STATUS_LINE: Outcome.HTTP_PROTOCOL_ERROR,
  FETCH_BAD_HEADERS: Outcome.HTTP_PROTOCOL_ERROR,
  FETCH_BAD_CHUNKING: Outcome.HTTP_PROTOCOL_ERROR,
  FETCH_BAD_HTTP: Outcome.HTTP_PROTOCOL_ERROR,
  FETCH_HEADERS_TOO_LARGE: Outcome.HTTP_PROTOCOL_ERROR,
  FETCH_TOO_MANY_HEADERS: Outcome.HTTP_PROTOCOL_ERROR,
  FETCH_ABORTED: Outcome.RUNTIME_EXCEPTION,
  FETCH_SPOOL_FAILED: Outcome.RUNTIME_EXCEPTION,
  FETCH_FAILED: Outcome.RUNTIME_EXCEPTION,
};

/** The outcome for one of the fetcher's error codes (RUNTIME_EXCEPTION when unknown). */
export function outcomeForCode(code: string): number {
  return OUTCOME_BY_CODE[code] ?? Outcome.RUNTIME_EXCEPTION;
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA', 'EAI_ADDRFAMILY', 'ENODATA']);
const CONNECT_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'EADDRNOTAVAIL', 'ECONNABORTED']);
const LOST_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'ERR_STREAM_PREMATURE_CLOSE']);

/** Classify an error that ended a fetch. */
export function classifyFetchError(err: unknown): FetchFailure {
  const e = (err ?? {}) as { code?: unknown; message?: unknown; errors?: unknown };
  const message = typeof e.message === 'string' && e.message !== '' ? e.message : String(err);
  const failure = (code: string, truncation: 'time' | 'disconnect' = 'disconnect'): FetchFailure => ({
    outcome: outcomeForCode(code),
    code,
    message,
    truncation,
  });

  if (isTroveError(err)) return failure(err.code, err.code.startsWith('FETCH_TIMEOUT') ? 'time' : 'disconnect');

  const code = errorCode(err);
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return failure('FETCH_TIMEOUT_CONNECT', 'time');
    case 'UND_ERR_HEADERS_TIMEOUT':
      return failure('FETCH_TIMEOUT_HEADERS', 'time');
    case 'UND_ERR_BODY_TIMEOUT':
      return failure('FETCH_TIMEOUT_IDLE', 'time');
    case 'UND_ERR_HEADERS_OVERFLOW':
      return failure('FETCH_HEADERS_TOO_LARGE');
    case 'UND_ERR_ABORTED':
    case 'ABORT_ERR':
      return failure('FETCH_ABORTED');
    case 'UND_ERR_INVALID_ARG':
      return failure('FETCH_INVALID_REQUEST');
  }
  if (code !== undefined) {
    if (DNS_CODES.has(code)) return failure('FETCH_DNS_FAILED');
    if (CONNECT_CODES.has(code)) return failure('FETCH_CONNECT_FAILED');
    if (LOST_CODES.has(code)) return failure('FETCH_CONNECTION_LOST');
    if (code.startsWith('HPE_')) return failure(code.includes('CHUNK') ? 'FETCH_BAD_CHUNKING' : 'FETCH_BAD_HTTP');
    if (code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS') || code === 'EPROTO') return failure('FETCH_TLS_FAILED');
  }
  return failure('FETCH_FAILED');
}

/**
 * The code of an error, looking inside AggregateError (happy-eyeballs connects report one per
 * address tried) and `cause` chains.
 */
function errorCode(err: unknown, depth = 0): string | undefined {
  if (err === null || typeof err !== 'object' || depth > 4) return undefined;
  const e = err as { code?: unknown; errors?: unknown; cause?: unknown; name?: unknown };
  if (typeof e.code === 'string' && e.code !== '') return e.code;
  if (Array.isArray(e.errors)) {
    for (const inner of e.errors) {
      const c = errorCode(inner, depth + 1);
      if (c !== undefined) return c;
    }
  }
  if (e.name === 'AbortError') return 'ABORT_ERR';
  return errorCode(e.cause, depth + 1);
}
