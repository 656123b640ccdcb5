/**
 * The series dialog of the Library (issue 38): a crawl and its recrawls with what changed each
 * time, "Crawl again", the schedule (daily, weekly or cron) with what happened to its runs, and
 * the compare view of one page at two crawls of the series.
 */
import type { PageCompare, SeriesDetail } from '../../../core/api/series-types.ts';
import type { TroveApi } from './bridge.ts';
import { attempt } from './attempt.ts';

export type ScheduleChoice = 'none' | 'daily' | 'weekly' | 'cron';

const DEFAULT_CRON = '0 3 * * *';

export class SeriesState {
  /** The entry the dialog was opened on (any crawl of the series). */
  id = $state<string | null>(null);
  detail = $state.raw<SeriesDetail | null>(null);
  error = $state<string | null>(null);
  busy = $state(false);
  choice = $state<ScheduleChoice>('none');
  cron = $state(DEFAULT_CRON);
  compare = $state.raw<PageCompare | null>(null);
  compareError = $state<string | null>(null);
  comparing = $state(false);

  readonly api: TroveApi;
  /** The saved schedule the form last showed: a reload (every 2 s while a crawl runs) leaves the form alone unless it changed. */
  #shown: string | null | undefined = undefined;

  constructor(api: TroveApi) {
    this.api = api;
  }

  async open(id: string): Promise<void> {
    this.id = id;
    this.detail = null;
    this.compare = null;
    this.compareError = null;
    this.#shown = undefined;
    this.cron = DEFAULT_CRON;
    await this.load();
  }

  close(): void {
    this.id = null;
    this.detail = null;
    this.compare = null;
  }

  async load(): Promise<void> {
    if (!this.id) return;
    const r = await attempt(this.api.series.detail({ id: this.id }), (on) => (this.busy = on));
    this.error = r.ok ? null : r.message;
    if (!r.ok) return;
    this.detail = r.value;
    const spec = r.value.schedule?.spec ?? null;
    if (spec === this.#shown) return;
    this.#shown = spec;
    this.choice = spec === null ? 'none' : spec === 'daily' || spec === 'weekly' ? spec : 'cron';
    if (this.choice === 'cron' && spec) this.cron = spec;
  }

  /** Crawl again: a recrawl of the series' latest crawl. Its id, or null (the error is shown). */
  async recrawl(): Promise<string | null> {
    if (!this.id) return null;
    const r = await attempt(this.api.series.recrawl({ id: this.id }), (on) => (this.busy = on));
    this.error = r.ok ? null : r.message;
    if (r.ok) await this.load();
    return r.ok ? r.value.id : null;
  }

  async saveSchedule(): Promise<void> {
    if (!this.id) return;
    const spec = this.choice === 'none' ? null : this.choice === 'cron' ? this.cron.trim() : this.choice;
    const r = await attempt(this.api.series.setSchedule({ id: this.id, spec }), (on) => (this.busy = on));
    this.error = r.ok ? null : r.message;
    if (r.ok) await this.load();
  }

  async comparePage(url: string, a: string, b: string): Promise<void> {
    this.compareError = null;
    const r = await attempt(this.api.series.compare({ url, a: { archiveId: a }, b: { archiveId: b } }), (on) => (this.comparing = on));
    this.compare = r.ok ? r.value : null;
    if (!r.ok) this.compareError = r.message;
    else if (!r.value.a && !r.value.b) this.compareError = 'neither crawl holds this page';
  }
}
