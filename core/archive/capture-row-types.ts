/**
 * The shapes of a capture-index row, in a file that imports nothing: a record to index
 * (RecordRow), an indexed record as lookups give it (CaptureRow), and a `records` row as SQLite
 * returns it (CaptureDbRow). The index, its statements, its folds, its scans and the record
 * queries all speak these; kept here, none of them has to import another to name a row, so the
 * archive room has no import circle (test/architecture/import-circles.test.ts).
 */
/** One WARC record to index. */
export interface RecordRow {
  fileId: number;
  offset: number;
  length: number;
  recordType: string;
  recordId: string | null;
  targetUri: string | null;
  /** SURT key, pywb style (`com,example)/path?a=1`). */
  urlkey: string | null;
  /** 14 digits, UTC, from WARC-Date. */
  ts: string | null;
  /** WARC-Date as written. */
  date: string | null;
  mime: string | null;
  status: number | null;
  payloadDigest: string | null;
  refersTo?: string | null;
  refersToUri?: string | null;
  refersToDate?: string | null;
  concurrentTo?: string | null;
  method?: string | null;
  contentLength?: number | null;
  truncated?: string | null;
  title?: string | null;
  /** An HTML 200 page (listed in pages.jsonl, shown as a page in the UI). */
  page?: boolean;
}

/** An indexed record with its id and file, as lookups return it: every field of the row present. */
export interface CaptureRow extends Required<RecordRow> {
  id: number;
  /** As stored in warc_files.path: relative to the archive dir for crawl files, absolute for imports by reference. */
  filePath: string;
  fileName: string;
}

export interface CaptureDbRow {
  id: number;
  file_id: number;
  file_path: string;
  file_name: string;
  offset: number;
  length: number;
  record_type: string;
  record_id: string | null;
  target_uri: string | null;
  urlkey: string | null;
  ts: string | null;
  /** As stored (capture-date-key.ts dateKey): read it through dateFromKey with `ts`. */
  date: string | Buffer | null;
  mime: string | null;
  status: number | null;
  /** As stored (formats/digest.ts digestKey): read it through digestFromKey. */
  payload_digest: string | Buffer | null;
  refers_to: string | null;
  refers_to_uri: string | null;
  refers_to_date: string | null;
  concurrent_to: string | null;
  method: string | null;
  content_length: number | null;
  truncated: string | null;
  title: string | null;
  page: number;
}
