/**
 * The command table: every command the UI can send, with its payload validator and its result
 * type. It is the single source for the IPC channels (electron/main registers one handler per
 * entry; electron/preload builds `window.trove` from the names; the e2e harness does the same),
 * for the handler types in core/app, and for what the renderer may call.
 *
 * `side` says who answers: `core` commands are handled by the app service (core/app, plain
 * Node, the same in Electron and in tests); `shell` commands need the host (native dialogs, the
 * replay view) and are handled by electron/main, or by the e2e harness standing in for it.
 *
 * Names are `namespace.verb`; `window.trove.library.list()` calls `library.list`.
 */
import type { CrawlSnapshot } from './crawl-snapshot.ts';
import type {
  AppInfo,
  CaptureSummary,
  CrawlCheck,
  CrawlCheckRequest,
  CrawlResumeRequest,
  CrawlStartRequest,
  CrawlStarted,
  DeleteTicket,
  ExcludeApplied,
  ExcludePreview,
  ExportFile,
  ExportRequest,
  ExportResult,
  FilePurpose,
  ImportRequest,
  ImportResult,
  LibraryDetail,
  LibraryEntry,
  LogTailPage,
  LogTailRequest,
  PageList,
  QueuedPage,
  RecordDetail,
  RecordStartRequest,
  RecordStatus,
  RecordFilter,
  RecordPage,
  ReplayBounds,
  ReplayInfo,
  ReplayOpened,
  ReplayRequest,
  RobotsTestRequest,
  RobotsTestResult,
  ScopeTestRequest,
  ScopeTestResult,
  SearchHit,
  SortedPageList,
  SortedPagesRequest,
  PageScreenshot,
  ThemeSource,
} from './app-types.ts';
import type { ProfileInfo } from './profile-types.ts';
import { PROFILE_NAME } from './profile-types.ts';
import type { PageCompare, ScheduleState, SeriesDetail } from './series-types.ts';
import type { QaPageResult, QaPatchResult, QaRunInfo, QaShots } from './qa-types.ts';
import type { QaJobStatus, QaPageList, QaPageRequest, QaReview, QaReviewRequest, QaRunRequest } from './qa-view-types.ts';
import type { SharedCrawlControl, SharedCrawlView } from './shared-crawl-types.ts';
import { settingsPatch } from './settings-payload.ts';
import { ROBOTS_POLICY_NAMES } from './settings.ts';
import { arr, bool, empty, int, nullable, num, obj, oneOf, optional, str, type Validator } from './validate.ts';

export type Side = 'core' | 'shell';

export interface CommandSpec<S extends Side, P, R> {
  side: S;
  payload: Validator<P>;
  /** Type-only: the result. Never set at run time. */
  readonly result?: (r: R) => void;
}

function cmd<P, R>() {
  return <S extends Side>(side: S, payload: Validator<P>): CommandSpec<S, P, R> => ({ side, payload });
}

/** Library entries are directory names inside the library folder: no separators, no dot-dot. */
export const LIBRARY_ID = /^(?!\.{1,2}$)[A-Za-z0-9][A-Za-z0-9._ -]{0,127}$/;
const id = () => str({ min: 1, max: 128, pattern: LIBRARY_ID });
const url = () => str({ min: 1, max: 8192 });
const ts = () => str({ min: 1, max: 14, pattern: /^\d{1,14}$/ });
const settings = settingsPatch();
/** postgres://user@host:port/<database>/<crawl> (checked in full by parseSharedCrawlUrl). */
const sharedCrawlUrl = () => str({ min: 1, max: 2000, pattern: /^postgres(ql)?:\/\/\S+$/ });
const customRobots = () => optional(str({ max: 512 * 1024 }));

/** A page of a QA run: its URL and its 14-digit capture time. */
const qaPage = () => ({ archiveId: id(), url: url(), ts: str({ min: 14, max: 14, pattern: /^\d{14}$/ }) });

const recordFilter: Validator<RecordFilter> = obj({
  type: optional(arr(str({ max: 40 }), { max: 20 })),
  url: optional(str({ max: 8192 })),
  urlPrefix: optional(str({ max: 8192 })),
  host: optional(str({ max: 300 })),
  mime: optional(str({ max: 200 })),
  status: optional(arr(int({ min: 0, max: 999 }), { max: 100 })),
  from: optional(ts()),
  to: optional(ts()),
  text: optional(str({ max: 1000 })),
});

/** What an export is asked for, whichever side writes it. */
const exportRequest = obj({
  archiveId: id(),
  format: oneOf(['wacz', 'cdxj', 'warc', 'mirror', 'report'] as const),
  title: optional(str({ max: 500 })),
  description: optional(str({ max: 5000 })),
  pageText: optional(bool()),
  sign: optional(bool()),
  redactCredentials: optional(bool()),
  filter: optional(
    obj({
      urlPrefix: optional(str({ max: 8192 })),
      host: optional(str({ max: 300 })),
      from: optional(ts()),
      to: optional(ts()),
      mime: optional(str({ max: 200 })),
    }),
  ),
});

export const COMMANDS = {
  'app.info': cmd<Record<string, never>, AppInfo>()('core', empty()),

  'library.list': cmd<Record<string, never>, LibraryEntry[]>()('core', empty()),
  'library.open': cmd<{ id: string }, LibraryDetail>()('core', obj({ id: id() })),
  'library.prepareDelete': cmd<{ id: string }, DeleteTicket>()('core', obj({ id: id() })),
  'library.delete': cmd<{ id: string; token: string }, { id: string }>()('core', obj({ id: id(), token: str({ min: 1, max: 200 }) })),
  'library.import': cmd<ImportRequest, ImportResult>()(
    'core',
    obj({
      files: arr(str({ min: 1, max: 4096 }), { min: 1, max: 10_000 }),
      into: optional(id()),
      name: optional(str({ max: 200 })),
      copy: bool(),
    }),
  ),
  /** Cancel the import running into this entry: it stops and the entry is left as it was (a new one is removed); library.import fails with CANCELLED. */
  'library.cancelImport': cmd<{ id: string }, null>()('core', obj({ id: id() })),

  'crawl.check': cmd<CrawlCheckRequest, CrawlCheck>()(
    'core',
    obj({ seedsText: str({ max: 4 * 1024 * 1024 }), settings, customRobots: customRobots() }),
  ),
  'crawl.start': cmd<CrawlStartRequest, CrawlStarted>()('core', obj({ name: str({ max: 200 }), settings, customRobots: customRobots() })),
  'crawl.pause': cmd<{ id: string }, null>()('core', obj({ id: id() })),
  'crawl.resume': cmd<CrawlResumeRequest, CrawlStarted>()('core', obj({ id: id(), settings: optional(settings) })),
  'crawl.stop': cmd<{ id: string; now?: boolean }, null>()('core', obj({ id: id(), now: optional(bool()) })),
  'crawl.snapshot': cmd<{ id: string }, CrawlSnapshot | null>()('core', obj({ id: id() })),
  'crawl.addExclude': cmd<{ id: string; pattern: string }, ExcludeApplied>()(
    'core',
    obj({ id: id(), pattern: str({ min: 1, max: 2000 }) }),
  ),

  // ── monitor: log tail, queued URIs per host, exclusion preview ──
  'crawl.logTail': cmd<LogTailRequest, LogTailPage>()(
    'core',
    obj({
      id: id(),
      log: oneOf(['crawl', 'scope'] as const),
      status: optional(str({ max: 20 })),
      host: optional(str({ max: 300 })),
      text: optional(str({ max: 1000 })),
      rule: optional(str({ max: 100 })),
      limit: int({ min: 1, max: 1000 }),
      before: optional(int({ min: 0 })),
    }),
  ),
  'crawl.queued': cmd<{ id: string; queue: string; limit: number; after?: string }, QueuedPage>()(
    'core',
    obj({ id: id(), queue: str({ min: 1, max: 300 }), limit: int({ min: 1, max: 1000 }), after: optional(str({ max: 60, pattern: /^[pw](:-?\d+:\d+)?$/ })) }),
  ),
  'crawl.excludePreview': cmd<{ id: string; pattern: string; samples?: number }, ExcludePreview>()(
    'core',
    obj({ id: id(), pattern: str({ min: 1, max: 2000 }), samples: optional(int({ min: 0, max: 200 })) }),
  ),
  // ── end monitor ──

  // ── shared crawl (issue 39): a crawl shared over PostgreSQL, opened by its URL, watched and steered ──
  /** The crawl's totals, workers and hosts, read from its database. */
  'shared.status': cmd<{ url: string }, SharedCrawlView>()('core', obj({ url: sharedCrawlUrl() })),
  /** Pause, resume or stop every worker of the crawl; the crawl as it is then. */
  'shared.control': cmd<{ url: string; control: SharedCrawlControl }, SharedCrawlView>()(
    'core',
    obj({ url: sharedCrawlUrl(), control: oneOf(['running', 'paused', 'stopped'] as const) }),
  ),
  // ── end shared crawl ──

  'scope.test': cmd<ScopeTestRequest, ScopeTestResult>()(
    'core',
    obj({
      seedsText: str({ max: 4 * 1024 * 1024 }),
      settings,
      url: str({ max: 8192 }),
      hopsPath: optional(str({ max: 100 })),
      via: optional(str({ max: 8192 })),
    }),
  ),
  'robots.test': cmd<RobotsTestRequest, RobotsTestResult>()(
    'core',
    obj({
      robotsText: str({ max: 1024 * 1024 }),
      userAgent: str({ max: 1000 }),
      url: str({ max: 8192 }),
      policy: oneOf(ROBOTS_POLICY_NAMES),
      candidateAgents: optional(arr(str({ max: 1000 }), { max: 100 })),
      masquerade: optional(bool()),
    }),
  ),

  'records.query': cmd<{ archiveId: string; filter: RecordFilter; limit: number; after?: number }, RecordPage>()(
    'core',
    obj({ archiveId: id(), filter: recordFilter, limit: int({ min: 1, max: 1000 }), after: optional(int({ min: 0 })) }),
  ),
  'records.detail': cmd<{ archiveId: string; id: number }, RecordDetail>()('core', obj({ archiveId: id(), id: int({ min: 1 }) })),
  'records.timeline': cmd<{ archiveId: string; url: string }, CaptureSummary[]>()('core', obj({ archiveId: id(), url: url() })),
  'records.search': cmd<{ archiveId: string; q: string; limit?: number }, SearchHit[]>()(
    'core',
    obj({ archiveId: id(), q: str({ max: 1000 }), limit: optional(int({ min: 1, max: 1000 })) }),
  ),
  'records.pages': cmd<{ archiveId: string; limit: number; after?: number }, PageList>()(
    'core',
    obj({ archiveId: id(), limit: int({ min: 1, max: 1000 }), after: optional(int({ min: 0 })) }),
  ),

  // ── replay features (issue #16: Pages view) ──
  'records.sortedPages': cmd<SortedPagesRequest, SortedPageList>()(
    'core',
    obj({
      archiveId: id(),
      sort: oneOf(['ts', 'url', 'title'] as const),
      desc: optional(bool()),
      q: optional(str({ max: 1000 })),
      limit: int({ min: 1, max: 1000 }),
      offset: optional(int({ min: 0, max: Number.MAX_SAFE_INTEGER })),
    }),
  ),
  /** A page's screenshot (by the page's record id), or the archive's newest when no pageId (the crawl monitor). */
  'records.screenshot': cmd<{ archiveId: string; pageId?: number }, PageScreenshot | null>()(
    'core',
    obj({ archiveId: id(), pageId: optional(int({ min: 1 })) }),
  ),

  // ── a crawl over time (issue 38): crawl again, the series, its schedule, compare two captures ──
  /** Crawl again: a recrawl of the series' latest crawl (same seeds and settings, conditional requests), a new library entry. */
  'series.recrawl': cmd<{ id: string }, CrawlStarted>()('core', obj({ id: id() })),
  /** The crawl's series: each crawl with its change summary against the one before, the schedule and its runs. */
  'series.detail': cmd<{ id: string }, SeriesDetail>()('core', obj({ id: id() })),
  /** Run the series again daily, weekly or on a cron expression while the app runs (null: no schedule). */
  'series.setSchedule': cmd<{ id: string; spec: string | null }, ScheduleState | null>()('core', obj({ id: id(), spec: nullable(str({ min: 1, max: 200 })) })),
  /** One page at two captures (two crawls of a series, or two times): texts, their line diff, screenshots. */
  'series.compare': cmd<{ url: string; a: { archiveId: string; ts?: string }; b: { archiveId: string; ts?: string } }, PageCompare>()(
    'core',
    obj({ url: url(), a: obj({ archiveId: id(), ts: optional(ts()) }), b: obj({ archiveId: id(), ts: optional(ts()) }) }),
  ),

  'export.run': cmd<ExportRequest, ExportResult>()('core', exportRequest),
  /**
   * The same export into a folder the user picks in a native dialog (null: the dialog was
   * cancelled). The host asks and writes: the renderer never names a path to write.
   */
  'export.runTo': cmd<ExportRequest, ExportResult | null>()('shell', exportRequest),
  'export.list': cmd<{ archiveId: string }, ExportFile[]>()('core', obj({ archiveId: id() })),
  /** Cancel a running export (its id from export.progress): a WACZ or CDXJ export stops and leaves no file; export.run fails with CANCELLED. */
  'export.cancel': cmd<{ exportId: string }, null>()('core', obj({ exportId: str({ min: 1, max: 100 }) })),

  'replay.info': cmd<ReplayRequest, ReplayInfo>()('core', obj({ archiveId: id(), url: url(), at: optional(ts()) })),
  'replay.open': cmd<ReplayRequest, ReplayOpened>()('shell', obj({ archiveId: id(), url: url(), at: optional(ts()) })),
  'replay.bounds': cmd<ReplayBounds, null>()(
    'shell',
    obj({ x: num({ min: 0, max: 1e5 }), y: num({ min: 0, max: 1e5 }), width: num({ min: 0, max: 1e5 }), height: num({ min: 0, max: 1e5 }), visible: bool() }),
  ),
  'replay.close': cmd<Record<string, never>, null>()('shell', empty()),

  // ── record by browsing (issue #17 item 5): the Record window, recorded into an archive ──
  /** Open the Record window on `url` and record everything it loads into the archive (a new one when `newArchiveName`). */
  'record.start': cmd<RecordStartRequest, RecordStatus>()(
    'core',
    obj({ archiveId: optional(id()), newArchiveName: optional(str({ min: 1, max: 200 })), url: url() }),
  ),
  /** Load another URL in the Record window (as typing it in its address bar). */
  'record.navigate': cmd<{ url: string }, null>()('core', obj({ url: url() })),
  /** Stop recording: pending exchanges written, the WARC closed and sealed, the Record window closed. */
  'record.stop': cmd<Record<string, never>, RecordStatus | null>()('core', empty()),
  /** The recording under way (or the last one), or null. */
  'record.status': cmd<Record<string, never>, RecordStatus | null>()('core', empty()),
  /** Save the Record window's session (its cookies and the page's storage) as a browser profile of the library (issue 36). */
  'record.saveProfile': cmd<{ name: string }, ProfileInfo>()('core', obj({ name: str({ min: 1, max: 64, pattern: PROFILE_NAME }) })),

  // ── browser profiles (issue 36): saved logins a crawl starts from ──
  /** The library's profiles (names, cookie counts, sites; never the values). */
  'profile.list': cmd<Record<string, never>, ProfileInfo[]>()('core', empty()),

  // ── quality assurance (issue #34 item 5: the QA view) ──
  /** Replay every page (or those asked for) and score it; progress as `qa.progress` events; the run's summary when done. */
  'qa.run': cmd<QaRunRequest, QaRunInfo>()(
    'core',
    obj({
      archiveId: id(),
      tabs: optional(int({ min: 1, max: 16 })),
      pages: optional(int({ min: 1, max: 10_000_000 })),
      urlPrefix: optional(str({ min: 1, max: 8192 })),
      host: optional(str({ min: 1, max: 300 })),
      againstLive: optional(bool()),
    }),
  ),
  /** Fetch what the newest run found missing (and its severe pages) and score the pages it touched again. */
  'qa.patch': cmd<{ archiveId: string }, QaPatchResult>()('core', obj({ archiveId: id() })),
  /** Stop the QA run or patch under way on the archive (what was scored so far is kept). */
  'qa.cancel': cmd<{ archiveId: string }, null>()('core', obj({ archiveId: id() })),
  /** The QA run or patch under way on the archive, or null. */
  'qa.status': cmd<{ archiveId: string }, QaJobStatus | null>()('core', obj({ archiveId: id() })),
  /** The archive's QA runs, newest first. */
  'qa.runs': cmd<{ archiveId: string }, QaRunInfo[]>()('core', obj({ archiveId: id() })),
  /** The pages' current results (each page's newest scoring), worst first. */
  'qa.pages': cmd<{ archiveId: string; limit: number; offset?: number }, QaPageList>()(
    'core',
    obj({ archiveId: id(), limit: int({ min: 1, max: 1000 }), offset: optional(int({ min: 0, max: Number.MAX_SAFE_INTEGER })) }),
  ),
  /** One page's current result, or null when it was never scored. */
  'qa.page': cmd<QaPageRequest, QaPageResult | null>()('core', obj(qaPage())),
  /** One page's reference, replay and diff screenshots of its latest scoring. */
  'qa.shots': cmd<QaPageRequest, QaShots>()('core', obj(qaPage())),
  /** Approve or reject a page and leave a note (kept with the archive, across runs). */
  'qa.review': cmd<QaReviewRequest, QaReview>()(
    'core',
    obj({
      archiveId: id(),
      url: url(),
      ts: str({ min: 14, max: 14, pattern: /^\d{14}$/ }),
      verdict: nullable(oneOf(['approved', 'rejected'] as const)),
      note: nullable(str({ max: 5000 })),
    }),
  ),
  /** The archive's reviewed pages (the Pages view's verdict column). */
  'qa.reviews': cmd<{ archiveId: string }, QaReview[]>()('core', obj({ archiveId: id() })),

  'shell.chooseFiles': cmd<{ purpose: FilePurpose }, string[]>()('shell', obj({ purpose: oneOf(['import', 'seeds', 'robots'] as const) })),
  'shell.setTheme': cmd<{ theme: ThemeSource }, null>()('shell', obj({ theme: oneOf(['system', 'light', 'dark'] as const) })),
  /** Show a library entry's folder (or its `exports/` folder) in the file manager. */
  'shell.reveal': cmd<{ id: string; exports?: boolean }, null>()('shell', obj({ id: id(), exports: optional(bool()) })),
} as const;

export type Commands = typeof COMMANDS;
export type CommandName = keyof Commands;
export type PayloadOf<K extends CommandName> = Commands[K] extends CommandSpec<Side, infer P, infer _R> ? P : never;
export type ResultOf<K extends CommandName> = Commands[K] extends CommandSpec<Side, infer _P, infer R> ? R : never;
export type SideOf<K extends CommandName> = Commands[K]['side'];

export type CoreCommandName = { [K in CommandName]: SideOf<K> extends 'core' ? K : never }[CommandName];
export type ShellCommandName = Exclude<CommandName, CoreCommandName>;

/** A handler per command; it may throw (the gate turns errors into `Result` errors). */
export type Handlers<K extends CommandName = CommandName> = {
  [N in K]: (payload: PayloadOf<N>) => Promise<ResultOf<N>> | ResultOf<N>;
};

export const COMMAND_NAMES = Object.keys(COMMANDS) as CommandName[];

export function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(COMMANDS, name);
}
