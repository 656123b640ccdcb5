/**
 * Quality assurance of an archive: what replaying each page found, scored against a reference,
 * in Browsertrix's bands so results read the same way in both tools. Shared by `trove qa`, the
 * app's QA view and the patch crawl; kept with the archive (core/archive owns the table).
 */

/** What a page's replay was compared with, best first. */
export type QaReference = 'capture' | 'live' | 'replay-only';

/** Browsertrix's bands: below 0.5 severe, 0.5 up to 0.9 moderate, 0.9 and above good. */
export type QaBand = 'good' | 'moderate' | 'severe';

export type QaVerdict = 'approved' | 'rejected';

export interface QaResources {
  /** Requests replay answered from the archive with 2xx/3xx. */
  captured: number;
  /** Requests replay could not answer from the archive. */
  missing: number;
  /** Requests answered 4xx/5xx. */
  errors: number;
}

export interface QaPageResult {
  /** The page's URL and capture timestamp (14 digits) in the archive. */
  url: string;
  ts: string;
  reference: QaReference;
  /** 0..1, null where the reference has no screenshot / no text. */
  screenshotScore: number | null;
  textScore: number | null;
  /** Share of requests replay answered well: captured / (captured + missing + errors), 1 when none. */
  resourceScore: number;
  resources: QaResources;
  band: QaBand;
  /** URLs replay could not answer, and those answered 4xx/5xx, with their status. */
  missingUrls: string[];
  errorUrls: { url: string; status: number }[];
  scriptErrors: string[];
  /** The archivist's review, if any. */
  verdict: QaVerdict | null;
  note: string | null;
}

export interface QaRunInfo {
  id: number;
  /** ISO 8601 UTC. */
  startedAt: string;
  finishedAt: string | null;
  /** The references used, with how many pages each. */
  references: Partial<Record<QaReference, number>>;
  pages: number;
  bands: Record<QaBand, number>;
  /** Set when this run re-scored pages after a patch crawl: the run it follows. */
  afterPatchOf: number | null;
}

export interface QaProgress {
  done: number;
  total: number;
  /** The page just scored. */
  url: string | null;
}
