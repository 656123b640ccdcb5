/**
 * The QA view's commands (`qa.*`): run QA or a patch on an archive (runQa, patchFromQa; one job
 * at a time per archive, with progress events and Cancel, app/qa-jobs.ts), and read what is kept
 * with the archive (core/archive/qa-store.ts): its runs, the pages' current results worst-first,
 * one page with its three screenshots, the reviews. A patch writes into the archive and a QA run
 * reads it whole, so neither starts while a crawl, an import or a recording writes into it.
 */
import type { QaBand, QaPageResult } from '../../api/qa-types.ts';
import type { QaReview } from '../../api/qa-view-types.ts';
import { TroveError } from '../../errors.ts';
import { currentQaBands, listQaPages, listQaRuns, qaPage, readQaShots, setReview } from '../../archive/qa-store.ts';
import { runQa } from '../../qa/qa-run.ts';
import { patchFromQa } from '../../qa/qa-patch.ts';
import type { AppContext, RoomHandlers } from './app-context.ts';

function checkIdle(ctx: AppContext, id: string, doing: string): void {
  ctx.checkNotImporting(id, doing);
  if (ctx.runner.isRunning(id)) throw new TroveError('CRAWL_RUNNING', `wait for the crawl “${id}” to finish (or stop it) before ${doing}`, { id });
  if (ctx.isRecordingInto(id)) throw new TroveError('RECORDING', `stop recording into “${id}” before ${doing}`, { id });
}

const total = (bands: Record<QaBand, number>) => bands.good + bands.moderate + bands.severe;
const reviewed = (p: QaPageResult): QaReview => ({ url: p.url, ts: p.ts, verdict: p.verdict, note: p.note });

export function qaHandlers(ctx: AppContext): RoomHandlers<'qa'> {
  const jobs = ctx.qaJobs;
  const dirOf = (id: string) => ctx.library.requireEntry(id);
  return {
    'qa.run': ({ archiveId, ...options }) => {
      checkIdle(ctx, archiveId, 'checking it');
      const dir = dirOf(archiveId);
      return jobs.run(archiveId, 'qa', ({ signal, progress }) => runQa(dir, options, { signal, onProgress: (p) => progress(p) }));
    },
    'qa.patch': async ({ archiveId }) => {
      checkIdle(ctx, archiveId, 'patching it');
      const dir = dirOf(archiveId);
      try {
        return await jobs.run(archiveId, 'patch', ({ signal, progress }) =>
          patchFromQa(dir, {}, { signal, onProgress: ({ phase, ...p }) => progress(p, phase === 'crawl' ? 'crawl' : 'qa') }),
        );
      } finally {
        // The patch added WARCs and captures: the next read opens the archive afresh, and the
        // library's sizes and counts changed.
        ctx.closeArchive(archiveId);
        ctx.emit('library.changed', { id: archiveId });
      }
    },
    'qa.cancel': ({ archiveId }) => {
      jobs.cancel(archiveId);
      return null;
    },
    'qa.status': ({ archiveId }) => jobs.status(archiveId),
    'qa.runs': ({ archiveId }) => listQaRuns(dirOf(archiveId)),
    'qa.pages': ({ archiveId, limit, offset = 0 }) => {
      const dir = dirOf(archiveId);
      const bands = currentQaBands(dir);
      const run = listQaRuns(dir)[0] ?? null;
      return { run, bands, rows: listQaPages(dir, { limit, offset }), total: total(bands), offset };
    },
    'qa.page': ({ archiveId, url, ts }) => qaPage(dirOf(archiveId), url, ts),
    'qa.shots': ({ archiveId, url, ts }) => readQaShots(dirOf(archiveId), url, ts),
    'qa.review': ({ archiveId, url, ts, verdict, note }) => {
      const clean = note === null || note.trim() === '' ? null : note.trim();
      setReview(dirOf(archiveId), url, ts, verdict, clean);
      return { url, ts, verdict, note: clean };
    },
    // The store keeps reviews beside the results they were made on: the reviewed pages are those
    // of the current results with a verdict or a note.
    'qa.reviews': ({ archiveId }) =>
      listQaPages(dirOf(archiveId))
        .filter((p) => p.verdict !== null || p.note !== null)
        .map(reviewed),
  };
}
