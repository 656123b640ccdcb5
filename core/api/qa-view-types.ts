/**
 * What the app's QA view asks for and is sent, around the shared result types (qa-types.ts,
 * which `trove qa` and the archive's QA store use as they are): a page of results worst-first,
 * a page's three pictures, the run or patch under way with its progress. View-only: nothing here
 * is stored.
 */
import type { QaPageResult, QaProgress, QaRunInfo, QaVerdict } from './qa-types.ts';

/** What runs on an archive: a QA pass, or a patch crawl followed by a QA pass of what it touched. */
export type QaJobKind = 'qa' | 'patch';

/** A page of a run's results, worst first. */
export interface QaPageList {
  /** The run shown (the newest when none was asked for); null when the archive has never been checked. */
  run: QaRunInfo | null;
  rows: QaPageResult[];
  /** Results of the run in all. */
  total: number;
  offset: number;
}

/** One page of a run, as the side-by-side view asks for it. */
export interface QaPageRequest {
  archiveId: string;
  /** The run (default: the newest). */
  runId?: number;
  url: string;
  ts: string;
}

/**
 * A page's three pictures as `data:` URLs (the renderer has no network; its CSP allows data:
 * images): what the archivist saw (the capture-time or live screenshot), what replay drew, and
 * the pixels that differ. Null where the run has none (replay-only has no reference).
 */
export interface QaShots {
  reference: string | null;
  replay: string | null;
  diff: string | null;
}

export interface QaReviewRequest {
  archiveId: string;
  url: string;
  ts: string;
  /** null clears the verdict. */
  verdict: QaVerdict | null;
  /** null or empty clears the note. */
  note: string | null;
}

/** A reviewed page, for the Pages view's verdict column. */
export interface QaReview {
  url: string;
  ts: string;
  verdict: QaVerdict | null;
  note: string | null;
}

export interface QaRunRequest {
  archiveId: string;
  /** Tabs replaying at once (default: the engine's). */
  tabs?: number;
  /** Only the first N pages. */
  pages?: number;
  urlPrefix?: string;
  host?: string;
  /** Score pages with no capture-time reference against the live site. */
  againstLive?: boolean;
}

/** What a patch did: the run it mended, what it fetched, and the QA run of the affected pages after it. */
export interface QaPatchResult {
  before: QaRunInfo;
  after: QaRunInfo;
  /** URLs the patch crawl fetched. */
  fetched: number;
}

/** The QA or patch under way on an archive (a view opened mid-run picks it up from here). */
export interface QaJobStatus {
  archiveId: string;
  job: QaJobKind;
  /** ms since the epoch, for the view's ETA (the progress rate over the time it has run). */
  startedAt: number;
  progress: QaProgress;
  /** A patch reports its crawl first, then the QA of the pages it touched. */
  phase: 'crawl' | 'qa';
}
