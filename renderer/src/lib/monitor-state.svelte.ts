/**
 * The Monitor: the focused crawl's latest snapshot, a rolling history for the charts, the log,
 * and the controls. Snapshots arrive as events (~4/s); nothing here polls.
 */
import type { CrawlSnapshot, CrawlState } from '../../../core/api/crawl-snapshot.ts';
import type { Events } from '../../../core/api/channels.ts';
import { messageOf, unwrap, type TroveApi } from './bridge.ts';

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

export class MonitorState {
  id = $state<string | null>(null);
  snapshot = $state.raw<CrawlSnapshot | null>(null);
  history = $state.raw<RatePoint[]>([]);
  logs = $state.raw<LogLine[]>([]);
  busy = $state(false);
  error = $state<string | null>(null);

  readonly api: TroveApi;
  /** Rate history of every crawl seen this session, so switching back keeps the charts. */
  private histories = new Map<string, RatePoint[]>();

  constructor(api: TroveApi) {
    this.api = api;
  }

  state = $derived<CrawlState | null>(this.snapshot?.state ?? null);
  live = $derived(this.state !== null && this.state !== 'finished' && this.state !== 'failed');
  canPause = $derived(this.state === 'running');
  canResume = $derived(this.state === 'paused' || this.state === 'pausing' || this.state === 'finished' || this.state === 'failed');
  canStop = $derived(this.state === 'running' || this.state === 'paused' || this.state === 'pausing' || this.state === 'starting' || this.state === 'stopping');

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

  async attach(id: string | null): Promise<void> {
    if (id === this.id) return;
    this.id = id;
    this.snapshot = null;
    this.history = id ? (this.histories.get(id) ?? []) : [];
    this.logs = [];
    this.error = null;
    if (!id) return;
    try {
      const snap = await unwrap(this.api.crawl.snapshot({ id }));
      if (this.id === id && snap && !this.snapshot) this.snapshot = snap;
    } catch (err) {
      this.error = messageOf(err);
    }
  }

  onSnapshot(p: Events['crawl.snapshot']): void {
    const point = { t: p.snapshot.elapsedMs, uris: p.snapshot.urisPerSec, kb: p.snapshot.kbPerSec };
    const old = this.histories.get(p.id) ?? [];
    const h = old.length >= HISTORY_POINTS ? old.slice(1) : old.slice();
    h.push(point);
    this.histories.set(p.id, h);
    if (p.id !== this.id) return;
    this.snapshot = p.snapshot;
    this.history = h;
  }

  onState(p: Events['crawl.state']): void {
    if (p.id !== this.id || !this.snapshot) return;
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
  resume = () => this.run((id) => unwrap(this.api.crawl.resume({ id })));
  togglePause = () => (this.canPause ? this.pause() : this.canResume ? this.resume() : Promise.resolve(false));
  excludeTrap = (pattern: string) => this.run((id) => unwrap(this.api.crawl.addExclude({ id, pattern })));
}
