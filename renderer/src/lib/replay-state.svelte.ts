/**
 * The replay pane: which archived URL at which time, the banner info, the URL's timeline, and a
 * back/forward history of the pages visited in the pane. The page itself is drawn by the host: a
 * native view in Electron, an intercepted iframe in the browser harness.
 */
import type { CaptureSummary, ReplayInfo, ReplayMissing } from '../../../core/api/app-types.ts';
import type { Events } from '../../../core/api/channels.ts';
import { unwrap, type TroveApi } from './bridge.ts';
import { attempt } from './attempt.ts';

interface Stop {
  url: string;
  at: string | undefined;
}

export class ReplayState {
  open = $state(false);
  archiveId = $state<string | null>(null);
  url = $state('');
  at = $state<string | undefined>(undefined);
  mode = $state<'view' | 'frame' | null>(null);
  frameSrc = $state<string | null>(null);
  /** Bumped on every open, so the frame reloads even for the same src. */
  loadCount = $state(0);
  info = $state.raw<ReplayInfo | null>(null);
  timeline = $state.raw<CaptureSummary[]>([]);
  back = $state.raw<Stop[]>([]);
  forward = $state.raw<Stop[]>([]);
  error = $state<string | null>(null);
  loading = $state(false);
  /** URLs the page shown asked for that the archive does not hold (from the replay handler). */
  missing = $state.raw<string[]>([]);
  /** The replayed page fills the window (ReplayWeb.page's full-window mode). */
  fullWindow = $state(false);

  readonly api: TroveApi;

  constructor(api: TroveApi) {
    this.api = api;
  }

  canBack = $derived(this.back.length > 0);
  canForward = $derived(this.forward.length > 0);
  captureTs = $derived(this.info?.kind === 'archived' ? this.info.capture.ts : null);

  /** Show `url` as archived at `at` (closest capture; the latest when omitted). */
  async show(archiveId: string, url: string, at?: string, opts: { push?: boolean } = {}): Promise<void> {
    if (opts.push !== false && this.open && this.url && (this.url !== url || this.at !== at)) {
      this.back = [...this.back, { url: this.url, at: this.at }];
      this.forward = [];
    }
    this.open = true;
    this.archiveId = archiveId;
    this.url = url;
    this.at = at;
    this.missing = [];
    const r = await attempt(async () => {
      const opened = await unwrap(this.api.replay.open({ archiveId, url, ...(at ? { at } : {}) }));
      if (this.url !== url) return; // another page was asked for meanwhile
      this.mode = opened.mode;
      this.frameSrc = opened.frameSrc;
      this.info = opened.info;
      this.loadCount++;
      this.error = null;
      await this.loadTimeline();
    }, (on) => (this.loading = on));
    if (!r.ok) this.error = r.message;
  }

  async loadTimeline(): Promise<void> {
    if (!this.archiveId || !this.url) return;
    const url = this.url;
    const r = await attempt(this.api.records.timeline({ archiveId: this.archiveId, url }));
    if (!r.ok) this.timeline = [];
    else if (this.url === url) this.timeline = r.value;
  }

  /** A link clicked inside the archived page took the pane somewhere else. */
  onNavigated(p: Events['replay.navigated']): void {
    if (!this.open || p.archiveId !== this.archiveId || p.url === this.url) return;
    this.back = [...this.back, { url: this.url, at: this.at }];
    this.forward = [];
    this.url = p.url;
    this.info = p.info;
    this.missing = [];
    void this.loadTimeline();
  }

  onMissing(p: ReplayMissing): void {
    if (this.open && p.archiveId === this.archiveId && p.page === this.url) this.missing = p.urls;
  }

  /** The URL bar: go to what was typed (a bare host gets http://), at the time shown now. */
  async go(typed: string): Promise<void> {
    const t = typed.trim();
    if (!this.archiveId || t === '') return;
    const url = /^[a-z][a-z0-9+.-]*:/i.test(t) ? t : `http://${t}`;
    await this.show(this.archiveId, url, this.at);
  }

  goBack(): Promise<void> {
    return this.step('back', 'forward');
  }

  goForward(): Promise<void> {
    return this.step('forward', 'back');
  }

  /** Take the last place off one history (back or forward), leaving the current one on the other. */
  private async step(from: 'back' | 'forward', to: 'back' | 'forward'): Promise<void> {
    const place = this[from].at(-1);
    if (!place || !this.archiveId) return;
    this[from] = this[from].slice(0, -1);
    this[to] = [...this[to], { url: this.url, at: this.at }];
    await this.show(this.archiveId, place.url, place.at, { push: false });
  }

  /** Jump to another capture of the same URL (from the timeline). */
  async pick(ts: string): Promise<void> {
    if (!this.archiveId) return;
    await this.show(this.archiveId, this.url, ts);
  }

  async close(): Promise<void> {
    this.open = false;
    this.fullWindow = false;
    this.missing = [];
    this.back = [];
    this.forward = [];
    this.info = null;
    this.frameSrc = null;
    await attempt(this.api.replay.close()); // a failure means there was nothing to close
  }
}
