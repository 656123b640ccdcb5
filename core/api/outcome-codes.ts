/**
 * One outcome per URI, in Heritrix's vocabulary: a positive number is the HTTP status that was
 * fetched; a negative number says why there is no (complete) HTTP response. Values are the ones
 * Heritrix's FetchStatusCodes uses, so people who script against crawl.log keep their habits.
 * The catalogue lives in api, below both rooms that use it: the fetcher gives its failures these
 * codes, the crawl logs and counts them, the app shows them.
 */
export const Outcome = {
  /** DNS lookup failed. */
  DOMAIN_UNRESOLVABLE: -1,
  /** TCP/TLS connect failed or was refused. */
  CONNECT_FAILED: -2,
  /** Connection broken after it was made (reset mid-response, malformed HTTP). */
  CONNECT_LOST: -3,
  /** A timeout (connect, headers, idle body or whole fetch). */
  TIMEOUT: -4,
  /** Unexpected runtime error while processing the URI. */
  RUNTIME_EXCEPTION: -5,
  /** Prerequisite (robots.txt) could not be fetched, URI not attempted this round. */
  PREREQUISITE_UNSCHEDULABLE_FAILURE: -6,
  /** The URI could not be parsed or has an unsupported scheme. */
  UNFETCHABLE_URI: -7,
  /** Retries exhausted. */
  TOO_MANY_RETRIES: -8,
  /** Malformed HTTP from the server (no status line, bad chunking, header overflow). */
  HTTP_PROTOCOL_ERROR: -50,
  /** Body cut at --max-body-bytes (recorded as WARC-Truncated: length; the HTTP code is kept). */
  OVER_SIZE_LIMIT: -51,
  /** Out of scope (rejected by a decide rule). */
  OUT_OF_SCOPE: -5000,
  /** Blocked by a user-configured filter (e.g. MIME or length rule after fetch). */
  BLOCKED_BY_USER: -5001,
  /** Blocked by a custom processor or trap rule. */
  BLOCKED_BY_CUSTOM_PROCESSOR: -5002,
  /** Crawl-wide limit reached before this URI was fetched. */
  BLOCKED_BY_QUOTA: -5003,
  /** Deleted from the frontier by the operator. */
  DELETED_BY_USER: -6000,
  /** Robots.txt forbids this URI for our agent. */
  ROBOTS_PRECLUDED: -9998,
  /** The URL is longer than the configured maximum (2083 by default). */
  URL_TOO_LONG: -7001,
  /**
   * Trove's own: a response of the login's site said the login had ended (--logged-in-check).
   * Nothing was archived; the URI went back to the queue and is fetched again on resume.
   */
  LOGGED_OUT: -7002,
} as const;

export type OutcomeCode = (typeof Outcome)[keyof typeof Outcome] | number;

const names = new Map<number, string>(Object.entries(Outcome).map(([k, v]) => [v, k]));

/** Human name for an outcome code: `HTTP 404` or `ROBOTS_PRECLUDED`. */
export function outcomeName(code: number): string {
  if (code > 0) return `HTTP ${code}`;
  return names.get(code) ?? `UNKNOWN_${code}`;
}
