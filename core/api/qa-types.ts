/**
 * Quality assurance of an archive: what replaying each page found, scored against a reference,
 * in Browsertrix's bands so results read the same way in both tools. Shared by `trove qa`, the
 * app's QA view and the patch crawl; kept with the archive (core/archive owns the table).
 */
import type { PolitenessPreset } from './settings.ts';

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
  /** The run that produced this result, and when the page was scored (ISO 8601 UTC). */
  runId?: number;
  checkedAt?: string;
  /** The page's title in replay. */
  title?: string;
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
  /** Its band, once scored. */
  band?: QaBand;
}

/** What `runQa` is asked to do (the `trove qa` flags, the app's QA form). */
export interface QaOptions {
  /** Score at most this many pages (in the archive's page order). */
  pages?: number;
  /** Only pages whose URL starts with this. */
  urlPrefix?: string;
  /** Only pages of this host (exact, case-insensitive). */
  host?: string;
  /** Pages replayed at once, each in its own tab (browser context). Default 2. */
  tabs?: number;
  /** For pages with no capture-time reference: load the live page as the reference (robots obeyed). */
  againstLive?: boolean;
  /** Chromium to drive; found as a browser crawl finds it when absent. */
  chromiumPath?: string;
  /** Viewport of every screenshot (replay, live). Default 1280×800, the browser crawl's. */
  viewport?: { width: number; height: number };
  /** Only these pages (url + ts): the patch's re-scoring uses it. */
  only?: { url: string; ts: string }[];
  /** Set by the patch: the run this one re-scores after a patch crawl. */
  afterPatchOf?: number;
}

/** Which current page results to list (qa-store.ts listQaPages). */
export interface QaPageQuery {
  band?: QaBand;
  reference?: QaReference;
  /** 'none': pages not reviewed yet. */
  verdict?: QaVerdict | 'none';
  /** Substring of the URL. */
  urlContains?: string;
  limit?: number;
  offset?: number;
}

/** A page's screenshots as `data:` URLs for the app (null when there is none). */
export interface QaShots {
  reference: string | null;
  replay: string | null;
  /** pixelmatch's diff image: mismatched pixels red over a faded replay. */
  diff: string | null;
}

export interface QaPatchOptions {
  /** Tabs for the re-scoring (the crawl's own browser tabs come from its settings). */
  tabs?: number;
  chromiumPath?: string;
  /** Patch only these pages (url + ts); all pages that are not good when absent. */
  only?: { url: string; ts: string }[];
  /** The politeness preset of the crawl made to patch an archive of imports (default polite); a crawl's patch keeps the crawl's own. */
  politeness?: PolitenessPreset;
}

export interface QaPatchProgress {
  phase: 'crawl' | 'rescore';
  done: number;
  total: number;
  url: string | null;
}

/** A page's band before and after a patch. */
export interface QaPatchedPage {
  url: string;
  ts: string;
  before: QaBand;
  after: QaBand;
}

export interface QaPatchResult {
  /** URLs the continuation crawl was given (missing resources, pages scored severe). */
  requested: string[];
  /** Of those, the ones the crawl's scope refused (not fetched). */
  outOfScope: string[];
  /** The run whose results were patched, and the run that re-scored the affected pages. */
  before: QaRunInfo;
  after: QaRunInfo;
  pages: QaPatchedPage[];
  /** For an archive of imports: the patch crawl made (or continued) beside it, whose WARCs were copied into it. */
  crawlDir?: string;
}
