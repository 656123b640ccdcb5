/**
 * The public programmatic API of the crawl engine, used by the `trove` CLI, the desktop app's
 * crawl worker and scripts:
 *
 *   const crawl = await startCrawl({ dir: 'my-crawl', settings: { seeds: ['https://example.org/'] } });
 *   crawl.on((e) => { if (e.type === 'snapshot') render(e.snapshot) });
 *   const final = await crawl.finished();
 *
 * Starting on a directory that already holds a crawl continues it (same settings, given settings
 * such as higher limits override), exactly like `resumeCrawl`.
 */
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { captureModeOf, defaultSettings, TROVE_VERSION, type CrawlSettings } from '../api/settings.ts';
import { TroveError } from '../errors.ts';
import { openDatabase } from '../storage/open-database.ts';
import { getMeta, setMeta } from '../storage/meta.ts';
import { createSqliteFrontier } from '../frontier/sqlite-frontier.ts';
import type { Frontier } from '../frontier/frontier.ts';
import { createCaptureIndex } from '../archive/capture-index.ts';
import { RECRAWL_OF_META } from '../archive/archive-dir.ts';
import { buildScope, scopeSettingsFrom } from '../scope/decide-rules.ts';
import { compileRegexes } from '../scope/standard-rules.ts';
import { parseRobots } from '../robots/parse-robots.ts';
import { createFetcher } from '../fetch/fetcher.ts';
import { openCrawlLogin, type CrawlLogin } from './crawl-login.ts';
import { createLoggedInCheck } from './logged-in-check.ts';
import type { ProfileState } from '../api/profile-types.ts';
import { ExtractPool } from '../extract/extract-pool.ts';
import { WarcWriter } from '../warc/warc-writer.ts';
import { listOpenWarcs, recoverOpenWarc } from '../warc/recover-open-warc.ts';
import { parseQueuePolicy } from '../frontier/queue-assignment.ts';
import { CandidateChain } from './candidate-chain.ts';
import { acquireLock, crawlPaths, prepareCrawlDir } from './crawl-dir.ts';
import { CrawlStats, type StatsTallies, type StatsTotals } from './crawl-stats.ts';
import { RobotsGate, type RobotsStateStore } from './robots-gate.ts';
import { CrawlController, GROUP_COMMIT_DELAY_MS, GROUP_COMMIT_UNITS } from './crawl-controller.ts';
import type Database from 'better-sqlite3';
import type { CaptureIndex } from '../archive/capture-index.ts';
import type { Fetcher } from '../fetch/fetcher.ts';
import type { Scope } from '../scope/decide-rules.ts';
import type { CrawlPaths } from './crawl-dir.ts';
import type { UriChain } from './chain/uri-chain.ts';
import type { CrawlSnapshot, WorkerRow } from '../api/crawl-snapshot.ts';
import type { CrawlContext } from './crawl-context.ts';
import { validateSettings } from './validate-settings.ts';
import { TrapDetector } from './trap-detector.ts';
import { PageTextBuffer } from './page-text-buffer.ts';
import { reconcileIndex } from './reconcile-index.ts';
import { GroupCommit } from '../storage/group-commit.ts';
import { RowsInFlight } from './rows-in-flight.ts';
import { CommittedLineLog } from './committed-line-log.ts';
import type { CrawlNote } from '../api/error-codes.ts';
import { isDiskFullError } from './disk-guard.ts';
import { PriorCaptures } from './prior-captures.ts';
import { WarcSealer } from '../archive/warc-sealer.ts';
import { PendingOriginals } from './pending-originals.ts';
import { buildUriChain } from './chain/uri-chain.ts';
import { applyLiveExclude } from './live-exclude.ts';
import { answerExcludeRequest, takeExcludeRequests } from './exclude-requests.ts';
import type { fetchBrowser as FetchBrowser } from './chain/fetch-browser.ts';
import type { fetchAuto as FetchAuto } from './chain/fetch-auto.ts';
import type { RenderDecisions as RenderDecisionsClass } from './render-decisions.ts';
import type { TabPool } from '../browser/tab-pool.ts';

/** The largest document extracted on the crawl thread (see where the ExtractPool is made). */
export const INLINE_EXTRACT_MAX_BYTES = 4 * 1024 * 1024;
import type { TabSource } from '../browser/tab-source.ts';

export interface StartCrawlOptions {
  dir: string;
  settings?: Partial<CrawlSettings>;
  /** A frontier other than the directory's SQLite one (a shared PostgreSQL crawl); the caller closes it. */
  frontier?: (opts: { defaultMaxInFlight: number }) => Frontier;
  /** With `frontier`: where robots.txt states are kept, shared by the crawl's workers. */
  robotsStore?: RobotsStateStore;
  /** With `frontier`: the shared crawl's workers, for the snapshot. */
  workers?: () => WorkerRow[];
  /** Called once the crawl is over, before its database closes (a shared crawl copies its last index rows). */
  beforeClose?: (final: CrawlSnapshot) => void;
  /**
   * Browser mode: where the tabs come from (the app's worker relays Electron's own tabs). Without
   * it a Chromium is found and launched. The crawl closes it when it ends (or fails to start).
   */
  tabSource?: TabSource;
  /** The crawl's clock (CrawlContext.now): tests inject one to read countdowns and averages exactly. Default Date.now. */
  clock?: () => number;
  /** Where `--profile` names are found (the library's `.profiles`); default the CLI's library (crawl-login.ts). */
  profilesDir?: string;
  /** A new crawl that repeats this earlier crawl directory (`trove recrawl`): stored as its link (RECRAWL_OF_META). */
  recrawlOf?: string;
  /**
   * URLs to fetch again though seen before (`trove qa --patch`): a page (no `via`) is scheduled as
   * the crawl scheduled it; a resource of a page (`via`: the page) is decided by the crawl's scope
   * as an embed (hop E) of it, and one the scope refuses is passed to `onRefused`, not fetched.
   */
  refetch?: { urls: readonly { url: string; via: string | null }[]; onRefused?(url: string, reason: string): void };
}

export { CrawlController } from './crawl-controller.ts';
export type { CrawlEvent } from './crawl-controller.ts';

const WARC_CONFORMS_TO = 'http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/';

/** Continue the crawl in `dir` from its database (after a clean stop or a crash). */
export async function resumeCrawl(dir: string, overrides: Partial<CrawlSettings> = {}): Promise<CrawlController> {
  if (!fs.existsSync(crawlPaths(dir).db)) {
    throw new TroveError('CRAWL_NOT_FOUND', `no crawl in ${path.resolve(dir)} (crawl.sqlite is missing)`, { dir });
  }
  return startCrawl({ dir, settings: overrides });
}

export async function startCrawl(opts: StartCrawlOptions): Promise<CrawlController> {
  const given = opts.settings ?? {};
  const existing = fs.existsSync(crawlPaths(opts.dir).db);
  // Validate before anything is written: a bad flag leaves no directory behind.
  if (!existing) validateSettings({ ...defaultSettings(), ...given }, { requireSeeds: true });
  const paths = prepareCrawlDir(opts.dir);
  const releaseLock = acquireLock(paths);
  const db = openDatabase(paths.db);
  const browser: BrowserParts = { tabs: null, fetchBrowser: null };
  try {
    const { settings, customRobotsText } = resolveSettings(db, given);
    const redirectSeeds = getMeta<string[]>(db, 'redirectSeeds') ?? [];
    const scope = buildScope(scopeSettingsFrom(settings), [...settings.seeds, ...redirectSeeds]);
    const login = openCrawlLogin(settings, opts.profilesDir);
    await startBrowser(settings, opts.tabSource, browser, login);
    claimCrawlDir(db, settings, customRobotsText);
    if (opts.recrawlOf && !getMeta(db, RECRAWL_OF_META)) setMeta(db, RECRAWL_OF_META, path.resolve(opts.recrawlOf));
    const stores = await openStores(db, paths, settings, opts.frontier);
    const services = buildServices(db, paths, settings, scope, customRobotsText, stores, opts.robotsStore);
    const pageText = new PageTextBuffer(stores.captures, stores.group);
    let prior: PriorCaptures | null = null;
    if (settings.dedupFrom.length > 0 || getMeta<string[]>(db, 'dedupFromLoaded')) {
      prior = new PriorCaptures(db);
      stores.notes.push(...(await prior.load(settings.dedupFrom)));
    }
    const parts: CrawlParts = { ...stores, ...services, db, paths, settings, scope, pageText, prior, login };
    const { ctx, hardAbort, excludes } = buildContext(parts, opts.clock);

    // Seeds (new ones only: the seen-set makes rescheduling harmless on resume).
    stores.frontier.schedule(settings.seeds.map((s) => services.chain.seed(s)));
    if (opts.refetch) scheduleRefetch(services.chain, stores.frontier, opts.refetch);

    const persist = wireCommitHooks(parts);
    const controller = makeController(parts, ctx, hardAbort, {
      persist,
      excludes,
      tabs: browser.tabs,
      uriChain: buildUriChain(pageFetchers(settings, db, browser)),
      releaseLock,
      opts,
    });
    controller.startNotes.push(...stores.notes, ...login.notes);
    if (settings.loggedInCheck) {
      const check = createLoggedInCheck(settings.loggedInCheck, { cookieDomains: login.jar?.cookies().map((c) => c.domain) ?? [], seeds: settings.seeds, loginUrl: login.loginUrl });
      ctx.loggedIn = { check, onLoggedOut: (url, why) => controller.loggedOut(url, why, () => login.reload()) };
    } else {
      ctx.loginWall = { seen: (url, why) => controller.loginWall(url, why, login.jar !== null) };
    }
    return controller;
  } catch (err) {
    await (browser.tabs ? browser.tabs.close() : opts.tabSource?.close());
    try {
      db.close();
    } catch {
      /* already closed */
    }
    releaseLock();
    throw err;
  }
}

/**
 * The page fetchers of the crawl's capture mode: none (HTTP only), the browser for every page,
 * or (auto) HTTP first and the browser when the page's template or body says so, with the
 * template decisions this crawl's database holds from earlier runs.
 */
function pageFetchers(settings: CrawlSettings, db: Database.Database, browser: BrowserParts): Parameters<typeof buildUriChain>[0] {
  if (!browser.tabs || !browser.fetchBrowser || !browser.fetchAuto || !browser.RenderDecisions) return {};
  const behaviors = {
    settleMs: settings.browserSettleMs,
    quietMaxMs: settings.browserStepMaxS * 1000,
    scroll: settings.browserScrollMaxS > 0,
    scrollMaxMs: settings.browserScrollMaxS * 1000,
    clickLoadMore: settings.browserMaxClicks > 0,
    maxClicks: settings.browserMaxClicks,
  };
  const fetchBrowser = browser.fetchBrowser(browser.tabs, behaviors);
  return captureModeOf(settings) === 'auto' ? { browser: browser.fetchAuto(fetchBrowser, new browser.RenderDecisions(db)) } : { browser: fetchBrowser };
}

/** What the browser stage started: the catch path of startCrawl closes the tabs. */
interface BrowserParts {
  tabs: TabPool | null;
  fetchBrowser: typeof FetchBrowser | null;
  fetchAuto?: typeof FetchAuto;
  RenderDecisions?: typeof RenderDecisionsClass;
}

/** The stores a crawl opens on its database and directory (openStores). */
interface CrawlStores {
  group: GroupCommit;
  /** A write that must be durable at once (a WARC file's row): the group commits first. */
  outsideGroup: (write: () => void) => void;
  rowsInFlight: RowsInFlight;
  crawlLog: CommittedLineLog;
  scopeLog: CommittedLineLog;
  /** What the start found and did (recovered WARCs, requeued leases…), for the controller's start notes. */
  notes: CrawlNote[];
  frontier: Frontier;
  captures: CaptureIndex;
  fileIds: Map<string, number>;
  sealer: WarcSealer;
  /** The WARCs already there (the writer numbers on from them) and their bytes. */
  existingWarcs: string[];
  previousWarcBytes: number;
}

/** The crawl's working parts built over the stores (buildServices). */
interface CrawlServices {
  stats: CrawlStats;
  traps: TrapDetector;
  chain: CandidateChain;
  robots: RobotsGate;
  fetcher: Fetcher;
  extractor: ExtractPool;
  writer: WarcWriter;
}

/** Everything the context and the controller are made of. */
interface CrawlParts extends CrawlStores, CrawlServices {
  db: Database.Database;
  paths: CrawlPaths;
  settings: CrawlSettings;
  scope: Scope;
  pageText: PageTextBuffer;
  prior: PriorCaptures | null;
  login: CrawlLogin;
}

/** The forced re-fetches of a patch (StartCrawlOptions.refetch), through the crawl's own candidate chain and scope. */
function scheduleRefetch(chain: CandidateChain, frontier: Frontier, refetch: NonNullable<StartCrawlOptions['refetch']>): void {
  for (const r of refetch.urls) {
    try {
      const c = r.via
        ? chain.fromOutlinks({ url: r.via, hopsPath: '', seed: false }, [{ url: r.url, hop: 'E', context: 'qa-patch' }], false)[0]
        : chain.seed(r.url);
      if (c) frontier.forceSchedule(c);
      else refetch.onRefused?.(r.url, 'out of the crawl\'s scope');
    } catch (err) {
      refetch.onRefused?.(r.url, (err as Error).message);
    }
  }
}

/** The stored settings with the given ones over them (seeds added to the stored ones), validated, and the custom robots.txt text. */
function resolveSettings(db: Database.Database, given: Partial<CrawlSettings>): { settings: CrawlSettings; customRobotsText: string | null } {
  const stored = getMeta<CrawlSettings>(db, 'settings');
  const settings: CrawlSettings = { ...defaultSettings(), ...(stored ?? {}), ...given };
  if (stored && given.seeds) settings.seeds = [...new Set([...stored.seeds, ...given.seeds])];
  validateSettings(settings, { requireSeeds: !stored });
  let customRobotsText = getMeta<string>(db, 'customRobots') ?? null;
  if (settings.robots === 'custom' && settings.robotsFile && (given.robotsFile || customRobotsText === null)) {
    try {
      customRobotsText = fs.readFileSync(settings.robotsFile, 'utf8');
    } catch (err) {
      throw new TroveError('SETTINGS_INVALID', `cannot read --robots-file ${settings.robotsFile}: ${(err as Error).message}`);
    }
  }
  return { settings, customRobotsText };
}

/**
 * An auto crawl's Chromium idle this long is closed (its memory given back) until a page needs
 * it again: long enough that a site whose pages keep needing it does not pay a restart (~1 s of
 * CPU) between them, short against a crawl of a static site.
 */
const AUTO_BROWSER_IDLE_MS = 30_000;

/**
 * Browser and auto capture: Chromium is found before the crawl begins, so a missing one is said
 * at once (with the paths tried) rather than as a failure of every page, and before anything of
 * the crawl is written or started; browser mode starts it then too, auto mode beside the crawl's
 * first fetches (with one tab; closed while idle). The tabs send the crawl's User-Agent (on the
 * page and everything it loads), as the HTTP fetcher does, not Chromium's own: sites see one
 * agent per crawl and robots.txt is read for it. Its modules load here, only for a browser crawl: an
 * HTTP-only crawl never touches them (and closes a tab source it was given).
 */
async function startBrowser(settings: CrawlSettings, tabSource: TabSource | undefined, into: BrowserParts, login: CrawlLogin): Promise<void> {
  if (captureModeOf(settings) !== 'http') {
    const [{ TabPool }, { findChromium }] = await Promise.all([import('../browser/tab-pool.ts'), import('../browser/find-chromium.ts')]);
    ({ fetchBrowser: into.fetchBrowser } = await import('./chain/fetch-browser.ts'));
    ({ fetchAuto: into.fetchAuto } = await import('./chain/fetch-auto.ts'));
    ({ RenderDecisions: into.RenderDecisions } = await import('./render-decisions.ts'));
    if (login.profile) {
      // Tabs start from the login's profile (browser/profile-tab-source.ts).
      const [{ launchChromiumTabs }, { profileTabSource }] = await Promise.all([import('../browser/chromium-tab-source.ts'), import('../browser/profile-tab-source.ts')]);
      const inner = tabSource ?? (await launchChromiumTabs({ executablePath: findChromium({ path: settings.browser.path }), userAgent: settings.userAgent }));
      into.tabs = await TabPool.open(profileTabSource(inner, () => login.profile!), settings.browser.tabs, { userAgent: settings.userAgent });
      return;
    }
    if (tabSource) {
      into.tabs = await TabPool.open(tabSource, settings.browser.tabs, { userAgent: settings.userAgent });
      return;
    }
    const launch = { executablePath: findChromium({ path: settings.browser.path }), tabs: settings.browser.tabs, userAgent: settings.userAgent };
    if (captureModeOf(settings) === 'auto') {
      // Auto: Chromium and one tab start now, beside the first fetches (the first page that needs
      // a tab need not wait for Chromium's start), more tabs open as pages wait for them, and it
      // is closed after AUTO_BROWSER_IDLE_MS without a page to render (a static site's samples done).
      const { launchChromiumTabs } = await import('../browser/chromium-tab-source.ts');
      into.tabs = TabPool.lazy(() => launchChromiumTabs(launch), launch.tabs, { userAgent: settings.userAgent, idleCloseMs: AUTO_BROWSER_IDLE_MS, startNow: true });
      return;
    }
    into.tabs = await TabPool.launch(launch);
  } else {
    await tabSource?.close();
  }
}

/** Everything is valid: from here on the directory is the crawl's (settings stored, one more run counted). */
function claimCrawlDir(db: Database.Database, settings: CrawlSettings, customRobotsText: string | null): void {
  setMeta(db, 'settings', settings);
  if (customRobotsText !== null) setMeta(db, 'customRobots', customRobotsText);
  if (!getMeta(db, 'createdAt')) setMeta(db, 'createdAt', Date.now());
  const runs = (getMeta<number>(db, 'runs') ?? 0) + 1;
  setMeta(db, 'runs', runs);
}

/** A write outside the group: the group commits first, the write goes in alone, the group reopens. */
function writeOutside(group: GroupCommit): (write: () => void) => void {
  return (write) => {
    const grouping = group.state === 'open';
    try {
      group.suspend();
    } catch {
      /* the group was lost (the crawl pauses for it); this write still goes in on its own */
    }
    try {
      write();
    } finally {
      if (grouping) group.open();
    }
  };
}

/**
 * The group commit and the logs on it, the WARCs a crash left open (recovered), the frontier
 * (its leases put back) and the capture index (reconciled with the recovered WARCs, unsealed
 * files sealed).
 */
async function openStores(db: Database.Database, paths: CrawlPaths, settings: CrawlSettings, frontierOf: StartCrawlOptions['frontier']): Promise<CrawlStores> {
  // The crawl's writes share transactions (group-commit.ts); the logs say what committed.
  const group = new GroupCommit(db, { maxUnits: GROUP_COMMIT_UNITS, maxDelayMs: GROUP_COMMIT_DELAY_MS });
  const outsideGroup = writeOutside(group);
  const rowsInFlight = new RowsInFlight();
  const crawlLog = new CommittedLineLog(paths.crawlLog, group);
  const scopeLog = new CommittedLineLog(paths.scopeLog, group);
  const notes: CrawlNote[] = [];

  // A crash leaves `.open` WARCs: cut each back to its last complete record and close it.
  const recovered: string[] = [];
  for (const open of await listOpenWarcs(paths.warcs)) {
    const r = await recoverOpenWarc(open);
    recovered.push(path.basename(r.finalPath));
    notes.push({
      code: 'WARC_RECOVERED',
      message: r.removed
        ? `removed ${path.basename(open)}: it held no complete record`
        : `recovered ${path.basename(r.finalPath)}: ${r.records} records kept${r.cutBytes > 0 ? `, torn last record cut (${r.cutBytes} bytes)` : ''}`,
    });
  }

  const frontier = frontierOf?.({ defaultMaxInFlight: settings.perHost }) ?? createSqliteFrontier(db, { defaultMaxInFlight: settings.perHost });
  const requeued = frontier.recoverInFlight();
  if (requeued > 0) notes.push({ code: 'LEASES_REQUEUED', message: `${requeued} URIs that were in flight were put back in the queue` });
  const captures = createCaptureIndex(db);
  if (recovered.length > 0) notes.push(...(await reconcileIndex(captures, paths.dir, recovered)).notes);
  const fileIds = new Map<string, number>();
  for (const f of captures.files()) fileIds.set(f.name, f.id);
  const sealer = new WarcSealer(db);
  sealer.sealUnsealed(captures, paths.dir);
  const existingWarcs = fs.readdirSync(paths.warcs).filter((n) => /\.warc(\.gz)?$/.test(n));
  const previousWarcBytes = existingWarcs.reduce((s, n) => s + fs.statSync(path.join(paths.warcs, n)).size, 0);
  return { group, outsideGroup, rowsInFlight, crawlLog, scopeLog, notes, frontier, captures, fileIds, sealer, existingWarcs, previousWarcBytes };
}

/** The counters, the candidate chain, the robots gate, the fetcher, the extractor and the WARC writer. */
function buildServices(
  db: Database.Database,
  paths: CrawlPaths,
  settings: CrawlSettings,
  scope: Scope,
  customRobotsText: string | null,
  stores: CrawlStores,
  robotsStore: RobotsStateStore | undefined,
): CrawlServices {
  const stats = new CrawlStats(getMeta<Partial<StatsTotals>>(db, 'stats') ?? undefined, getMeta<Partial<StatsTallies>>(db, 'statsTallies') ?? undefined);
  const traps = new TrapDetector();
  const chain = new CandidateChain(scope, settings.queuePolicy, () => {}, (r) => {
    stats.recordScopeRejection(r.rule);
    stores.scopeLog.write(`${new Date().toISOString()} ${r.rule} ${r.url} ${r.hopsPath} ${r.via ?? '-'} ${r.reason}`);
  });
  const robots = new RobotsGate(db, {
    ttlMs: settings.robotsTtlS * 1000,
    maxRetries: settings.maxRetries,
    custom: customRobotsText !== null ? parseRobots(customRobotsText) : null,
    candidateAgents: settings.candidateAgents,
    masquerade: settings.masquerade,
    // A robots.txt outage is retried on the crawl's retry delay (growing with the outage, at
    // most the robots TTL), so --retry-delay-s and the heritrix preset govern it too.
    retryMs: settings.retryDelayS * 1000,
  }, robotsStore);
  const fetcher = createFetcher({
    connectTimeoutMs: settings.connectTimeoutS * 1000,
    headersTimeoutMs: settings.headersTimeoutS * 1000,
    idleTimeoutMs: settings.idleTimeoutS * 1000,
    fetchTimeoutMs: settings.fetchTimeoutS * 1000,
    maxBodyBytes: settings.maxBodyBytes,
    maxHeaderBytes: settings.maxHeaderBytes,
    spoolDir: paths.tmp,
    // Connections per origin: every slot of every queue that origin can have. Under elfhash:N
    // one host is spread over N queues, so N × perHost (with 1 connection the queues would only
    // wait on each other); never more than the crawl's slots.
    maxConnections: Math.min(
      settings.concurrency,
      Math.max(settings.perHost, ...settings.overrides.map((o) => o.perHost ?? 0)) * queuesPerHost(settings.queuePolicy),
    ),
  });
  // Documents up to 4 MiB are extracted on the crawl thread (~16–24 ms per MiB of HTML on a
  // 2-core machine, so at most ~0.1 s of the crawl loop), with no second isolate for the crawl to
  // hold (extract-pool.ts says why). Larger ones go to a worker, started only when one arrives:
  // one per spare core (at least one), as the crawl thread needs a core of its own.
  const extractor = new ExtractPool(Math.max(1, Math.min(2, os.availableParallelism() - 1)), { inlineMaxBytes: INLINE_EXTRACT_MAX_BYTES });
  const writer = openWarcWriter(paths, settings, scope, stores);
  return { stats, traps, chain, robots, fetcher, extractor, writer };
}

/** The WARC writer, numbering on from the files already there, its files' rows kept in the capture index as they open, close and are sealed. */
function openWarcWriter(paths: CrawlPaths, settings: CrawlSettings, scope: Scope, stores: CrawlStores): WarcWriter {
  const { group, outsideGroup, rowsInFlight, captures, fileIds, sealer } = stores;
  return new WarcWriter({
    dir: paths.warcs,
    prefix: settings.warcPrefix,
    maxBytes: settings.warcMaxBytes,
    gzipLevel: settings.warcGzipLevel,
    startSerial: stores.existingWarcs.length,
    warcinfo: () => ({ fields: warcinfoFields(settings, scope.describe()) }),
    onFileOpened: (openPath) => {
      const name = path.basename(openPath).replace(/\.open$/, '');
      // The row commits on its own, before any record's: a crash leaves the `.open` file, and
      // only files the index knows are reconciled on resume.
      outsideGroup(() => fileIds.set(name, captures.addFile({ path: path.join('warcs', name), name, source: 'crawl' })));
    },
    // Rows of records in a file must be durable before it is closed: only `.open` files are
    // reconciled after a crash or a lost group (reconcile-index.ts). URIs that wrote to it
    // and have not added their rows yet are waited for first (rows-in-flight.ts).
    onFileClosing: async (openPath) => {
      await rowsInFlight.settled(path.basename(openPath).replace(/\.open$/, ''));
      group.commit();
    },
    onFileClosed: (finalPath) => {
      const id = fileIds.get(path.basename(finalPath));
      if (id === undefined) return;
      outsideGroup(() => captures.updateFile(id, { size: fs.statSync(finalPath).size }));
      sealer.seal(id, finalPath);
    },
  });
}

/** The CrawlContext the crawl's chain works in, its hard stop, and the compiled exclusions (live ones are added to them). */
function buildContext(p: CrawlParts, clock: (() => number) | undefined): { ctx: CrawlContext; hardAbort: AbortController; excludes: RegExp[] } {
  const hardAbort = new AbortController();
  const excludes = compileRegexes(p.settings.exclude, 'exclude');
  const ctx: CrawlContext = {
    settings: p.settings,
    now: clock ?? Date.now,
    paths: p.paths,
    db: p.db,
    group: p.group,
    rowsInFlight: p.rowsInFlight,
    frontier: p.frontier,
    captures: p.captures,
    writer: p.writer,
    fetcher: p.fetcher,
    cookies: p.login.jar,
    ...(p.login.profile ? { tabLogin: { generation: () => p.login.generation, state: () => p.login.profile! } } : {}),
    ...(p.login.refreshesProfile ? { browserProfile: { observe: (state: ProfileState) => p.login.observeBrowser(state) } } : {}),
    extractor: p.extractor,
    robots: p.robots,
    chain: p.chain,
    stats: p.stats,
    crawlLog: p.crawlLog,
    pageText: p.pageText,
    traps: p.traps,
    prior: p.prior,
    pendingOriginals: new PendingOriginals(),
    fileIds: p.fileIds,
    queueNotes: new Map(),
    hardStop: hardAbort.signal,
    excluded: (url) => excludes.find((re) => re.test(url))?.source ?? null,
    addRedirectSeed: (url) => {
      p.scope.addSeed(url);
      const list = getMeta<string[]>(p.db, 'redirectSeeds') ?? [];
      if (!list.includes(url)) setMeta(p.db, 'redirectSeeds', [...list, url]);
    },
  };
  return { ctx, hardAbort, excludes };
}

/**
 * The counters commit with the outcomes they count. A lost group's outcomes are counted again
 * when its URIs are fetched again, so the counters go back to what they were at the last COMMIT
 * (kept here: after a rollback a lone write may already have stored newer ones). Returns the
 * write of the counters (`persist`).
 */
function wireCommitHooks(p: CrawlParts): () => void {
  const { db, stats } = p;
  const persist = () => {
    setMeta(db, 'stats', stats.totals);
    setMeta(db, 'statsTallies', stats.tallies());
  };
  let committedStats = stats.saved();
  p.group.listen({
    beforeCommit: persist,
    afterCommit: () => {
      committedStats = stats.saved();
      p.frontier.settle?.();
    },
    lost: () => stats.restore(committedStats),
  });
  return persist;
}

/** What makeController takes besides the parts: the hooks built in startCrawl's scope. */
interface ControllerWiring {
  persist: () => void;
  /** The compiled exclusions, live ones added to them. */
  excludes: RegExp[];
  /** The browser crawl's tabs, closed first of the files. */
  tabs: TabPool | null;
  uriChain: UriChain;
  releaseLock: () => void;
  opts: StartCrawlOptions;
}

/** The controller, with the hooks through which it reads the directory, closes the files and then the store. */
function makeController(p: CrawlParts, ctx: CrawlContext, hardAbort: AbortController, w: ControllerWiring): CrawlController {
  const { db, paths, settings, scope, frontier, group, stats, writer, captures, robots, traps, crawlLog, scopeLog } = p;
  let closed = false;
  return new CrawlController(
    ctx,
    {
      previousWarcBytes: p.previousWarcBytes,
      warcFiles: () => fs.readdirSync(paths.warcs).filter((n) => n.includes('.warc')).sort(),
      traps: () => traps.warnings(),
      robotsFor: (queueKey) => robots.describeHost(queueKey.split('#')[0]!),
      workers: w.opts.workers,
      persist: w.persist,
      // A live exclusion goes through this connection, as one unit of the group (live-exclude.ts).
      addExclude: (pattern) => applyLiveExclude({ db, frontier, settings, scope, excludes: w.excludes, scopeLog, stats, unit: (fn) => group.unit(fn), commit: () => group.commit() }, pattern),
      excludeRequests: {
        take: () => takeExcludeRequests(paths.dir),
        answer: (id, answer) => answerExcludeRequest(paths.dir, id, answer),
      },
      reconcile: async () => {
        const current = writer.currentFile ? path.basename(writer.currentFile).replace(/\.open$/, '') : null;
        const names = current ? [current] : [];
        return (await reconcileIndex(captures, paths.dir, names)).notes;
      },
      closeFiles: async () => {
        if (closed) return;
        closed = true;
        await w.tabs?.close();
        await writer.close();
        await p.sealer.settle();
        await p.fetcher.close();
        await p.extractor.close();
        p.login.save();
        p.prior?.close();
      },
      closeStore: async (final) => {
        w.opts.beforeClose?.(final);
        try {
          p.pageText.flush();
          w.persist();
          setMeta(db, 'elapsedMs', final.elapsedMs);
          setMeta(db, 'pausedMs', final.pausedMs ?? 0);
          setMeta(db, 'lastState', { state: final.state, reason: final.finishReason, at: Date.now() });
        } catch (err) {
          // Stopped while the disk is full: the frontier and index are whole (each write is a
          // transaction); only counters and page text are behind, and a resume carries on.
          if (!isDiskFullError(err)) throw err;
        }
        await crawlLog.close();
        await scopeLog.close();
        db.close();
        w.releaseLock();
      },
    },
    hardAbort,
    {
      uriChain: w.uriChain,
      startedAt: getMeta<number>(db, 'createdAt'),
      elapsedBefore: getMeta<number>(db, 'elapsedMs') ?? 0,
      pausedBefore: getMeta<number>(db, 'pausedMs') ?? 0,
    },
  );
}

/** How many frontier queues one host is spread over. */
function queuesPerHost(policy: string): number {
  const p = parseQueuePolicy(policy);
  return p.kind === 'elfhash' ? p.buckets : 1;
}

function warcinfoFields(s: CrawlSettings, scopeRules: string[]): Record<string, string | number | boolean | string[]> {
  return {
    software: `Trove/${TROVE_VERSION} (Node.js ${process.version})`,
    format: 'WARC File Format 1.1',
    conformsTo: WARC_CONFORMS_TO,
    isPartOf: s.name,
    description: `Crawl of ${s.seeds.slice(0, 5).join(' ')}${s.seeds.length > 5 ? ' …' : ''}`,
    operator: s.operator || 'unknown',
    hostname: os.hostname(),
    'http-header-user-agent': s.userAgent,
    robots: s.robots + (s.candidateAgents.length ? ` (candidates: ${s.candidateAgents.join(', ')}${s.masquerade ? ', masquerade' : ''})` : ''),
    'http-body': 'response blocks hold the bytes as received (content-encoding and chunked framing kept); WARC-Payload-Digest is over the entity body after transfer decoding',
    scope: scopeRules,
    'trove-settings': JSON.stringify(s),
  };
}
