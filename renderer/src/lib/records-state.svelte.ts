/**
 * The WARC browser's record list: keyset pages fetched as the user scrolls, so a million rows
 * cost only the pages looked at. Rows live in a plain array of pages (not reactive proxies);
 * `version` ticks when rows arrive, and components read rows through `rowAt`.
 */
import type { RecordDetail, RecordFilter, RecordSummary, SearchHit } from '../../../core/api/app-types.ts';
import type { TroveApi } from './bridge.ts';
import { attempt } from './attempt.ts';
import { atMostEvery } from './at-most-every.ts';
import { dateToTs } from './format.ts';

export const PAGE_SIZE = 500;
/** How often a running crawl's record list asks for new rows. */
export const LIVE_REFRESH_MS = 1000;

export interface FilterForm {
  type: string;
  url: string;
  host: string;
  mime: string;
  status: string;
  from: string;
  to: string;
}

export const RECORD_TYPES = ['response', 'request', 'metadata', 'revisit', 'resource', 'warcinfo'];

export function emptyFilter(): FilterForm {
  return { type: '', url: '', host: '', mime: '', status: '', from: '', to: '' };
}

const EMPTY_FILTER_KEY = JSON.stringify(emptyFilter());

/** The form as a RecordFilter: blank fields dropped, `200, 301-302` status lists expanded. */
export function toRecordFilter(f: FilterForm): RecordFilter {
  const out: RecordFilter = {};
  if (f.type) out.type = [f.type];
  const url = f.url.trim();
  if (url) {
    if (url.endsWith('*')) out.urlPrefix = url.slice(0, -1);
    else out.url = url;
  }
  if (f.host.trim()) out.host = f.host.trim();
  if (f.mime.trim()) out.mime = f.mime.trim();
  const status: number[] = [];
  for (const part of f.status.split(/[\s,]+/)) {
    const range = /^(\d{3})-(\d{3})$/.exec(part);
    if (range) for (let s = Number(range[1]); s <= Number(range[2]) && status.length < 100; s++) status.push(s);
    else if (/^\d{3}$/.test(part)) status.push(Number(part));
    else if (/^\dxx$/i.test(part)) for (let s = Number(part[0]) * 100; s < Number(part[0]) * 100 + 100 && status.length < 100; s++) status.push(s);
  }
  if (status.length) out.status = status;
  const from = dateToTs(f.from);
  const to = dateToTs(f.to);
  if (from) out.from = from;
  if (to) out.to = to.length === 8 ? `${to}235959` : to;
  return out;
}

export class RecordsState {
  archiveId = $state<string | null>(null);
  filter = $state<FilterForm>(emptyFilter());
  /** Rows loaded so far (the list's length). */
  count = $state(0);
  /** Matching rows in all, from the first page. */
  total = $state<number | null>(null);
  done = $state(false);
  loading = $state(false);
  error = $state<string | null>(null);
  /** Ticks whenever rows change; read it to re-render. */
  version = $state(0);

  selectedId = $state<number | null>(null);
  selectedIndex = $state(-1);
  detail = $state.raw<RecordDetail | null>(null);
  detailError = $state<string | null>(null);
  detailLoading = $state(false);

  query = $state('');
  hits = $state.raw<SearchHit[] | null>(null);
  searching = $state(false);
  searchError = $state<string | null>(null);

  readonly api: TroveApi;
  private pages: RecordSummary[][] = [];
  private cursor: number | null = null;
  private generation = 0;
  private inflight: Promise<void> | null = null;

  constructor(api: TroveApi) {
    this.api = api;
  }

  filterKey = $derived(JSON.stringify(this.filter));

  rowAt(i: number): RecordSummary | undefined {
    return this.pages[Math.floor(i / PAGE_SIZE)]?.[i % PAGE_SIZE];
  }

  async open(archiveId: string | null): Promise<void> {
    if (archiveId === this.archiveId) return;
    this.archiveId = archiveId;
    // Filters belong to the archive they were typed for: the next one opens unfiltered.
    if (this.filterKey !== EMPTY_FILTER_KEY) this.filter = emptyFilter();
    this.selectedId = null;
    this.selectedIndex = -1;
    this.detail = null;
    this.hits = null;
    this.query = '';
    await this.reload();
  }

  async reload(): Promise<void> {
    this.generation++;
    this.inflight = null;
    this.pages = [];
    this.cursor = null;
    this.count = 0;
    this.total = null;
    this.done = false;
    this.loading = false;
    this.error = null;
    this.version++;
    if (this.archiveId) await this.loadMore();
  }

  /** Fetch the next page; while one is loading, wait for it instead. No-op at the end. */
  loadMore(): Promise<void> {
    if (this.inflight) return this.inflight;
    if (this.done || !this.archiveId) return Promise.resolve();
    const p = this.fetchPage().finally(() => {
      if (this.inflight === p) this.inflight = null;
    });
    this.inflight = p;
    return p;
  }

  private async fetchPage(): Promise<void> {
    const gen = this.generation;
    const archiveId = this.archiveId;
    if (!archiveId) return;
    this.loading = true;
    const r = await attempt(
      this.api.records.query({
        archiveId,
        filter: toRecordFilter($state.snapshot(this.filter)),
        limit: PAGE_SIZE,
        ...(this.cursor !== null ? { after: this.cursor } : {}),
      }),
    );
    if (gen !== this.generation) return; // the filter or archive changed meanwhile
    this.loading = false;
    if (!r.ok) {
      this.error = r.message;
      return;
    }
    const page = r.value;
    // Keep pages exactly PAGE_SIZE long so rowAt can index them.
    let rows = page.rows;
    const last = this.pages.at(-1);
    if (last && last.length < PAGE_SIZE) {
      const fill = rows.slice(0, PAGE_SIZE - last.length);
      last.push(...fill);
      rows = rows.slice(fill.length);
    }
    for (let i = 0; i < rows.length; i += PAGE_SIZE) this.pages.push(rows.slice(i, i + PAGE_SIZE));
    this.count += page.rows.length;
    if (page.total !== undefined) this.total = page.total;
    this.cursor = page.next;
    this.done = page.next === null;
    this.error = null;
    this.version++;
  }

  private readonly live = atMostEvery(() => void this.refreshLive(), LIVE_REFRESH_MS);

  /** A crawl snapshot: when it is the crawl shown, look for its new records, at most once a second. */
  onCrawlSnapshot(id: string): void {
    if (id === this.archiveId) this.live();
  }

  /**
   * New records of a running crawl: when every row is loaded, fetch those after the last one (the
   * list is in record order, so they append); the total is asked afresh either way.
   */
  async refreshLive(): Promise<void> {
    const archiveId = this.archiveId;
    if (!archiveId || this.inflight || this.loading) return;
    const gen = this.generation;
    if (this.done) {
      const last = this.count > 0 ? this.rowAt(this.count - 1) : undefined;
      this.cursor = last ? last.id : null;
      this.done = false;
      await this.loadMore();
      if (gen !== this.generation) return;
    }
    // On failure the list keeps what it has; the next tick asks again.
    const first = await attempt(this.api.records.query({ archiveId, filter: toRecordFilter($state.snapshot(this.filter)), limit: 1 }));
    if (first.ok && gen === this.generation && first.value.total !== undefined) this.total = Math.max(first.value.total, this.count);
  }

  /** The list shows rows up to `lastVisible`: fetch ahead when it nears the end of what is loaded. */
  ensureLoaded(lastVisible: number): void {
    if (!this.done && !this.loading && lastVisible >= this.count - PAGE_SIZE / 4) void this.loadMore();
  }

  async select(id: number, index = -1): Promise<void> {
    if (!this.archiveId) return;
    this.selectedId = id;
    this.selectedIndex = index;
    this.detailLoading = true;
    const r = await attempt(this.api.records.detail({ archiveId: this.archiveId, id }));
    if (this.selectedId !== id) return; // another record was selected meanwhile
    this.detail = r.ok ? r.value : null;
    this.detailError = r.ok ? null : r.message;
    this.detailLoading = false;
  }

  /** Move the selection by `delta` rows (keyboard). Returns the new index. */
  async move(delta: number): Promise<number> {
    if (this.count === 0) return -1;
    const index = Math.max(0, Math.min(this.count - 1, (this.selectedIndex < 0 ? -1 : this.selectedIndex) + delta));
    const row = this.rowAt(index);
    if (row) await this.select(row.id, index);
    this.ensureLoaded(index);
    return index;
  }

  async search(): Promise<void> {
    const q = this.query.trim();
    if (!this.archiveId || q === '') {
      this.hits = null;
      return;
    }
    const r = await attempt(this.api.records.search({ archiveId: this.archiveId, q, limit: 100 }), (on) => (this.searching = on));
    if (r.ok && this.query.trim() !== q) return; // the query changed meanwhile
    this.hits = r.ok ? r.value : [];
    this.searchError = r.ok ? null : r.message;
  }

  clearSearch(): void {
    this.query = '';
    this.hits = null;
    this.searchError = null;
  }
}

/** `before <mark>hit</mark> after` (escaped HTML from the core) → parts to render without {@html}. */
export function snippetParts(snippet: string): { text: string; mark: boolean }[] {
  const parts: { text: string; mark: boolean }[] = [];
  const unescape = (s: string) =>
    s.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n))).replace(/&(amp|lt|gt|quot);/g, (_, e) => ({ amp: '&', lt: '<', gt: '>', quot: '"' })[e as 'amp']!);
  const re = /<mark>([\s\S]*?)<\/mark>/g;
  let last = 0;
  for (let m = re.exec(snippet); m; m = re.exec(snippet)) {
    if (m.index > last) parts.push({ text: unescape(snippet.slice(last, m.index)), mark: false });
    parts.push({ text: unescape(m[1]!), mark: true });
    last = m.index + m[0].length;
  }
  if (last < snippet.length) parts.push({ text: unescape(snippet.slice(last)), mark: false });
  return parts;
}
