/**
 * The QA view of the WARC browser: an archive's QA results, its pages worst-first, the page
 * opened side by side (its three screenshots), the archivist's verdict and note on it, and the
 * QA run or patch under way with its progress (from `qa.progress` events; a view opened mid-run
 * asks `qa.status`). Everything shown is read back from the archive, where the core keeps it,
 * so closing and reopening the app loses nothing.
 */
import type { QaBand, QaPageResult, QaPatchResult, QaRunInfo, QaShots, QaVerdict } from '../../../core/api/qa-types.ts';
import type { QaJobStatus } from '../../../core/api/qa-view-types.ts';
import type { Events } from '../../../core/api/channels.ts';
import { unwrap, type TroveApi } from './bridge.ts';
import { attempt } from './attempt.ts';
import type { Result } from '../../../core/api/result.ts';
import { etaMs, pageKey } from './qa-format.ts';
import { atMostEvery } from './at-most-every.ts';

export const QA_PAGES_LIMIT = 200;
/** While a run scores pages, the list is read again at most this often (results are written as each page is scored). */
export const QA_LIVE_MS = 1000;

export class QaState {
  archiveId = $state<string | null>(null);
  /** The newest run, and the bands of the pages' current results (each page's newest scoring). */
  run = $state.raw<QaRunInfo | null>(null);
  bands = $state.raw<Record<QaBand, number>>({ good: 0, moderate: 0, severe: 0 });
  rows = $state.raw<QaPageResult[]>([]);
  total = $state(0);
  loading = $state(false);
  /** Reading the results failed; or the last QA run or patch failed (jobError, kept until the next). */
  error = $state<string | null>(null);
  jobError = $state<string | null>(null);
  /** The page opened side by side, its pictures, and what went wrong reading or reviewing it. */
  selected = $state.raw<QaPageResult | null>(null);
  shots = $state.raw<QaShots | null>(null);
  pageError = $state<string | null>(null);
  /** The note being written for the selected page (saved with its verdict). */
  note = $state('');
  /** The QA run or patch under way on this archive, and when its last progress came. */
  job = $state.raw<QaJobStatus | null>(null);
  jobAt = $state(0);
  /** Score pages with no capture-time screenshot against the live site (an imported archive's pages). */
  againstLive = $state(false);
  /** How the last patch went (before → after), until the next job. */
  lastPatch = $state.raw<QaPatchResult | null>(null);

  readonly api: TroveApi;
  private now: () => number;
  private seq = 0;

  constructor(api: TroveApi, now: () => number = Date.now) {
    this.api = api;
    this.now = now;
  }

  /** Share of the job done (0..1), or null before its total is known. */
  fraction = $derived(this.job && this.job.progress.total > 0 ? Math.min(1, this.job.progress.done / this.job.progress.total) : null);
  eta = $derived(this.job ? etaMs(this.job.progress.done, this.job.progress.total, this.job.startedAt, this.jobAt) : null);

  async open(archiveId: string | null): Promise<void> {
    if (archiveId === this.archiveId) return;
    this.archiveId = archiveId;
    this.rows = [];
    this.total = 0;
    this.run = null;
    this.bands = { good: 0, moderate: 0, severe: 0 };
    this.job = null;
    this.jobError = null;
    this.lastPatch = null;
    this.close();
    if (!archiveId) return;
    const status = await attempt(this.api.qa.status({ archiveId }));
    if (status.ok && archiveId === this.archiveId && status.value) this.setJob(status.value);
    await this.load();
  }

  /** The first pages of the current results worst-first (or more of them). */
  async load(more = false): Promise<void> {
    const archiveId = this.archiveId;
    if (!archiveId) return;
    const n = ++this.seq;
    const offset = more ? this.rows.length : 0;
    const r = await attempt(async () => {
      const list = await unwrap(this.api.qa.pages({ archiveId, limit: QA_PAGES_LIMIT, offset }));
      if (n !== this.seq) return;
      this.run = list.run;
      this.bands = list.bands;
      this.rows = more ? [...this.rows, ...list.rows] : list.rows;
      this.total = list.total;
      this.error = null;
    }, (on) => n === this.seq && (this.loading = on));
    if (!r.ok && n === this.seq) this.error = r.message;
  }

  /** Open a page side by side: its current result and its three screenshots. */
  async select(row: { url: string; ts: string }): Promise<void> {
    const archiveId = this.archiveId;
    if (!archiveId) return;
    const key = pageKey(row);
    const known = this.rows.find((p) => pageKey(p) === key) ?? null;
    this.selected = known;
    this.note = known?.note ?? '';
    this.shots = null;
    this.pageError = null;
    const r = await attempt(async () => {
      const [page, shots] = await Promise.all([unwrap(this.api.qa.page({ archiveId, url: row.url, ts: row.ts })), unwrap(this.api.qa.shots({ archiveId, url: row.url, ts: row.ts }))]);
      return { page, shots };
    });
    if (archiveId !== this.archiveId || (this.selected && pageKey(this.selected) !== key)) return;
    if (!r.ok) {
      this.pageError = r.message;
      return;
    }
    this.selected = r.value.page ?? known;
    if (this.selected) this.note = this.selected.note ?? '';
    this.shots = r.value.shots;
  }

  close(): void {
    this.selected = null;
    this.shots = null;
    this.pageError = null;
    this.note = '';
  }

  /** Approve or reject the open page (the same verdict again clears it), with the note as written. */
  async review(verdict: QaVerdict | null): Promise<void> {
    const archiveId = this.archiveId;
    const page = this.selected;
    if (!archiveId || !page) return;
    const next = verdict !== null && verdict === page.verdict ? null : verdict;
    const note = this.note.trim() === '' ? null : this.note.trim();
    const r = await attempt(this.api.qa.review({ archiveId, url: page.url, ts: page.ts, verdict: next, note }));
    if (!r.ok) {
      this.pageError = r.message;
      return;
    }
    const updated = { ...page, verdict: r.value.verdict, note: r.value.note };
    if (this.selected && pageKey(this.selected) === pageKey(page)) this.selected = updated;
    this.rows = this.rows.map((p) => (pageKey(p) === pageKey(page) ? { ...p, verdict: updated.verdict, note: updated.note } : p));
  }

  /** Save the note alone, keeping the verdict. */
  saveNote(): Promise<void> {
    return this.review(this.selected?.verdict ?? null).then(() => undefined);
  }

  async runQa(): Promise<void> {
    await this.startJob('qa', (archiveId) => this.api.qa.run({ archiveId, ...(this.againstLive ? { againstLive: true } : {}) }).then((r) => (r.ok ? { ok: true as const, value: null } : r)));
  }

  async patch(): Promise<void> {
    await this.startJob('patch', (archiveId) =>
      this.api.qa.patch({ archiveId }).then((r) => {
        if (r.ok) this.lastPatch = r.value;
        return r.ok ? { ok: true as const, value: null } : r;
      }),
    );
  }

  async cancel(): Promise<void> {
    if (this.archiveId) await attempt(this.api.qa.cancel({ archiveId: this.archiveId }));
  }

  private async startJob(job: QaJobStatus['job'], call: (archiveId: string) => Promise<Result<null>>): Promise<void> {
    const archiveId = this.archiveId;
    if (!archiveId || this.job) return;
    this.jobError = null;
    if (job === 'patch') this.lastPatch = null;
    this.setJob({ archiveId, job, startedAt: this.now(), progress: { done: 0, total: 0, url: null }, phase: job === 'patch' ? 'crawl' : 'qa' });
    const r = await call(archiveId).catch((err: unknown) => ({ ok: false as const, error: { code: 'INTERNAL', message: String(err) } }));
    if (archiveId !== this.archiveId) return;
    this.job = null;
    // Cancel is not a failure: what was scored so far is kept and shown.
    if (!r.ok && r.error.code !== 'QA_ABORTED') this.jobError = r.error.message;
    await this.afterJob();
  }

  /** Results changed: the list again, and the open page's new result and pictures. */
  private async afterJob(): Promise<void> {
    await this.load();
    // A patch may have captured the open page again: the same URL, a new timestamp.
    const open = this.selected;
    if (open) await this.select(this.rows.find((p) => p.url === open.url) ?? open);
  }

  private setJob(s: QaJobStatus): void {
    this.job = s;
    this.jobAt = this.now();
  }

  private readonly live = atMostEvery(() => void this.load(), QA_LIVE_MS);

  onProgress(p: Events['qa.progress']): void {
    if (p.archiveId !== this.archiveId) return;
    this.setJob(p);
    if (p.progress.done > 0) this.live();
  }

  /** A job this view did not start (another window, or one under way when the view opened) ended. */
  onDone(p: Events['qa.done']): void {
    if (p.archiveId !== this.archiveId || !this.job) return;
    if (!p.ok && !p.cancelled && p.message) this.jobError = p.message;
    this.job = null;
    void this.afterJob();
  }
}
