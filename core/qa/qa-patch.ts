/**
 * `trove qa --patch`: a continuation of the archive's own crawl that fetches exactly what QA
 * found missing (the missing resources, the pages scored severe), with the crawl's scope, robots
 * and politeness; then the affected pages are scored again and their bands before → after given.
 */
import type { QaPatchOptions, QaPatchProgress, QaPatchResult } from '../api/qa-types.ts';
import { TroveError } from '../errors.ts';

export interface QaPatchEvents {
  onProgress?(p: QaPatchProgress): void;
  signal?: AbortSignal;
}

export async function patchFromQa(archiveDir: string, options: QaPatchOptions = {}, events: QaPatchEvents = {}): Promise<QaPatchResult> {
  void archiveDir;
  void options;
  void events;
  throw new TroveError('QA_NOT_YET', 'trove qa --patch is not built yet');
}
