/**
 * The Monitor: the focused crawl's latest snapshot, a rolling history for the charts, the log,
 * and the controls. Snapshots arrive as events (~4/s); nothing here polls. The crawl.log /
 * scope.log tail and a host's queue are read from the crawl's files and database (so they are
 * there after a reopen too), refreshed on snapshots at most every LOG_REFRESH_MS. The exclusion
 * dialog (any pattern: a trap's suggestion, a host's queue, typed in the Monitor) previews what the
 * pattern would drop from the queue, and refreshes that preview on snapshots while it is open (at
 * most every PREVIEW_REFRESH_MS, one request at a time), so the count follows a growing queue.
 */
import type { CrawlSnapshot, CrawlState, TrapWarning } from '../../../core/api/crawl-snapshot.ts';
import type { Events } from '../../../core/api/channels.ts';
import type { ExcludeApplied, ExcludePreview, LogName, LogTailEntry, QueuedPage, QueuedUri } from '../../../core/api/app-types.ts';
import type { CrawlSettings } from '../../../core/api/settings.ts';
import { unwrap, type TroveApi } from './bridge.ts';
import { attempt } from './attempt.ts';
import { limitProgress, LIMITS, type LimitKey } from './limit-progress.ts';
import { fieldProblem, labelOf } from './setting-fields.ts';

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

/** The preview is asked again at most this often while the exclusion dialog is open. */
export const PREVIEW_REFRESH_MS = 1000;
/** A typed pattern is previewed this long after the last keystroke. */
export const PREVIEW_TYPING_MS = 250;

/** An exclusion being written and previewed, before the operator confirms it. */
export interface ExcludeDraft {
  pattern: string;
  /** The trap warning whose suggestion it started from, if any. */
  trap: TrapWarning | null;
  /** The preview of `pattern` (null until the first answer, or for an empty pattern). */
  preview: ExcludePreview | null;
  /** Why there is no preview (a bad regex: SCOPE_BAD_REGEX's message). */
  error: string | null;
  /** When the preview shown was read (this.now()). */
  previewAt: number | null;
}

/** A regex matching every URL of a host (a host's queue → its exclusion). */
export function hostExclude(queueKey: string): string {
  const host = queueKey.split('#')[0]!;
  return `^https?://${host.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}[:/]`;
}

/** A URI waiting for another try, as the monitor shows it. */
export interface RetryLine {
  url: string;
  status: number;
  /** The last try's outcome: its name and, for a failure without a response, its code (`TIMEOUT (-4)`, `HTTP 503`). */
  outcome: string;
  /** `try 4 of 4`. */
  tries: string;
  /** ms until the next try may start, on the monitor's clock; null unless the crawl is running (paused, stopping or finished, it is tried when the crawl is resumed). */
  inMs: number | null;
}

/** What the crawl waits for, beside what it is fetching. */
export interface Waits {
  /** URIs waiting for another try (at least that many when `retryingCapped`: the crawl stops counting at 10,000), and the soonest few. */
  retrying: number;
  retryingCapped: boolean;
  next: RetryLine[];
  /** Tries made again after a failed one, so far. */
  retriesMade: number;
  /** Queued pages a reached page limit holds back (a higher limit fetches them). */
  heldByPageLimit: number;
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

  /** An exclusion being written and previewed (the dialog is open while it is set). */
  excludeDraft = $state.raw<ExcludeDraft | null>(null);
  /** What the last confirmed exclusion did. */
  lastExclude = $state.raw<ExcludeApplied | null>(null);
  /** The resume dialog's limits, while it is open. */
  resumeLimits = $state<LimitEdit | null>(null);
  /** The resume dialog's exclusion field ('' for none). */
  resumeExclude = $state('');

  readonly api: TroveApi;
  /** Rate history of every crawl seen this session, so switching back keeps the charts. */
  private histories = new Map<string, RatePoint[]>();
  private now: () => number;
  private lastLogRead = 0;
  /** Bumped on every log (re)load, so a late answer for old filters is dropped. */
  private logGen = 0;
  /** Bumped on every preview request, so only the newest answer is shown. */
  private previewGen = 0;
  private previewBusy = false;
  private typingTimer: ReturnType<typeof setTimeout> | null = null;

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

  /**
   * What the crawl waits for: URIs waiting for another try (the last try's outcome, which try
   * comes next, and a countdown on this monitor's clock, recomputed with each snapshot) and the
   * pages a reached page limit holds back. Snapshots stored before these were counted have none.
   */
  waits = $derived.by((): Waits => {
    const s = this.snapshot;
    const running = s?.state === 'running';
    const now = this.now();
    return {
      retrying: s?.retrying?.count ?? 0,
      retryingCapped: s?.retrying?.capped ?? false,
      next: (s?.retrying?.next ?? []).map((r) => ({
        url: r.url,
        status: r.status,
        outcome: r.status < 0 ? `${r.outcome} (${r.status})` : r.outcome,
        tries: `try ${r.nextTry} of ${r.maxTries}`,
        inMs: running ? Math.max(0, r.nextTryAt - now) : null,
      })),
      retriesMade: s?.retries ?? 0,
      heldByPageLimit: s?.heldByPageLimit ?? 0,
    };
  });

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
    this.cancelExclude();
    this.lastExclude = null;
    this.resumeLimits = null;
    this.resumeExclude = '';
    if (!id) return;
    const r = await attempt(() => Promise.all([unwrap(this.api.crawl.snapshot({ id })), unwrap(this.api.library.open({ id })).catch(() => null)]));
    if (!r.ok) this.error = r.message;
    else if (this.id === id) {
      const [snap, detail] = r.value;
      if (snap && !this.snapshot) this.snapshot = snap;
      this.settings = detail?.settings ?? null;
    }
    if (!r.ok || this.id === id) await this.loadLog();
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
    // The open exclusion dialog follows the queue as it grows.
    const d = this.excludeDraft;
    if (d && d.pattern && !this.previewBusy && !this.typingTimer && (d.previewAt === null || this.now() - d.previewAt >= PREVIEW_REFRESH_MS)) void this.refreshPreview();
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
    const r = await attempt(
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
    // Only the newest read clears the loading flag (an older one may answer after it started).
    if (gen !== this.logGen) return;
    this.logLoading = false;
    if (!r.ok) this.logError = r.message;
    else if (id === this.id) {
      this.logLines = more ? [...this.logLines, ...r.value.lines] : r.value.lines;
      this.logNext = r.value.next;
      this.logError = null;
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
    const after = more ? this.queueInfo?.next : undefined;
    const r = await attempt(this.api.crawl.queued({ id, queue: key, limit: QUEUE_PAGE, ...(after ? { after } : {}) }));
    if (!r.ok) {
      this.error = r.message;
      return;
    }
    if (this.id !== id || this.queueKey !== key) return;
    const { uris, ...info } = r.value;
    this.queueUris = more ? [...this.queueUris, ...uris] : uris;
    this.queueInfo = info;
  }

  // ── exclusions: write a pattern, preview it (refreshed as the queue grows), then confirm ──

  /** Open the exclusion dialog with `pattern` (a trap's suggestion, a host's, or empty to type one). */
  openExclude(pattern = '', trap: TrapWarning | null = null): Promise<void> {
    this.excludeDraft = { pattern, trap, preview: null, error: null, previewAt: null };
    return pattern ? this.refreshPreview() : Promise.resolve();
  }

  /** A trap warning's "Exclude…": its suggested pattern, previewed. */
  askExclude(trap: TrapWarning): Promise<void> {
    return this.openExclude(trap.suggestedExclude, trap);
  }

  /** A host's queue's "Exclude…": every URL of that host. */
  excludeQueue(queueKey: string): Promise<void> {
    return this.openExclude(hostExclude(queueKey));
  }

  /** The pattern was edited: previewed once typing pauses. */
  setExcludePattern(pattern: string): void {
    const d = this.excludeDraft;
    if (!d) return;
    this.previewGen++; // an answer for the old pattern is dropped
    this.excludeDraft = { ...d, pattern, preview: null, error: null, previewAt: null };
    if (this.typingTimer) clearTimeout(this.typingTimer);
    this.typingTimer = setTimeout(() => {
      this.typingTimer = null;
      void this.refreshPreview();
    }, PREVIEW_TYPING_MS);
  }

  /** Ask for the preview of the dialog's pattern now (the newest answer wins). */
  async refreshPreview(): Promise<void> {
    const id = this.id;
    const d = this.excludeDraft;
    if (!id || !d || !d.pattern) return;
    const gen = ++this.previewGen;
    const pattern = d.pattern;
    this.previewBusy = true;
    const r = await attempt(this.api.crawl.excludePreview({ id, pattern, samples: 10 }));
    // Only the newest request's answer is shown, and only it clears the busy flag.
    if (gen !== this.previewGen) return;
    this.previewBusy = false;
    const now = this.excludeDraft;
    if (!now || now.pattern !== pattern) return;
    if (!r.ok) this.excludeDraft = { ...now, preview: null, error: r.message, previewAt: this.now() };
    else if (this.id === id) this.excludeDraft = { ...now, preview: r.value, error: null, previewAt: this.now() };
  }

  cancelExclude(): void {
    if (this.typingTimer) clearTimeout(this.typingTimer);
    this.typingTimer = null;
    this.previewGen++;
    this.previewBusy = false;
    this.excludeDraft = null;
  }

  /** Add the dialog's pattern to the crawl (live when it runs: no restart); closes the dialog on success. */
  async confirmExclude(): Promise<ExcludeApplied | null> {
    const d = this.excludeDraft;
    if (!d || !d.pattern) return null;
    const ok = await this.excludeTrap(d.pattern);
    if (!ok) return null;
    if (this.excludeDraft?.pattern === d.pattern) this.cancelExclude();
    const kept = this.settings?.exclude ?? [];
    if (this.settings && !kept.includes(d.pattern)) this.settings = { ...this.settings, exclude: [...kept, d.pattern] };
    return this.lastExclude;
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
    this.resumeExclude = '';
  }

  /** Resume; only limits that changed are sent (the rest of the settings stay as stored). */
  async confirmResume(): Promise<boolean> {
    const edit = this.resumeLimits;
    if (!edit) return false;
    const changed: Partial<LimitEdit> = {};
    for (const { key } of LIMITS) {
      const v = edit[key];
      // The dialog refuses these under their fields; this is the same check, by label, for any other caller.
      const problem = fieldProblem(key, v);
      if (problem) {
        this.error = `${labelOf(key)}: ${problem}`;
        return false;
      }
      if (v !== (this.settings?.[key] ?? 0)) changed[key] = v;
    }
    // An exclusion typed in the dialog is added first, so the resumed crawl starts with it.
    const pattern = this.resumeExclude.trim();
    if (pattern && !(await this.excludeTrap(pattern))) return false;
    const kept = this.settings?.exclude ?? [];
    if (pattern && this.settings && !kept.includes(pattern)) this.settings = { ...this.settings, exclude: [...kept, pattern] };
    this.resumeExclude = '';
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
    const r = await attempt(() => fn(id), (on) => (this.busy = on));
    this.error = r.ok ? null : r.message;
    return r.ok;
  }

  pause = () => this.run((id) => unwrap(this.api.crawl.pause({ id })));
  stop = (now = false) => this.run((id) => unwrap(this.api.crawl.stop({ id, now })));
  resume = (settings?: Partial<LimitEdit>) => this.run((id) => unwrap(this.api.crawl.resume({ id, ...(settings ? { settings } : {}) })));
  togglePause = () => (this.canPause ? this.pause() : this.canResume ? this.resume() : Promise.resolve(false));
  /** Add `pattern` to the crawl; what it did is kept in `lastExclude`. */
  excludeTrap = (pattern: string) =>
    this.run(async (id) => {
      this.lastExclude = await unwrap(this.api.crawl.addExclude({ id, pattern }));
    });
}
