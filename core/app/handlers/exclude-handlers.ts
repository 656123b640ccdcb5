/**
 * The app's exclusion commands, kept out of crawl-handlers.ts: `crawl.excludePreview` reads
 * through a read-only connection of its own (core/crawl/exclude-preview.ts), never the cached
 * archive's write connection, so a preview cannot disturb a running crawl's writes nor fail
 * on its busy database (issue 33). `crawl.addExclude` hands a running crawl the pattern through
 * its worker, which applies it with its own connection (core/crawl/live-exclude.ts): no restart,
 * queued matches dropped and logged in scope.log. A crawl this app does not run is changed
 * directly, or asked through a request file when another process runs it
 * (core/crawl/exclude-crawl-dir.ts).
 */
import type { Emit } from '../../api/channels.ts';
import type { ExcludeApplied, ExcludePreview } from '../../api/app-types.ts';
import { isTroveError, TroveError } from '../../errors.ts';
import { compileRegex } from '../../scope/standard-rules.ts';
import { previewExclude } from '../../crawl/exclude-preview.ts';
import { excludeInCrawlDir } from '../../crawl/exclude-crawl-dir.ts';
import type { CrawlRunner } from '../crawl-runner.ts';
import type { Library } from '../library.ts';

export interface ExcludeDeps {
  runner: CrawlRunner;
  library: Library;
  emit: Emit;
}

export function excludePreview(deps: ExcludeDeps, id: string, pattern: string, samples?: number): ExcludePreview {
  return previewExclude(deps.library.requireEntry(id), pattern, { samples: samples ?? 10 });
}

export async function addExclude(deps: ExcludeDeps, id: string, pattern: string): Promise<ExcludeApplied> {
  compileRegex(pattern, 'exclude');
  const stored = deps.library.readStored(id);
  if (!stored.settings) throw new TroveError('NOT_A_CRAWL', `${id} is an imported archive, not a crawl`, { id });
  if (deps.runner.isRunning(id)) {
    try {
      // The crawl logs EXCLUDE_ADDED itself (its event comes up as crawl.log).
      const result = await deps.runner.exclude(id, pattern);
      deps.emit('library.changed', { id });
      return { id, running: true, ...result };
    } catch (err) {
      // Finishing as it was asked: once its worker is gone, the stopped crawl is changed below.
      if (!isTroveError(err, 'CRAWL_NOT_RUNNING')) throw err;
      await deps.runner.exited(id);
    }
  }
  const { result, running } = await excludeInCrawlDir(deps.library.pathOf(id), pattern);
  deps.emit('crawl.log', {
    id,
    level: 'info',
    code: 'EXCLUDE_ADDED',
    message: `excluding /${pattern}/${running ? ' (in the crawl another process runs)' : ''}: ${result.dropped} queued URI${result.dropped === 1 ? '' : 's'} dropped, listed in logs/scope.log`,
  });
  deps.emit('library.changed', { id });
  return { id, running, ...result };
}
