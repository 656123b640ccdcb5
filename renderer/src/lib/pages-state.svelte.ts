/**
 * The Pages view of the WARC browser (as ReplayWeb.page's): the archive's HTML pages with their
 * titles, sortable by title, URL or time and narrowed by a search over title and URL, from the
 * core's capture index (records.sortedPages), each with the archivist's QA verdict and note when
 * the page was reviewed (qa.reviews). While the crawl shown runs, the list is asked afresh at
 * most once a second.
 */
import type { PageSummary } from '../../../core/api/app-types.ts';
import type { QaReview } from '../../../core/api/qa-view-types.ts';
import { pageKey } from './qa-format.ts';
import { unwrap, type TroveApi } from './bridge.ts';
import { attempt } from './attempt.ts';
import { atMostEvery } from './at-most-every.ts';
import { ScreenshotCache } from './screenshot-cache.ts';

export type PageSortKey = 'ts' | 'url' | 'title';

/** What an archive without pages holds: its captures, and their most common MIME types. */
export interface Holdings {
  captures: number;
  capped: boolean;
  /** [MIME type, captures among the first HOLDINGS_SAMPLE], most first. */
  mimes: [string, number][];
}
/** Captures looked at to say what an archive without pages holds. */
export const HOLDINGS_SAMPLE = 500;
export const PAGES_LIMIT = 200;
export const PAGES_LIVE_MS = 1000;

export class PagesState {
  archiveId = $state<string | null>(null);
  sort = $state<PageSortKey>('title');
  desc = $state(false);
  q = $state('');
  rows = $state.raw<PageSummary[]>([]);
  total = $state(0);
  loading = $state(false);
  error = $state<string | null>(null);
  /** Set when the archive has no pages at all (not only none matching a search). */
  holdings = $state.raw<Holdings | null>(null);
  /** The QA reviews of the archive's pages, by pageKey (URL and capture time). */
  reviews = $state.raw<Map<string, QaReview>>(new Map());

  readonly api: TroveApi;
  /** The rows' thumbnails, kept across the live reloads. */
  readonly shots: ScreenshotCache;
  private seq = 0;

  constructor(api: TroveApi) {
    this.api = api;
    this.shots = new ScreenshotCache(api);
  }

  async open(archiveId: string | null): Promise<void> {
    if (archiveId === this.archiveId) return;
    this.archiveId = archiveId;
    this.rows = [];
    this.total = 0;
    this.holdings = null;
    this.reviews = new Map();
    await this.load();
  }

  /** The page's review, if it has one. */
  review(p: { url: string; ts: string }): QaReview | undefined {
    return this.reviews.get(pageKey(p));
  }

  /** The reviews, asked afresh with each load (a review is made in the QA view). No QA yet: none. */
  private async loadReviews(archiveId: string, n: number): Promise<void> {
    const r = await attempt(this.api.qa.reviews({ archiveId }));
    if (n === this.seq && r.ok) this.reviews = new Map(r.value.filter((v) => v.verdict !== null || v.note !== null).map((v) => [pageKey(v), v]));
  }

  /** Click on a column head: sort by it, or flip the direction when it is already the sort. */
  async sortBy(key: PageSortKey): Promise<void> {
    if (this.sort === key) this.desc = !this.desc;
    else {
      this.sort = key;
      this.desc = key === 'ts';
    }
    await this.load();
  }

  /** The first PAGES_LIMIT (or as many as are shown, when more were loaded) in the current order. */
  async load(more = false): Promise<void> {
    const archiveId = this.archiveId;
    if (!archiveId) return;
    const n = ++this.seq;
    const offset = more ? this.rows.length : 0;
    const limit = more ? PAGES_LIMIT : Math.max(PAGES_LIMIT, Math.min(this.rows.length, 1000));
    const r = await attempt(async () => {
      const [, page] = await Promise.all([this.loadReviews(archiveId, n), unwrap(this.api.records.sortedPages({ archiveId, sort: this.sort, desc: this.desc, q: this.q, limit, offset }))]);
      if (n !== this.seq) return; // a newer load was asked for meanwhile
      this.rows = more ? [...this.rows, ...page.rows] : page.rows;
      this.total = page.total;
      this.error = null;
      if (page.total === 0 && this.q.trim() === '') await this.loadHoldings(archiveId, n);
      else if (page.total > 0) this.holdings = null;
    }, (on) => n === this.seq && (this.loading = on));
    if (!r.ok && n === this.seq) this.error = r.message;
  }

  /** No pages: what the archive holds instead (an archive of images says so, not "no pages yet"). */
  private async loadHoldings(archiveId: string, n: number): Promise<void> {
    const page = await unwrap(this.api.records.query({ archiveId, filter: { type: ['response', 'resource', 'revisit'] }, limit: HOLDINGS_SAMPLE }));
    if (n !== this.seq) return;
    const counts = new Map<string, number>();
    for (const r of page.rows) counts.set(r.mime ?? 'no MIME type', (counts.get(r.mime ?? 'no MIME type') ?? 0) + 1);
    this.holdings = { captures: page.total ?? page.rows.length, capped: page.totalCapped === true, mimes: [...counts.entries()].sort((a, b) => b[1] - a[1]) };
  }

  private readonly live = atMostEvery(() => void this.load(), PAGES_LIVE_MS);

  onCrawlSnapshot(id: string): void {
    if (id === this.archiveId) this.live();
  }
}
