/**
 * The catalogue of Trove's error codes: every code a TroveError may carry, one `as const` list
 * per room that raises it, and the one mapping from a code to a `trove` exit status. Codes are a
 * contract (scripts, the app and tests branch on them, never on message text), so a new code is
 * added here first and the compiler refuses a TroveError whose code is not listed. It lives in
 * core/api because the renderer and the CLI both read codes, and api is the layer every room
 * may import.
 */

/** Opening and migrating SQLite files, owner locks, stored settings (core/storage). */
export const STORAGE_ERRORS = [
  'DB_META_CORRUPT',
  'DB_META_UNSERIALIZABLE',
  'DB_NEEDS_MIGRATION',
  'DB_NOT_A_DATABASE',
  'DB_OPEN_FAILED',
  'DB_ROBOTS_CORRUPT',
  'DB_ROBOTS_UNSERIALIZABLE',
  'DB_TOO_NEW',
  'LOCK_CONTENDED',
] as const;

/** Writing, reading, checking and recovering WARC files (core/warc). */
export const WARC_ERRORS = [
  'WARC_BAD_FIELD',
  'WARC_BAD_FILE_NAME',
  'WARC_BAD_OPTIONS',
  'WARC_BAD_RECORD',
  'WARC_BLOCK_DIGEST_MISMATCH',
  'WARC_BLOCK_DIGEST_REQUIRED',
  'WARC_BLOCK_LENGTH_MISMATCH',
  'WARC_NOT_OPEN_FILE',
  'WARC_RECOVER_FAILED',
  'WARC_RECOVER_TARGET_EXISTS',
  'WARC_WRITER_CLOSED',
  'WARC_WRITE_FAILED',
] as const;

/**
 * The WARC/ARC reader's fatal errors (warc/read-errors.ts): the iterator yielded every good
 * record before the broken point, and `details.offset` says where reading could not go on.
 */
export const WARC_READ_ERRORS = [
  /** The file does not start with a WARC version line or an ARC `filedesc://` record. */
  'WARC_BAD_VERSION',
  /** A header block that cannot be parsed (no end in sight, binary garbage, bad ARC header line). */
  'WARC_BAD_HEADER',
  /** The file ends inside a record or a gzip member. */
  'WARC_TRUNCATED',
  /** Corrupt gzip data: bad header, bad deflate stream, CRC or size mismatch. */
  'WARC_BAD_GZIP',
  /** Bytes after the last record (or after the last gzip member) that are not a record. */
  'WARC_TRAILING_DATA',
  /** The file cannot be opened or read (also an I/O error in the middle of it). */
  'WARC_OPEN_FAILED',
  /** A record's block was read after the iterator moved past it. */
  'WARC_BLOCK_GONE',
] as const;

/** The HTTP fetcher and its body spool (core/fetch). */
export const FETCH_ERRORS = [
  'FETCH_ABORTED',
  'FETCH_BAD_CHUNKING',
  'FETCH_BAD_HEADERS',
  'FETCH_BAD_HTTP',
  'FETCH_BAD_OPTIONS',
  'FETCH_BAD_STATUS_LINE',
  'FETCH_BAD_URL',
  'FETCH_BODY_LIMIT',
  'FETCH_CONNECTION_LOST',
  'FETCH_FAILED',
  'FETCH_HEADERS_TOO_LARGE',
  'FETCH_SPOOL_FAILED',
  'FETCH_TIMEOUT_TOTAL',
  'FETCH_TOO_MANY_HEADERS',
  /** A cookies.txt (--cookies) that cannot be read or parsed (core/formats/cookies-txt.ts). */
  'COOKIES_FILE_INVALID',
  'SPOOL_DISPOSED',
] as const;

/** URL parsing and scope rules (core/scope). */
export const SCOPE_ERRORS = [
  'SCOPE_BAD_CANDIDATE',
  'SCOPE_BAD_HOPS_PATH',
  'SCOPE_BAD_REGEX',
  'SCOPE_BAD_RULE',
  'SCOPE_BAD_SETTING',
  'URL_INVALID',
  'URL_UNSUPPORTED_SCHEME',
] as const;

/** Robots policies, robots state and agent names (core/robots). */
export const ROBOTS_ERRORS = [
  'ROBOTS_AGENT_INVALID',
  'ROBOTS_CUSTOM_MISSING',
  'ROBOTS_POLICY_UNKNOWN',
  'ROBOTS_STATE_INVALID',
  'ROBOTS_URL_INVALID',
] as const;

/** The link extractor's worker pool (core/extract). */
export const EXTRACT_ERRORS = ['EXTRACT_POOL_CLOSED'] as const;

/** The URI frontier, SQLite or PostgreSQL (core/frontier). */
export const FRONTIER_ERRORS = [
  'FRONTIER_BAD_CANDIDATE',
  'FRONTIER_BAD_CRAWL',
  'FRONTIER_BAD_LIMIT',
  'FRONTIER_BAD_OUTCOME',
  'FRONTIER_BAD_TIME',
  'FRONTIER_CLOSED',
  'FRONTIER_DB_TIMEOUT',
  'FRONTIER_DB_UNAVAILABLE',
  'FRONTIER_INCONSISTENT',
  'FRONTIER_NOT_IN_FLIGHT',
  'QUEUE_POLICY_INVALID',
] as const;

/** Archives, their capture index, imports and WACZ reading (core/archive). */
export const ARCHIVE_ERRORS = [
  'ARCHIVE_BUSY',
  'ARCHIVE_NOT_A_DIRECTORY',
  'ARCHIVE_NOT_FOUND',
  'ARCHIVE_NOT_OPEN',
  'CAPTURE_BAD_FILE',
  'CAPTURE_BAD_RECORD',
  'CAPTURE_BAD_TIMESTAMP',
  'CAPTURE_FILE_EXISTS',
  'CAPTURE_NO_FILE',
  'CAPTURE_NO_RECORD',
  'CDXJ_BAD_LINE',
  'IMPORT_COPY_FAILED',
  'QUERY_BAD_FILTER',
  'QUERY_BAD_PAGE',
  'QUERY_NO_RECORD',
  'SEARCH_QUERY_INVALID',
  'WACZ_BAD_DATAPACKAGE',
  'WACZ_ENTRY_CRC_MISMATCH',
  'WACZ_ENTRY_SIZE_MISMATCH',
  'WACZ_ENTRY_TOO_LARGE',
  'WACZ_ENTRY_TRUNCATED',
  'WACZ_ENTRY_UNREADABLE',
  'WACZ_ENTRY_UNSUPPORTED',
  'WACZ_ENTRY_WRITE_FAILED',
  'WACZ_NO_DATAPACKAGE',
  'WACZ_OPEN_FAILED',
  'WACZ_RESOURCE_MISSING',
  'WACZ_UNSAFE_PATH',
] as const;

/** Crawl directories, settings and the crawl loop (core/crawl). */
export const CRAWL_ERRORS = [
  'CRAWL_DIR_LOCKED',
  'CRAWL_DIR_UNWRITABLE',
  'CRAWL_NOT_FOUND',
  'CRAWL_STOPPED',
  'EXCLUDE_NOT_TAKEN',
  'DEDUP_SOURCE_INVALID',
  'SETTINGS_INVALID',
  /** A recrawl schedule that is not daily, weekly or a cron expression croner reads. */
  'SCHEDULE_INVALID',
] as const;

/** WACZ, CDXJ, WARC-subset, mirror and report exports (core/export). */
export const EXPORT_ERRORS = [
  'EXPORT_BAD_FILTER',
  'EXPORT_BAD_LINE',
  'EXPORT_CRAWL_RUNNING',
  'EXPORT_FIXITY_MISMATCH',
  'EXPORT_SIGN_KEY_INVALID',
  'EXPORT_SIGN_KEY_UNSUPPORTED',
  'EXPORT_SIZE_MISMATCH',
  'EXPORT_SOURCE_SHORT',
  'EXPORT_TARGET_NOT_EMPTY',
  'EXPORT_UNSAFE_PATH',
  'EXPORT_WARC_MISSING',
  'EXPORT_WARC_UNKNOWN_SIZE',
  'EXPORT_WRITE_FAILED',
  'EXPORT_ZIP_BAD_NAME',
  'EXPORT_ZIP_BAD_OPTIONS',
  'EXPORT_ZIP_BUSY',
  'EXPORT_ZIP_CLOSED',
  'EXPORT_ZIP_DUPLICATE',
] as const;

/** The app service, its library, workers and IPC gate (core/app, core/api, electron/main). */
export const APP_ERRORS = [
  /** A long operation (import, check, export) stopped at the user's request; it left nothing half-written. */
  'CANCELLED',
  'CRAWL_NOT_RUNNING',
  'CRAWL_RUNNING',
  'CRAWL_START_FAILED',
  'DELETE_EXPIRED',
  'DELETE_NOT_CONFIRMED',
  'EXPORT_FAILED',
  'EXPORT_FOLDER_INVALID',
  'FORBIDDEN_SENDER',
  'IMPORT_FAILED',
  'IMPORT_RUNNING',
  'INTERNAL',
  'LIBRARY_BAD_ID',
  'LIBRARY_FULL',
  'LIBRARY_NOT_FOUND',
  'NOT_AVAILABLE',
  'NOT_A_CRAWL',
  'PAYLOAD_INVALID',
  /** A QA run or patch is already under way on the archive (one at a time). */
  'QA_RUNNING',
  'RECORDING',
  'RECORD_BAD_URL',
  'RECORD_NOT_RUNNING',
  'RECORD_NO_ARCHIVE',
  'SEED_INVALID',
  'UNKNOWN_COMMAND',
] as const;

/** Browser capture over CDP (core/browser): no Chromium to launch, a browser that died, a page that would not load, a capture cut short. */
export const BROWSER_ERRORS = [
  'BROWSER_CAPTURE_ABORTED',
  'BROWSER_CLOSED',
  'BROWSER_GONE',
  'BROWSER_LAUNCH_FAILED',
  'BROWSER_NAVIGATION_FAILED',
  'BROWSER_NOT_FOUND',
] as const;

/** Browser profiles in the library (core/storage/profile-store.ts, `trove profile`). */
export const PROFILE_ERRORS = [
  /** Not a profile name (letters, digits, `.`, `_`, `-`; at most 64). */
  'PROFILE_BAD_NAME',
  'PROFILE_EXISTS',
  'PROFILE_NOT_FOUND',
  /** A profile's files cannot be read or written. */
  'PROFILE_IO_FAILED',
  /** `trove profile create` needs a display for its visible window. */
  'PROFILE_NO_DISPLAY',
] as const;

/** Quality assurance of an archive and its patch crawl (core/qa, core/archive/qa-store.ts). */
export const QA_ERRORS = [
  /** The pages asked for (filters, --pages) are none: nothing to score. */
  'QA_NO_PAGES',
  /** `trove qa` results asked for before any run. */
  'QA_NO_RESULTS',
  /** A run stopped by its signal. */
  'QA_ABORTED',
  /** The QA results file cannot be opened or read. */
  'QA_STORE_FAILED',
] as const;

/** The `trove` command line (core/cli): commander's usage errors and a bad --out. */
export const CLI_ERRORS = ['CLI_USAGE', 'CRAWL_OUT_INVALID'] as const;

export type StorageErrorCode = (typeof STORAGE_ERRORS)[number];
export type WarcErrorCode = (typeof WARC_ERRORS)[number];
export type WarcReadErrorCode = (typeof WARC_READ_ERRORS)[number];
export type FetchErrorCode = (typeof FETCH_ERRORS)[number];
export type ScopeErrorCode = (typeof SCOPE_ERRORS)[number];
export type RobotsErrorCode = (typeof ROBOTS_ERRORS)[number];
export type ExtractErrorCode = (typeof EXTRACT_ERRORS)[number];
export type FrontierErrorCode = (typeof FRONTIER_ERRORS)[number];
export type ArchiveErrorCode = (typeof ARCHIVE_ERRORS)[number];
export type CrawlErrorCode = (typeof CRAWL_ERRORS)[number];
export type ExportErrorCode = (typeof EXPORT_ERRORS)[number];
export type AppErrorCode = (typeof APP_ERRORS)[number];
export type BrowserErrorCode = (typeof BROWSER_ERRORS)[number];
export type QaErrorCode = (typeof QA_ERRORS)[number];
export type CliErrorCode = (typeof CLI_ERRORS)[number];
export type ProfileErrorCode = (typeof PROFILE_ERRORS)[number];

/** Every code a TroveError may carry. */
export type ErrorCode =
  | StorageErrorCode
  | WarcErrorCode
  | WarcReadErrorCode
  | FetchErrorCode
  | ScopeErrorCode
  | RobotsErrorCode
  | ExtractErrorCode
  | FrontierErrorCode
  | ArchiveErrorCode
  | CrawlErrorCode
  | ExportErrorCode
  | AppErrorCode
  | BrowserErrorCode
  | ProfileErrorCode
  | QaErrorCode
  | CliErrorCode;

export const ERROR_CODES: readonly ErrorCode[] = [
  ...STORAGE_ERRORS,
  ...WARC_ERRORS,
  ...WARC_READ_ERRORS,
  ...FETCH_ERRORS,
  ...SCOPE_ERRORS,
  ...ROBOTS_ERRORS,
  ...EXTRACT_ERRORS,
  ...FRONTIER_ERRORS,
  ...ARCHIVE_ERRORS,
  ...CRAWL_ERRORS,
  ...EXPORT_ERRORS,
  ...APP_ERRORS,
  ...BROWSER_ERRORS,
  ...PROFILE_ERRORS,
  ...QA_ERRORS,
  ...CLI_ERRORS,
];

const KNOWN = new Set<string>(ERROR_CODES);

/** True for a code in the catalogue (a code that crossed a worker or process boundary as text). */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && KNOWN.has(code);
}

/** A code the CLI maps to an exit status: a catalogue code, or commander's own (help, version, usage). */
export type CliCode = ErrorCode | `commander.${string}`;

/**
 * Exit status of `trove` for an error code, the one mapping every command uses:
 * 0 commander printed help or the version; 2 nothing was done, because the command line was
 * wrong (a bad flag, value, URL, setting, filter, timestamp or --out, or a crawl/archive that is
 * not there) or because the place is held or the named file cannot be opened; 1 anything else —
 * the command ran and failed, or found what it reports (an invalid WARC, a failed crawl).
 */
export function exitCodeFor(code: CliCode): 0 | 1 | 2 {
  if (code === 'commander.helpDisplayed' || code === 'commander.version') return 0;
  if (isUsageCode(code) || NOT_DONE_CODES.has(code)) return 2;
  return 1;
}

/** Codes that mean "the command line named something wrong": the CLI points at --help for these. */
export function isUsageCode(code: CliCode): boolean {
  return code.startsWith('commander.') || USAGE_CODES.has(code);
}

const USAGE_CODES = new Set<string>([
  'CLI_USAGE',
  'SETTINGS_INVALID',
  'CRAWL_OUT_INVALID',
  'CRAWL_NOT_FOUND',
  'SCHEDULE_INVALID',
  'ARCHIVE_NOT_FOUND',
  'ARCHIVE_NOT_A_DIRECTORY',
  'ROBOTS_AGENT_INVALID',
  'CAPTURE_BAD_TIMESTAMP',
  'EXPORT_BAD_FILTER',
  'QUERY_BAD_FILTER',
  'PROFILE_BAD_NAME',
  ...SCOPE_ERRORS,
] satisfies ErrorCode[]);

// Nothing was done because something else holds the place (the caller may simply try again
// later) or the file named on the command line cannot be opened: exit 2 like a usage error, but
// no pointer at --help, since the flags were right.
const NOT_DONE_CODES = new Set<string>(['CRAWL_DIR_LOCKED', 'WARC_OPEN_FAILED', 'WACZ_OPEN_FAILED', 'COOKIES_FILE_INVALID', 'PROFILE_NOT_FOUND'] satisfies ErrorCode[]);

/**
 * What kind of thing a crawl's log event says (the controller's `log` events, the notes start-up
 * made, the app's `crawl.log` channel), so the CLI, the app and tests tell events apart by code,
 * never by their wording. Not errors: most are information.
 */
export const CRAWL_LOG_CODES = [
  /** A WARC left open by a crash was closed and repaired at start-up. */
  'WARC_RECOVERED',
  /** Leased URIs were put back in the queue (at start-up, or after a disk-full pause). */
  'LEASES_REQUEUED',
  /** A shared crawl's completion was refused: the URI's lease had passed to another worker, which captures it. */
  'COMPLETION_REFUSED',
  /** Leased URIs could not be put back yet (tried again later). */
  'LEASES_REQUEUE_FAILED',
  /** Records written just before a crash or a full disk were added to the capture index. */
  'INDEX_RECONCILED',
  /** Reconciling the index with a WARC stopped at a damaged record. */
  'INDEX_RECONCILE_STOPPED',
  /** The index check after a full disk failed (tried again shortly). */
  'INDEX_RECONCILE_FAILED',
  /** Earlier captures were loaded for deduplication (--dedup-from). */
  'DEDUP_LOADED',
  /** An unexpected error while processing one URI (its outcome is RUNTIME_EXCEPTION, −5). */
  'URI_FAILED',
  /** A crawl-wide limit (URIs, bytes, time, WARC size) was reached: the crawl finishes. */
  'LIMIT_REACHED',
  /** The page limit was reached: the captured pages' embeds are still fetched. */
  'PAGE_LIMIT_REACHED',
  /** Writing failed for want of disk space: the crawl pauses. */
  'DISK_PAUSED',
  /** The disk still refuses writes: the crawl stays paused. */
  'DISK_STILL_FULL',
  /** A test write succeeded: the crawl resumes. */
  'DISK_BACK',
  /** A possible crawler trap was seen (with an --exclude to consider). */
  'TRAP_SUSPECTED',
  /** The crawl itself failed and stopped. */
  'CRAWL_FAILED',
  /** The app restarts the crawl with changed settings. */
  'CRAWL_RESTARTING',
  /** A live exclusion was added to the running crawl (its queued matches dropped). */
  'EXCLUDE_ADDED',
  /** The crawl carries a login: cookies from a profile or a cookies.txt (how many, for which sites). */
  'LOGIN_LOADED',
  /** A page of the login's site lacked the --logged-in-check: the crawl pauses as logged out. */
  'LOGGED_OUT',
  /** A page answered 401 or a redirect to a login page (no --logged-in-check): the site needs a login the crawl lacks. Said once. */
  'LOGIN_REQUIRED',
  /** The profile was refreshed with the cookies the site set during the crawl (--save-profile). */
  'PROFILE_SAVED',
] as const;

export type CrawlLogCode = (typeof CRAWL_LOG_CODES)[number];

/** A crawl log event or start-up note: its kind as a code, and a sentence for people. */
export interface CrawlNote {
  code: CrawlLogCode;
  message: string;
}
