/**
 * What the app's QA view asks for and is sent, around the shared result types (qa-types.ts,
 * which `trove qa` and the archive's QA store use as they are): a page of results worst-first,
 * a review, the run or patch under way with its progress. View-only: nothing here is stored.
 */
import type { QaBand, QaPageResult, QaProgress, QaRunInfo, QaVerdict } from './qa-types.ts';

/** What runs on an archive: a QA pass, or a patch crawl followed by a QA pass of what it touched. */
export type QaJobKind = 'qa' | 'patch';

/**
 * A page of the archive's current QA results (each page's newest scoring: a patch re-scores only
 * the pages it touched, the others keep theirs), worst first.
 */
export interface QaPageList {
  /** The newest run; null when the archive has never been checked. */
  run: QaRunInfo | null;
  /** The current results' bands (the newest run's alone may cover only a patch's pages). */
  bands: Record<QaBand, number>;
  rows: QaPageResult[];
  /** Current results in all. */
  total: number;
  offset: number;
}

/** One page, as the side-by-side view asks for it. */
export interface QaPageRequest {
  archiveId: string;
  url: string;
  ts: string;
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
