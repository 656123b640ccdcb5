/**
 * The export commands (`export.run`, `export.list`) and the export into a folder the host's
 * dialog gave (the shell's `export.runTo` calls `exportArchive` with it). An archive is exported
 * only while nothing writes into it: no crawl, no recording.
 */
import fs from 'node:fs';
import type { ExportRequest, ExportResult } from '../../api/app-types.ts';
import { TroveError } from '../../errors.ts';
import type { AppContext, RoomHandlers } from './app-context.ts';

/** An export into the entry's exports/ folder, or into `outDir` (a folder the host's dialog gave). */
export async function exportArchive(ctx: AppContext, req: ExportRequest, outDir?: string): Promise<ExportResult> {
  const dir = ctx.library.requireEntry(req.archiveId);
  if (ctx.runner.isRunning(req.archiveId)) throw new TroveError('CRAWL_RUNNING', `stop the crawl “${req.archiveId}” before exporting it`, { id: req.archiveId });
  if (ctx.isRecordingInto(req.archiveId)) throw new TroveError('RECORDING', `stop recording into “${req.archiveId}” before exporting it`, { id: req.archiveId });
  if (outDir !== undefined && !fs.statSync(outDir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new TroveError('EXPORT_FOLDER_INVALID', `cannot export into ${outDir}: not a folder`, { outDir });
  }
  const result = await ctx.exports.run(req.archiveId, dir, req, (exportId, progress) => ctx.emit('export.progress', { exportId, archiveId: req.archiveId, progress }), outDir);
  ctx.emit('library.changed', { id: req.archiveId });
  return result;
}

export function exportHandlers(ctx: AppContext): RoomHandlers<'export'> {
  return {
    'export.run': (req) => exportArchive(ctx, req),
    'export.list': ({ archiveId }) => ctx.exports.list(ctx.library.requireEntry(archiveId)),
    'export.cancel': ({ exportId }) => {
      ctx.exports.cancel(exportId);
      return null;
    },
  };
}
