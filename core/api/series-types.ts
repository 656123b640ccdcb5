/**
 * The shapes of a crawl series as the app shows it (issue 38): a crawl and its recrawls, each
 * with its change summary against the one before, the series' schedule and what happened to its
 * scheduled runs, and the compare view of one page at two captures. Types only.
 */

/** A series' schedule: daily, weekly or a cron expression, and when it next falls due. */
export interface ScheduleState {
  /** The series (its first crawl's library id). */
  id: string;
  spec: string;
  /** When the schedule was set (ms since epoch): due times before it do not count. */
  since: number;
  /** The latest due time handled (run, missed or overlapped), or null. */
  lastDue: number | null;
  /** The next due time, or null when the expression never falls due again. */
  next: number | null;
}

/** What happened to a scheduled run: started, finished, failed, missed while the app was closed, or not started because the last still ran. */
export interface ScheduleEvent {
  id: string;
  kind: 'started' | 'finished' | 'failed' | 'missed' | 'overlap';
  /** The due time (ms since epoch). */
  due: number;
  /** When it happened. */
  at: number;
  /** The recrawl's library id, when there is one. */
  runId?: string;
  note?: string;
}

/** One crawl of a series. */
export interface SeriesCrawl {
  id: string;
  /** ms since epoch. */
  createdAt: number | null;
  state: string | null;
  pages: number | null;
  /** Against the crawl before it: "12 pages changed, 3 new, 1 gone"; null for the first or while it runs. */
  summary: string | null;
  counts: { added: number; removed: number; changed: number; unchanged: number } | null;
}

export interface SeriesDetail {
  /** The series' first crawl. */
  id: string;
  crawls: SeriesCrawl[];
  schedule: ScheduleState | null;
  /** The schedule's runs, newest first (started, finished, failed, missed, overlap). */
  events: ScheduleEvent[];
}

/** One side of a compare view: a page as one crawl of the series holds it. */
export interface CompareSide {
  archiveId: string;
  url: string;
  ts: string;
  /** Its visible text, one sentence a line. */
  text: string;
  /** A browser capture's screenshot (PNG or JPEG as a data: URL), when there is one. */
  screenshot: string | null;
}

export interface PageCompare {
  a: CompareSide | null;
  b: CompareSide | null;
  /** Line diff of the two texts: unchanged, removed (a only) and added (b only) runs. */
  parts: { value: string; added?: boolean; removed?: boolean }[];
  /** Characters of normalized text removed plus added (0: unchanged, noise aside). */
  textChange: number;
  /**
   * When both sides have a PNG screenshot: the share of pixels that match (pixelmatch, threshold
   * 0.1, as QA scores it) and the diff overlay (a PNG data: URL, mismatched pixels in red).
   */
  screenshotDiff: { score: number; image: string } | null;
}
