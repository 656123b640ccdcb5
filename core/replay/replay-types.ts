/**
 * What replay is asked and what it answers. The desktop app's protocol handler and the tests
 * call the same `replay()`; these are its only types.
 */

export interface ReplayRequest {
  /** The URL the page asked for (absolute). */
  url: string;
  /** 14-digit UTC timestamp (partial allowed: `2024`, `202403`) to replay around; latest when absent. */
  at?: string;
  /** GET when absent. HEAD answers like GET without a body. */
  method?: string;
  /** Request headers; `Range` is honoured for 200 responses. */
  headers?: [string, string][];
}

/** Where a served record is: enough for the UI to show "captured …" and open the record. */
export interface CaptureRef {
  url: string;
  ts: string;
  recordId: string;
  /** warc_files.path of the file holding it. */
  file: string;
  offset: number;
  /** records.id, for recordDetail(). */
  id: number;
}

export interface ReplayResponse {
  kind: 'archived';
  status: number;
  statusText: string;
  /**
   * The archived headers in order, minus hop-by-hop fields and the fields that describe the
   * stored bytes (Transfer-Encoding, Content-Encoding, Content-Length), plus a Content-Length
   * that is right for `body`.
   */
  headers: [string, string][];
  /** De-chunked and content-decoded, ready for a browser; the stored bytes are untouched. */
  body: Buffer;
  /** The capture matched (a revisit when the payload came from elsewhere). */
  capture: CaptureRef;
  /** For a revisit: the record the body was read from. */
  payloadFrom?: CaptureRef;
  /** How it matched when the match was not exact (fuzzy rule, other scheme, …). */
  fuzzy?: string;
  /** True when the body was cut at the replay size cap. */
  truncated?: boolean;
}

/** What `replayHead` answers: a ReplayResponse without its body (see replay.ts). */
export interface ReplayHead extends Omit<ReplayResponse, 'body' | 'truncated'> {
  /**
   * Size of the body replay would serve (also the headers' Content-Length), or null when the
   * stored body is chunked or content-encoded: then only decoding it tells, and there is no
   * Content-Length among the headers.
   */
  bodyBytes: number | null;
}

export interface NearbyCapture {
  url: string;
  ts: string;
}

export interface NotArchived {
  kind: 'not-archived';
  url: string;
  at?: string;
  /** Captures of similar URLs (same path with another query, or pages of the same host). */
  nearest?: NearbyCapture[];
}

export type ReplayResult = ReplayResponse | NotArchived;
