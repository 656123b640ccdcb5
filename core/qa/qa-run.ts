/**
 * `trove qa`: replay every page of an archive (or those asked for) in headless Chromium through
 * Trove's own replay, with the replay isolation policy on, score each against its reference and
 * keep the results with the archive (core/archive/qa-store.ts). The CLI, the app's QA view and
 * the patch's re-scoring all come through `runQa`.
 */
import type { QaOptions, QaProgress, QaRunInfo } from '../api/qa-types.ts';
import { TroveError } from '../errors.ts';

export type { QaOptions } from '../api/qa-types.ts';

export interface QaEvents {
  onProgress?(p: QaProgress): void;
  signal?: AbortSignal;
}

export async function runQa(archiveDir: string, options: QaOptions, events: QaEvents = {}): Promise<QaRunInfo> {
  void archiveDir;
  void options;
  void events;
  throw new TroveError('QA_NOT_YET', 'trove qa is not built yet');
}
