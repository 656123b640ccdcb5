/**
 * The data shapes the desktop app's commands take and return, besides settings and snapshots.
 * Plain, JSON-serialisable data; no node:* imports, so the renderer imports these types.
 * Archive shapes (records, captures, search hits) and scope decisions have their own plain type
 * files in api, re-exported here so the renderer has one place to import from.
 */
import type { CrawlSettings, PolitenessPreset, RobotsPolicy } from './settings.ts';
import type { CrawlSnapshot, CrawlState, FinishReason } from './crawl-snapshot.ts';
import type { Decision } from './scope-decision.ts';
import type { ImportReport, PageList } from './archive-types.ts';

export type { Decision, TraceEntry, RuleResult, HopType } from './scope-decision.ts';
export type {
  BodyPreview,
  CaptureSummary,
  ImportProblem,
  ImportProgress,
  ImportReport,
  ImportedFile,
  PageList,
  PageScreenshot,
  PageSummary,
  RecordDetail,
  RecordFilter,
  RecordPage,
  RecordSummary,
  SearchHit,
} from './archive-types.ts';

// ── library ──────────────────────────────────────────────────────────────────────────────

/** A crawl directory (made by a crawl) or an archive directory (made by imports only). */
export type LibraryKind = 'crawl' | 'archive';

/**
 * `interrupted`: a crawl whose last run did not end cleanly (the app quit or crashed) — it can
 * be resumed. `imported`: an archive made by imports.
 */
/** `importing` while an import into the entry runs (it lists at once, and cannot be deleted until done). */
/** `recording`: an archive made by Record (all its WARCs are recordings), not an import. */
export type LibraryState = CrawlState | 'interrupted' | 'imported' | 'recording' | 'importing';

export interface LibraryEntry {
  /** The directory name inside the library folder. */
  id: string;
  name: string;
  kind: LibraryKind;
  state: LibraryState;
  finishReason: FinishReason | null;
  /** True while a crawl worker runs on this directory. */
  running: boolean;
  /** Bytes on disk (the whole directory). */
  sizeBytes: number;
  /** ms since epoch. */
  createdAt: number | null;
  modifiedAt: number;
  /** Indexed WARC records, when the database could be read. */
  records: number | null;
  warcFiles: number;
  seeds: string[];
  /** Fetched URIs (crawls). */
  downloaded: number | null;
}

export interface LibraryFile {
  name: string;
  sizeBytes: number;
  records: number;
  source: 'crawl' | 'import';
}

export interface LibraryDetail {
  entry: LibraryEntry;
  /** Absolute path of the directory (to show, and for "reveal in folder"). */
  dir: string;
  settings: CrawlSettings | null;
  /** The live snapshot when running; else the last one the crawl saved. */
  snapshot: CrawlSnapshot | null;
  files: LibraryFile[];
  /** The scope rules in order, one line each (crawls). */
  scopeRules: string[];
}

/** Step one of a delete: what would go, and a one-time token to confirm with. */
export interface DeleteTicket {
  id: string;
  name: string;
  sizeBytes: number;
  warcFiles: number;
  token: string;
  /** ms since epoch; the token is refused after this. */
  expiresAt: number;
}

export interface ImportRequest {
  /** Absolute paths of WARC / WARC.gz / ARC / WACZ files. */
  files: string[];
  /** Import into this library entry; a new archive when omitted. */
  into?: string;
  /** Name for a new archive; from the first file's name when omitted. */
  name?: string;
  /** Copy the files into the library (true) or index them where they are. */
  copy: boolean;
}

export interface ImportResult {
  id: string;
  report: ImportReport;
}

// ── new crawl ────────────────────────────────────────────────────────────────────────────

export interface SeedCheck {
  /** 1-based line in the seed list as typed. */
  line: number;
  input: string;
  /** The URL as it will be crawled, or null when it is not a crawlable URL. */
  url: string | null;
  error: string | null;
  /** The same URL appeared on an earlier line. */
  duplicate: boolean;
}

export interface SettingsIssue {
  /** The settings field at fault (`seeds`, `exclude`, `userAgent`, …) or `''` for the whole. */
  field: string;
  code: string;
  message: string;
}

export interface CrawlCheckRequest {
  /** The seed list as typed (one URL a line; blank lines and `#` comments ignored). */
  seedsText: string;
  settings: SettingsCheckPatch;
  customRobots?: string;
}

/** Settings without seeds (they come as text) — see settings-payload.ts. */
export type SettingsCheckPatch = Partial<Omit<CrawlSettings, 'robotsFile'>>;

export interface CrawlCheck {
  valid: boolean;
  seeds: SeedCheck[];
  /** The seeds that will be crawled (valid and not duplicate), in order. */
  urls: string[];
  issues: SettingsIssue[];
  /** The scope rules as the crawl would run them (empty when the settings do not build). */
  scopeRules: string[];
}

export interface CrawlStartRequest {
  name: string;
  settings: SettingsCheckPatch;
  /** robots.txt text for the `custom` policy. */
  customRobots?: string;
}

export interface CrawlStarted {
  id: string;
}

export interface CrawlResumeRequest {
  id: string;
  /**
   * Settings to change for the next run: e.g. `{ limitPages: 500 }` raises the page limit and
   * `{ limitPages: 0 }` clears it (likewise limitUris, limitBytes, limitTimeS). A crawl that
   * finished with `limit-pages` goes on from where it stopped.
   */
  settings?: SettingsCheckPatch;
}

// ── tests of rules ───────────────────────────────────────────────────────────────────────

export interface ScopeTestRequest {
  /** Seeds as typed (the scope is seed-implied). */
  seedsText: string;
  settings: SettingsCheckPatch;
  url: string;
  /** Hops from a seed, e.g. `LLE` (default `L`). */
  hopsPath?: string;
  via?: string;
}

export interface ScopeTestResult {
  decision: Decision;
  /** The rules in order, one line each; the deciding rule is `decision.rule`. */
  rules: string[];
  /**
   * Index in `decision.trace` of the rule the verdict names (`decision.rule`); -1 when nothing
   * accepted the URL and the verdict names why instead (reject-all stood).
   */
  deciding: number;
}

export interface RobotsTestRequest {
  robotsText: string;
  /** Our User-Agent (full string or product token). */
  userAgent: string;
  url: string;
  policy: RobotsPolicy;
  candidateAgents?: string[];
  masquerade?: boolean;
}

export interface RobotsTestResult {
  allowed: boolean;
  policy: RobotsPolicy;
  /** The product token whose rules decided. */
  agent: string;
  group: string | null;
  rule: { directive: 'allow' | 'disallow'; pattern: string; line: number } | null;
  reason: string;
  sendUserAgent: string | null;
  crawlDelay: number | null;
  sitemaps: string[];
  /** Lines the parser ignored, with why (shown next to the editor). */
  ignored: { line: number; reason: string }[];
  groups: { agents: string[]; line: number; rules: number }[];
}

// ── replay ───────────────────────────────────────────────────────────────────────────────

export interface ReplayRequest {
  archiveId: string;
  url: string;
  /** 14-digit (or shorter) timestamp to replay at; the latest capture when omitted. */
  at?: string;
}

export interface ReplayCapture {
  /** records.id of the capture served (open it in the record detail). */
  id: number;
  url: string;
  ts: string;
  /** `revisit` when the payload came from an earlier capture. */
  type: 'response' | 'revisit';
  /** How it matched when not exactly (fuzzy rule, other scheme…). */
  fuzzy: string | null;
}

/** What the replay banner shows for one URL at one time. */
export type ReplayInfo =
  | {
      kind: 'archived';
      url: string;
      status: number;
      statusText: string;
      mime: string | null;
      headers: [string, string][];
      /** Size of the body served; null when the stored body is chunked or compressed and was not decoded to tell. */
      bodyBytes: number | null;
      capture: ReplayCapture;
      /** For a 3xx: where it points, absolute. */
      location: string | null;
    }
  | { kind: 'not-archived'; url: string; reason: string; nearest: { url: string; ts: string }[] };

/** Where the replay is drawn: a native view (Electron) or an iframe the harness intercepts. */
export interface ReplayOpened {
  mode: 'view' | 'frame';
  /** For `frame`: the iframe src. */
  frameSrc: string | null;
  info: ReplayInfo;
}

export interface ReplayBounds {
  x: number;
  y: number;
  width: number;
  height: number;
  visible: boolean;
}

// ── export ───────────────────────────────────────────────────────────────────────────────

/**
 * `wacz` package, `cdxj` index, `warc` subset (one .warc.gz, revisits made whole), `mirror`
 * (static files for a web server), `report` (Heritrix-style CSV/JSON reports).
 */
export type ExportFormat = 'wacz' | 'cdxj' | 'warc' | 'mirror' | 'report';

export interface ExportFilter {
  urlPrefix?: string;
  host?: string;
  from?: string;
  to?: string;
  mime?: string;
}

export interface ExportRequest {
  archiveId: string;
  format: ExportFormat;
  /** WACZ datapackage title and description. */
  title?: string;
  description?: string;
  /** WACZ: put each page's text in pages.jsonl. */
  pageText?: boolean;
  /** WACZ: sign it with the app's own key (P-384, made at the first signed export; core/app/signing-key.ts). */
  sign?: boolean;
  /** WARC subset: which captures. */
  filter?: ExportFilter;
  /** WACZ and WARC subset: a marker in place of Cookie/Authorization values in request records (issue 36). */
  redactCredentials?: boolean;
}

/** Progress of an export, as the core reports it (throttled). */
export interface ExportProgressInfo {
  phase: string;
  done: number;
  /** 0 when not known yet. */
  total: number;
  bytes: number;
}

export interface ExportResult {
  exportId: string;
  format: ExportFormat;
  /** Absolute path of the file or folder written (inside the entry's `exports/` folder). */
  path: string;
  /** Its name inside `exports/`. */
  name: string;
  bytes: number;
  /** Format-specific counts (captures, pages, records, files…), for the done message. */
  summary: Record<string, string | number | boolean>;
  /** One line the user should read: a WACZ signed with a key ReplayWeb.page will not verify (P-256). */
  warning?: string;
}

export interface ExportFile {
  name: string;
  kind: 'file' | 'folder';
  bytes: number;
  modifiedAt: number;
}

// ── shell ────────────────────────────────────────────────────────────────────────────────

export type FilePurpose = 'import' | 'seeds' | 'robots';

export type ThemeSource = 'system' | 'light' | 'dark';

export type MenuAction =
  | 'go-library'
  | 'go-new-crawl'
  | 'go-monitor'
  | 'go-browser'
  | 'go-record'
  | 'import'
  | 'find'
  | 'pause-resume'
  | 'stop';

export interface AppInfo {
  version: string;
  libraryDir: string;
  platform: string;
  /** `electron` in the desktop app, `browser` in the e2e harness. */
  shell: 'electron' | 'browser';
  /** The settings a new crawl starts from, and the politeness presets (the UI shows, never copies, them). */
  defaults: CrawlSettings;
  politenessPresets: Record<PolitenessPreset, Pick<CrawlSettings, 'delayFactor' | 'minDelayMs' | 'maxDelayMs' | 'perHost'>>;
}

// ── monitor: logs, queues, exclusion preview ──────────────────────────────────────────────

export type LogName = 'crawl' | 'scope';

export interface LogTailRequest {
  id: string;
  log: LogName;
  /** A status code (`404`, `-9998`), a class (`4xx`) or `neg` for every negative outcome (crawl.log). */
  status?: string;
  /** A host; its subdomains match too. */
  host?: string;
  /** Any text of the line, case-insensitive. */
  text?: string;
  /** The deciding scope rule (scope.log). */
  rule?: string;
  limit: number;
  /** Byte offset to read back from (a page's `next`); the end of the file when omitted. */
  before?: number;
}

/** One log line, parsed. crawl.log lines carry status/size/mime; scope.log lines rule/reason. */
export interface LogTailEntry {
  /** Byte offset of the line in the file (a stable key). */
  offset: number;
  time: string;
  status: number | null;
  size: number | null;
  url: string;
  hopsPath: string;
  via: string | null;
  mime: string | null;
  rule: string | null;
  /** scope.log: why the rule rejected; crawl.log: the annotations. */
  reason: string | null;
}

export interface LogTailPage {
  /** Newest first. */
  lines: LogTailEntry[];
  /** Pass as `before` for the next (older) page; null at the start of the file. */
  next: number | null;
  fileBytes: number;
  scannedBytes: number;
}

export interface QueuedUri {
  id: number;
  url: string;
  hopsPath: string;
  via: string | null;
  /** `pending` may be claimed now; `waiting` is held back (a retry or a defer) until `notBefore`. */
  state: 'pending' | 'waiting';
  notBefore: number | null;
  attempts: number;
}

export interface QueuedPage {
  queue: string;
  uris: QueuedUri[];
  pending: number;
  waiting: number;
  /** Pass as `after` for the next page; null when this was the last. */
  next: string | null;
}

export interface MatchSample {
  /** Matches among the rows scanned; a lower bound when `complete` is false. */
  count: number;
  /** False when the scan stopped at its cap (the count is then "at least"). */
  complete: boolean;
  /** The first matches, in discovery (queued) or capture (captured) order. */
  samples: string[];
}

export interface ExcludePreview {
  pattern: string;
  /** Response/revisit captures already in the archive whose URL matches. */
  captured: MatchSample;
  /** URLs in the queue (pending or waiting) that the exclusion drops when they come up. */
  queued: MatchSample;
}

/** What a live exclusion did (crawl.addExclude, `trove exclude`). */
export interface LiveExcludeResult {
  pattern: string;
  /** False when the crawl had the pattern already (its queue was still swept). */
  added: boolean;
  /** Queued URIs dropped (finished as out of scope, each logged in scope.log). */
  dropped: number;
  /** The first dropped URLs. */
  samples: string[];
  /** When it took effect (ms since epoch): no URI matching it is claimed after this. */
  appliedAt: number;
}

/** crawl.addExclude's answer: what the exclusion did, and whether a running crawl took it. */
export interface ExcludeApplied extends LiveExcludeResult {
  id: string;
  /** True when a running crawl applied it (no restart); false when the stopped crawl was changed. */
  running: boolean;
}

// ── replay features (issue #16) ──────────────────────────────────────────────────────────

export interface SortedPagesRequest {
  archiveId: string;
  sort: 'ts' | 'url' | 'title';
  desc?: boolean;
  /** Title or URL contains this (case-insensitive). */
  q?: string;
  limit: number;
  offset?: number;
}

export interface SortedPageList extends PageList {
  /** Pages matching in all. */
  total: number;
  offset: number;
}

/** URLs a replayed page asked for that the archive does not hold (the replay handler's misses). */
export interface ReplayMissing {
  archiveId: string;
  /** The page they were asked for by. */
  page: string;
  urls: string[];
}

// ── record by browsing (issue #17 item 5) ────────────────────────────────────────────────

/** Start recording: into an archive of the library, or into a new one named `newArchiveName`. */
export interface RecordStartRequest {
  archiveId?: string;
  newArchiveName?: string;
  /** The first page the Record window opens (http or https). */
  url: string;
}

/** A top-level page the Record window loaded, as the archive's pages list shows it. */
export interface RecordedPage {
  url: string;
  title: string | null;
  /** 14-digit capture timestamp. */
  ts: string;
  status: number;
}

/** Where a recording stands: what it has written so far. */
export interface RecordStatus {
  archiveId: string;
  state: 'recording' | 'stopping' | 'stopped';
  /** ms since epoch. */
  startedAt: number;
  /** The WARC file this recording writes (base name; `.open` on disk until stopped). */
  warcFile: string | null;
  /** Request/response pairs written so far. */
  exchanges: number;
  /** WARC records written so far. */
  records: number;
  bytes: number;
  pages: RecordedPage[];
  /** A note: an earlier recording cut short and recovered at start, the Record window closed, a write that failed. */
  message: string | null;
}
