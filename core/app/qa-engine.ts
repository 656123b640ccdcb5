/**
 * What the app's QA commands need of the QA engine (core/qa: runQa, patchFromQa) and of the
 * archive's QA store (core/archive/qa-store.ts), in the shapes the view speaks. The handlers
 * (handlers/qa-handlers.ts) see only this, so the engine's own signatures are mapped in one
 * place, and a test can tell "the engine said so" from "the app got it wrong".
 */
import type { QaPageResult, QaRunInfo } from '../api/qa-types.ts';
import type { QaPatchResult, QaReview, QaReviewRequest, QaRunRequest } from '../api/qa-view-types.ts';
import type { Archive } from '../archive/archive-dir.ts';
import { TroveError } from '../errors.ts';
import type { QaJobHooks } from './qa-jobs.ts';

/** A page of a run, by URL and capture time. */
export interface QaPageKey {
  url: string;
  ts: string;
}

/** Where one page's pictures of a run are kept: file paths, or a PNG's bytes; null where none. */
export interface QaShotSources {
  reference: string | Buffer | null;
  replay: string | Buffer | null;
  diff: string | Buffer | null;
}

export interface QaEngine {
  run(archive: Archive, dir: string, req: Omit<QaRunRequest, 'archiveId'>, hooks: QaJobHooks): Promise<QaRunInfo>;
  patch(archive: Archive, dir: string, hooks: QaJobHooks): Promise<QaPatchResult>;
  runs(archive: Archive): QaRunInfo[];
  pages(archive: Archive, runId: number, limit: number, offset: number): { rows: QaPageResult[]; total: number };
  page(archive: Archive, runId: number, key: QaPageKey): QaPageResult | null;
  shots(archive: Archive, runId: number, key: QaPageKey): Promise<QaShotSources>;
  setReview(archive: Archive, review: Omit<QaReviewRequest, 'archiveId'>): void;
  reviews(archive: Archive): QaReview[];
}

const notYet = (): never => {
  throw new TroveError('NOT_AVAILABLE', 'quality assurance is not in this build yet (the QA engine, core/qa, is missing)');
};

/**
 * The engine of this build. Until core/qa and core/archive/qa-store.ts are merged every call
 * answers NOT_AVAILABLE with that reason, rather than pretending.
 */
export const qaEngine: QaEngine = {
  run: async () => notYet(),
  patch: async () => notYet(),
  runs: () => [],
  pages: () => ({ rows: [], total: 0 }),
  page: () => null,
  shots: async () => ({ reference: null, replay: null, diff: null }),
  setReview: () => notYet(),
  reviews: () => [],
};
