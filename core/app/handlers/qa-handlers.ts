/**
 * The QA view's commands (`qa.*`): run QA or a patch on an archive (one job at a time per
 * archive, with progress events and Cancel, app/qa-jobs.ts), and read what is kept with the
 * archive: its runs, a run's pages worst-first, one page with its three screenshots, the reviews.
 * The engine and the store are reached through app/qa-engine.ts. A patch writes into the archive
 * and a QA run reads it whole, so neither starts while a crawl or a recording writes into it.
 */
import fs from 'node:fs';
import type { QaRunInfo } from '../../api/qa-types.ts';
import type { QaShots } from '../../api/qa-view-types.ts';
import type { Archive } from '../../archive/archive-dir.ts';
import { TroveError } from '../../errors.ts';
import type { QaShotSources } from '../qa-engine.ts';
import type { AppContext, RoomHandlers } from './app-context.ts';

/** A screenshot larger than this is not handed to the renderer (a viewport PNG is a few hundred KB). */
const SHOT_MAX_BYTES = 8 << 20;

function checkIdle(ctx: AppContext, id: string, doing: string): void {
  ctx.checkNotImporting(id, doing);
  if (ctx.runner.isRunning(id)) throw new TroveError('CRAWL_RUNNING', `wait for the crawl “${id}” to finish (or stop it) before ${doing}`, { id });
  if (ctx.isRecordingInto(id)) throw new TroveError('RECORDING', `stop recording into “${id}” before ${doing}`, { id });
}

/** The run asked for, or the newest; null when the archive has never been checked. */
function chooseRun(ctx: AppContext, archive: Archive, runId: number | undefined): QaRunInfo | null {
  const runs = ctx.qaEngine.runs(archive);
  if (runId === undefined) return runs[0] ?? null;
  const run = runs.find((r) => r.id === runId);
  if (!run) throw new TroveError('NOT_AVAILABLE', `no QA run ${runId} in this archive`, { runId });
  return run;
}

/** A PNG (a path or its bytes) as a data: URL, or null when missing, unreadable or too large. */
function dataUrl(source: string | Buffer | null): string | null {
  if (source === null) return null;
  let bytes: Buffer;
  if (typeof source === 'string') {
    const st = fs.statSync(source, { throwIfNoEntry: false });
    if (!st?.isFile() || st.size > SHOT_MAX_BYTES) return null;
    bytes = fs.readFileSync(source);
  } else bytes = source;
  if (bytes.length === 0 || bytes.length > SHOT_MAX_BYTES) return null;
  return `data:image/png;base64,${bytes.toString('base64')}`;
}

function shotsOf(s: QaShotSources): QaShots {
  return { reference: dataUrl(s.reference), replay: dataUrl(s.replay), diff: dataUrl(s.diff) };
}

export function qaHandlers(ctx: AppContext): RoomHandlers<'qa'> {
  const { qaEngine: engine, qaJobs: jobs } = ctx;
  const archive = (id: string) => ctx.archive(id);
  return {
    'qa.run': ({ archiveId, ...req }) => {
      checkIdle(ctx, archiveId, 'checking it');
      const dir = ctx.library.requireEntry(archiveId);
      return jobs.run(archiveId, 'qa', (hooks) => engine.run(archive(archiveId), dir, req, hooks));
    },
    'qa.patch': async ({ archiveId }) => {
      checkIdle(ctx, archiveId, 'patching it');
      const dir = ctx.library.requireEntry(archiveId);
      const result = await jobs.run(archiveId, 'patch', (hooks) => engine.patch(archive(archiveId), dir, hooks));
      // The patch added WARCs and captures: the library's sizes and counts changed.
      ctx.emit('library.changed', { id: archiveId });
      return result;
    },
    'qa.cancel': ({ archiveId }) => {
      jobs.cancel(archiveId);
      return null;
    },
    'qa.status': ({ archiveId }) => jobs.status(archiveId),
    'qa.runs': ({ archiveId }) => engine.runs(archive(archiveId)),
    'qa.pages': ({ archiveId, runId, limit, offset = 0 }) => {
      const a = archive(archiveId);
      const run = chooseRun(ctx, a, runId);
      if (!run) return { run: null, rows: [], total: 0, offset };
      const { rows, total } = engine.pages(a, run.id, limit, offset);
      return { run, rows, total, offset };
    },
    'qa.page': ({ archiveId, runId, url, ts }) => {
      const a = archive(archiveId);
      const run = chooseRun(ctx, a, runId);
      return run ? engine.page(a, run.id, { url, ts }) : null;
    },
    'qa.shots': async ({ archiveId, runId, url, ts }) => {
      const a = archive(archiveId);
      const run = chooseRun(ctx, a, runId);
      return run ? shotsOf(await engine.shots(a, run.id, { url, ts })) : { reference: null, replay: null, diff: null };
    },
    'qa.review': ({ archiveId, url, ts, verdict, note }) => {
      const clean = note === null || note.trim() === '' ? null : note.trim();
      engine.setReview(archive(archiveId), { url, ts, verdict, note: clean });
      return { url, ts, verdict, note: clean };
    },
    'qa.reviews': ({ archiveId }) => engine.reviews(archive(archiveId)),
  };
}
