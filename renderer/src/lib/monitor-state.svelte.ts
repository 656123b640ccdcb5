/**
 * The Monitor: the focused crawl's latest snapshot, a rolling history for the charts, the log,
 * and the controls. Snapshots arrive as events (~4/s); nothing here polls. The crawl.log /
 * scope.log tail and a host's queue are read from the crawl's files and database (so they are
 * there after a reopen too), refreshed on snapshots at most every LOG_REFRESH_MS.
 */
import type { CrawlSnapshot, CrawlState, TrapWarning } from '../../../core/api/crawl-snapshot.ts';
import type { Events } from '../../../core/api/channels.ts';
import type { ExcludePreview, LogName, LogTailEntry, QueuedPage, QueuedUri } from '../../../core/api/app-types.ts';
import type { CrawlSettings } from '../../../core/api/settings.ts';
import { messageOf, unwrap, type TroveApi } from './bridge.ts';
import { limitProgress, LIMITS, type LimitKey } from './limit-progress.ts';

export interface RatePoint {
  t: number;
  uris: number;
  kb: number;
}

export interface LogLine {
  time: number;
  level: 'info' | 'warn' | 'error';
  message: string;
}

/** Points kept for the charts: two minutes at four a second. */
export const HISTORY_POINTS = 480;
const LOG_LINES = 200;
/** Lines per page of the file log view, and URIs per page of a queue. */
export const LOG_PAGE = 100;
export const QUEUE_PAGE = 50;
/** The first page of the file log is read again at most this often while the crawl runs. */
export const LOG_REFRESH_MS = 1500;

export interface LogFilter {
  status: string;
  host: string;
  text: string;
  rule: string;
}

export interface TrapConfirm {
  trap: TrapWarning;
  preview: ExcludePreview | null;
  error: string | null;
}

/** The limits the resume dialog edits (0 = none). */
export type LimitEdit = Record<LimitKey, number>;

export class MonitorState {
  id = $state<string | null>(null);
  snapshot = $state.raw<CrawlSnapshot | null>(null);
  history = $state.raw<RatePoint[]>([]);
  logs = $state.raw<LogLine[]>([]);
  busy = $state(false);
  error = $state<string | null>(null);

  /** The crawl's stored settings (for its limits). */
  settings = $state.raw<CrawlSettings | null>(null);

  // The file log view.
  logName = $state<LogName>('crawl');
  logFilter = $state<LogFilter>({ status: '', host: '', text: '', rule: '' });
  logLines = $state.raw<LogTailEntry[]>([]);
  logNext = $state<number | null>(null);
  logLoading = $state(false);
  logError = $state<string | null>(null);

  // A host's queue.
  queueKey = $state<string | null>(null);
  queueUris = $state.raw<QueuedUri[]>([]);
  queueInfo = $state.raw<Omit<QueuedPage, 'uris'> | null>(null);

  /** A trap exclusion waiting for the operator's confirmation. */
  trapConfirm = $state.raw<TrapConfirm | null>(null);
  /** The resume dialog's limits, while it is open. */
  resumeLimits = $state<LimitEdit | null>(null);

  readonly api: TroveApi;
  /** Rate history of every crawl seen this session, so switching back keeps the charts. */
  private histories = new Map<string, RatePoint[]>();
  private now: () => number;
  private lastLogRead = 0;
  /** Bumped on every log (re)load, so a late answer for old filters is dropped. */
  private logGen = 0;

  constructor(api: TroveApi, opts: { now?: () => number } = {}) {
    this.api = api;
    this.now = opts.now ?? Date.now;
  }

  state = $derived<CrawlState | null>(this.snapshot?.state ?? null);
  live = $derived(this.state !== null && this.state !== 'finished' && this.state !== 'failed');
  canPause = $derived(this.state === 'running');
  canResume = $derived(this.state === 'paused' || this.state === 'pausing' || this.state === 'finished' || this.state === 'failed');
  canStop = $derived(this.state === 'running' || this.state === 'paused' || this.state === 'pausing' || this.state === 'starting' || this.state === 'stopping');
  /** Current rates mean something only while running: paused or finished shows none. */
  moving = $derived(this.state === 'running' || this.state === 'stopping');
  /** A finish by a limit or an empty frontier is the normal end, not a failure. */
  finishedNormally = $derived(this.state === 'finished' && this.snapshot?.finishReason !== 'error');

  limits = $derived(this.snapshot ? limitProgress(this.snapshot, this.settings) : []);

  /** Outcomes that are not fetches but are not errors either: robots.txt and scope drops. */
  notFetched = $derived.by(() => {
    const codes = this.snapshot?.statusCodes ?? {};
    const robots = codes['-9998'] ?? 0;
    const scope = (codes['-5000'] ?? 0) + (codes['-5001'] ?? 0) + (codes['-5002'] ?? 0);
    const failed = this.snapshot?.failed ?? 0;
    return { robots, scope, errors: Math.max(0, failed - robots - scope) };
  });
  /** Links rejected by scope before they were queued (never counted among the outcomes). */
  rejectedTotal = $derived(Object.values(this.snapshot?.scopeRejections ?? {}).reduce((a, b) => a + b, 0));

  /** Scope rejections, largest first. */
  rejections = $derived(Object.entries(this.snapshot?.scopeRejections ?? {}).sort((a, b) => b[1] - a[1]));
  statusCodes = $derived(
    Object.entries(this.snapshot?.statusCodes ?? {})
      .map(([code, n]) => [Number(code), n] as const)
      .sort((a, b) => b[1] - a[1]),
  );
  mimeTypes = $derived(Object.entries(this.snapshot?.mimeTypes ?? {}).sort((a, b) => b[1] - a[1]));
  /** Share of downloaded bytes that were new (not duplicates). */
  novelShare = $derived.by(() => {
    const s = this.snapshot;
    if (!s) return 0;
    const all = s.novelBytes + s.duplicateBytes;
    return all > 0 ? s.novelBytes / all : 0;
  });

  /** Follow crawl `id`; for the crawl already followed, resolves when its first load is done. */
  attach(id: string | null): Promise<void> {
    if (id === this.id) return this.attaching;
    this.attaching = this.load(id);
    return this.attaching;
  }

  private attaching: Promise<void> = Promise.resolve();

  private async load(id: string | null): Promise<void> {
    this.id = id;
    this.snapshot = null;
    this.history = id ? (this.histories.get(id) ?? []) : [];
    this.logs = [];
    this.error = null;
    this.settings = null;
    this.logLines = [];
    this.logNext = null;
    this.queueKey = null;
    this.queueUris = [];
    this.queueInfo = null;
    this.trapConfirm = null;
    this.resumeLimits = null;
    if (!id) return;
    try {
      const [snap, detail] = await Promise.all([unwrap(this.api.crawl.snapshot({ id })), unwrap(this.api.library.open({ id })).catch(() => null)]);
      if (this.id !== id) return;
      if (snap && !this.snapshot) this.snapshot = snap;
      this.settings = detail?.settings ?? null;
    } catch (err) {
      this.error = messageOf(err);
    }
    await this.loadLog();
  }

  onSnapshot(p: Events['crawl.snapshot']): void {
    const running = p.snapshot.state === 'running' || p.snapshot.state === 'stopping';
    const point = { t: p.snapshot.elapsedMs, uris: running ? p.snapshot.urisPerSec : 0, kb: running ? p.snapshot.kbPerSec : 0 };
    const old = this.histories.get(p.id) ?? [];
    const h = old.length >= HISTORY_POINTS ? old.slice(1) : old.slice();
    h.push(point);
    this.histories.set(p.id, h);
    if (p.id !== this.id) return;
    this.snapshot = p.snapshot;
    this.history = h;
    // Follow the log's newest lines, unless the operator has paged back into it.
    if (this.logNext === null || this.logLines.length <= LOG_PAGE) {
      if (this.now() - this.lastLogRead >= LOG_REFRESH_MS) void this.loadLog();
    }
  }

  // ── the file log ──

  /** Read the newest page of the chosen log with the current filters (from the file). */
  async loadLog(more = false): Promise<void> {
    const id = this.id;
    if (!id) return;
    const gen = ++this.logGen;
    this.lastLogRead = this.now();
    this.logLoading = true;
    const f = this.logFilter;
    try {
      const page = await unwrap(
        this.api.crawl.logTail({
          id,
          log: this.logName,
          limit: LOG_PAGE,
          ...(f.status.trim() && this.logName === 'crawl' ? { status: f.status.trim() } : {}),
          ...(f.host.trim() ? { host: f.host.trim() } : {}),
          ...(f.text.trim() ? { text: f.text.trim() } : {}),
          ...(f.rule && this.logName === 'scope' ? { rule: f.rule } : {}),
          ...(more && this.logNext !== null ? { before: this.logNext } : {}),
        }),
      );
      if (gen !== this.logGen || id !== this.id) return;
      this.logLines = more ? [...this.logLines, ...page.lines] : page.lines;
      this.logNext = page.next;
      this.logError = null;
    } catch (err) {
      if (gen === this.logGen) this.logError = messageOf(err);
    } finally {
      if (gen === this.logGen) this.logLoading = false;
    }
  }

  showLog(name: LogName, filter: Partial<LogFilter> = {}): Promise<void> {
    this.logName = name;
    this.logFilter = { ...this.logFilter, ...filter };
    return this.loadLog();
  }

  /** Scope rejections of one rule, newest first (from scope.log). */
  showRejections(rule: string): Promise<void> {
    return this.showLog('scope', { rule, status: '' });
  }

  // ── a host's queue ──

  async showQueue(key: string | null, more = false): Promise<void> {
    const id = this.id;
    this.queueKey = key;
    if (!id || !key) {
      this.queueUris = [];
      this.queueInfo = null;
      return;
    }
    try {
      const after = more ? this.queueInfo?.next : undefined;
      const page = await unwrap(this.api.crawl.queued({ id, queue: key, limit: QUEUE_PAGE, ...(after ? { after } : {}) }));
      if (this.id !== id || this.queueKey !== key) return;
      this.queueUris = more ? [...this.queueUris, ...page.uris] : page.uris;
      const { uris: _uris, ...info } = page;
      this.queueInfo = info;
    } catch (err) {
      this.error = messageOf(err);
    }
  }

  // ── trap exclusions: preview, then confirm ──

  async askExclude(trap: TrapWarning): Promise<void> {
    const id = this.id;
    if (!id) return;
    this.trapConfirm = { trap, preview: null, error: null };
    try {
      const preview = await unwrap(this.api.crawl.excludePreview({ id, pattern: trap.suggestedExclude, samples: 10 }));
      if (this.trapConfirm?.trap === trap) this.trapConfirm = { trap, preview, error: null };
    } catch (err) {
      if (this.trapConfirm?.trap === trap) this.trapConfirm = { trap, preview: null, error: messageOf(err) };
    }
  }

  cancelExclude(): void {
    this.trapConfirm = null;
  }

  async confirmExclude(): Promise<boolean> {
    const t = this.trapConfirm;
    if (!t) return false;
    const ok = await this.excludeTrap(t.trap.suggestedExclude);
    if (ok) this.trapConfirm = null;
    return ok;
  }

  // ── resume with edited limits ──

  openResume(): void {
    const s = this.settings;
    this.resumeLimits = {
      limitPages: s?.limitPages ?? 0,
      limitUris: s?.limitUris ?? 0,
      limitBytes: s?.limitBytes ?? 0,
      limitTimeS: s?.limitTimeS ?? 0,
    };
  }

  cancelResume(): void {
    this.resumeLimits = null;
  }

  /** Resume; only limits that changed are sent (the rest of the settings stay as stored). */
  async confirmResume(): Promise<boolean> {
    const edit = this.resumeLimits;
    if (!edit) return false;
    const changed: Partial<LimitEdit> = {};
    for (const { key } of LIMITS) {
      const v = edit[key];
      if (!Number.isInteger(v) || v < 0) {
        this.error = `${key}: a whole number, 0 for no limit`;
        return false;
      }
      if (v !== (this.settings?.[key] ?? 0)) changed[key] = v;
    }
    const ok = await this.resume(Object.keys(changed).length > 0 ? changed : undefined);
    if (ok) {
      this.resumeLimits = null;
      if (this.settings) this.settings = { ...this.settings, ...changed };
    }
    return ok;
  }

  onState(p: Events['crawl.state']): void {
    if (p.id !== this.id) return;
    // Its last lines are in the file once a crawl ends: read them (a short crawl ends within one refresh interval).
    if (p.state === 'finished' || p.state === 'failed') void this.loadLog();
    if (!this.snapshot) return;
    this.snapshot = { ...this.snapshot, state: p.state, finishReason: p.reason, message: p.message };
  }

  onLog(p: Events['crawl.log']): void {
    if (p.id !== this.id) return;
    const l = this.logs.length >= LOG_LINES ? this.logs.slice(1) : this.logs.slice();
    l.push({ time: Date.now(), level: p.level, message: p.message });
    this.logs = l;
  }

  private async run(fn: (id: string) => Promise<unknown>): Promise<boolean> {
    const id = this.id;
    if (!id) return false;
    this.busy = true;
    try {
      await fn(id);
      this.error = null;
      return true;
    } catch (err) {
      this.error = messageOf(err);
      return false;
    } finally {
      this.busy = false;
    }
  }

  pause = () => this.run((id) => unwrap(this.api.crawl.pause({ id })));
  stop = (now = false) => this.run((id) => unwrap(this.api.crawl.stop({ id, now })));
  resume = (settings?: Partial<LimitEdit>) => this.run((id) => unwrap(this.api.crawl.resume({ id, ...(settings ? { settings } : {}) })));
  togglePause = () => (this.canPause ? this.pause() : this.canResume ? this.resume() : Promise.resolve(false));
  excludeTrap = (pattern: string) => this.run((id) => unwrap(this.api.crawl.addExclude({ id, pattern })));
}
