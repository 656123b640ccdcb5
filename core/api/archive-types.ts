/**
 * The shapes the archive library hands to its callers: the desktop WARC browser (over IPC), the
 * CLI and the tests. Plain, JSON-serialisable data only, and no `node:*` imports, so the
 * renderer can import these types directly.
 */

/** One indexed WARC record, as a list row shows it. */
export interface RecordSummary {
  /** records.id: stable within the archive; also the keyset cursor. */
  id: number;
  type: string;
  recordId: string | null;
  url: string | null;
  /** 14 digits, UTC. */
  ts: string | null;
  /** WARC-Date as written. */
  date: string | null;
  mime: string | null;
  status: number | null;
  method: string | null;
  /** Record length in the file (compressed length for gzip files). */
  length: number;
  contentLength: number | null;
  payloadDigest: string | null;
  title: string | null;
  page: boolean;
  concurrentTo: string | null;
  refersTo: string | null;
  refersToUri: string | null;
  refersToDate: string | null;
  truncated: string | null;
  fileId: number;
  /** The file's display name (for WACZ entries: `name.wacz!/archive/x.warc.gz`). */
  file: string;
  offset: number;
}

/** What `queryRecords` filters on; every field narrows the result (AND). */
export interface RecordFilter {
  /** WARC-Type values, e.g. `['response', 'revisit']`. */
  type?: string[];
  /** Exactly this URL (compared by SURT key, so http/https and `www.` variants match). */
  url?: string;
  /** URLs starting with this one (SURT-key prefix, as pywb's `matchType=prefix`). */
  urlPrefix?: string;
  /** This host (any scheme or port; `www.` ignored). */
  host?: string;
  /** A MIME type (`text/html`) or a family ending in `/` (`image/`). */
  mime?: string;
  status?: number[];
  /** Inclusive bounds; partial timestamps allowed (`2024`, `202403`). */
  from?: string;
  to?: string;
  /** Full-text query over page titles and text. */
  text?: string;
}

export interface PageRequest {
  limit: number;
  /** Keyset cursor: the `next` of the previous page (a records.id). */
  after?: number;
}

export interface RecordPage {
  rows: RecordSummary[];
  /** Pass as `after` for the next page; null at the end. */
  next: number | null;
  /**
   * Matching rows in all, on the first page only (no `after`): exact when nothing is filtered,
   * otherwise counted up to 10,000 (`totalCapped` when there are more).
   */
  total?: number;
  totalCapped?: boolean;
}

export interface BodyPreview {
  kind: 'text' | 'image' | 'binary';
  /** Decoded text (for `text`), at most the preview cap. */
  text?: string;
  /** Base64 of the (decoded) bytes shown, for `image` and the head of `binary`. */
  base64?: string;
  /** Bytes of the decoded body that were read (up to the cap). */
  bytes: number;
  truncated: boolean;
  /** Set when de-chunking or decoding failed part way; what decoded is still shown. */
  note?: string;
}

export interface RecordDetail {
  row: RecordSummary;
  warcHeaders: [string, string][];
  /** HTTP headers of response/request/revisit records; empty otherwise. */
  httpHeaders: [string, string][];
  /** `HTTP/1.1 200 OK`, `GET /path HTTP/1.1`, or null when the block holds no HTTP message. */
  httpStatusLine: string | null;
  bodyPreview: BodyPreview;
  /** Records of the same WARC-Concurrent-To group (request, metadata…), not including `row`. */
  siblings: RecordSummary[];
  /** For a revisit: the record holding the payload, when the archive has it. */
  original?: RecordSummary;
}

/** One capture of a URL, for the timeline / calendar view. */
export interface CaptureSummary {
  id: number;
  ts: string;
  url: string;
  type: string;
  status: number | null;
  mime: string | null;
  payloadDigest: string | null;
  length: number;
}

export interface SearchHit {
  id: number;
  url: string | null;
  ts: string | null;
  title: string | null;
  /** Matching text, matched words between `<mark>` and `</mark>` (text is otherwise plain, not escaped). */
  snippet: string;
  /** bm25: lower is better. */
  rank: number;
  /**
   * Set when more pages matched than search ranks: the hits are the best among the matches of
   * this many pages added last (the newest), not of every match. Show it ("best of the newest N").
   */
  rankedAmong?: number;
}

/** A page's screenshot (the `urn:view:` resource record of a browser capture), ready for an <img>. */
export interface PageScreenshot {
  /** Index id of the resource record. */
  recordId: number;
  /** The page it shows. */
  url: string;
  ts: string;
  mime: string;
  /** Size of the image. */
  bytes: number;
  /** `data:<mime>;base64,…`: the renderer has no network, and its CSP allows data: images. */
  dataUrl: string;
}

export interface PageSummary {
  id: number;
  url: string;
  ts: string;
  title: string | null;
  mime: string | null;
}

export interface PageList {
  rows: PageSummary[];
  next: number | null;
}

/** A problem found while importing; the import keeps what it could read. */
export interface ImportProblem {
  /** The file given to the import (or the WACZ entry, `x.wacz!/archive/y.warc`). */
  file: string;
  /** Stable code, e.g. WARC_TRUNCATED, WACZ_HASH_MISMATCH. */
  code: string;
  message: string;
  /** Byte offset in the file where reading stopped, when known. */
  offset?: number;
}

export interface ImportedFile {
  /** As given to the import. */
  source: string;
  /** As registered in warc_files.path. */
  storedAs: string;
  kind: 'warc' | 'arc' | 'wacz-entry';
  records: number;
  pages: number;
  bytes: number;
  /** True when the file was indexed before and its old rows were replaced. */
  replaced: boolean;
  /** Non-fatal reader warnings (missing separators, skipped junk…). */
  warnings: number;
  /**
   * True when the file could not be read at record offsets (whole-file gzip) and a copy with one
   * gzip member per record was written to `warcs/` and indexed instead (`storedAs`).
   */
  recompressed?: boolean;
}

export interface ImportReport {
  files: ImportedFile[];
  records: number;
  pages: number;
  problems: ImportProblem[];
}

export interface ImportProgress {
  /** The file being imported. */
  file: string;
  /** Bytes of that file read so far, and its size. */
  bytes: number;
  total: number;
  /** Records indexed so far in this import (all files). */
  records: number;
}
