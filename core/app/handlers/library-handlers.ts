/**
 * The library's commands (`library.*`): list, open, delete an entry, and import WARC/ARC/WACZ
 * files into a new or an existing one (the import runs in a worker, import-runner.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ImportResult, LibraryDetail } from '../../api/app-types.ts';
import { TroveError } from '../../errors.ts';
import { openArchive } from '../../archive/archive-dir.ts';
import { openWacz } from '../../archive/wacz-read.ts';
import { buildScope, scopeSettingsFrom } from '../../scope/decide-rules.ts';
import type { AppContext, RoomHandlers } from './app-context.ts';

/** A WACZ package's `title` from its datapackage.json (what an imported package is named after), or null. */
async function waczTitle(file: string): Promise<string | null> {
  if (!/\.wacz$/i.test(file)) return null;
  try {
    const pkg = await openWacz(file);
    try {
      // WACZ 1.1 has a top-level title; 1.0.0 packages keep it in `metadata`.
      const meta = pkg.datapackage.metadata;
      const title = pkg.datapackage.title ?? (meta && typeof meta === 'object' ? (meta as { title?: unknown }).title : undefined);
      return typeof title === 'string' && title.trim() ? title.trim().slice(0, 100) : null;
    } finally {
      pkg.close();
    }
  } catch {
    return null; // the import itself reports what is wrong with the package
  }
}

/** An entry may be deleted when nothing writes into it or reads it whole: no import, no recording, no crawl, no QA. */
function checkDeletable(ctx: AppContext, id: string): void {
  ctx.checkNotImporting(id, 'deleting it');
  if (ctx.isRecordingInto(id)) throw new TroveError('RECORDING', `stop recording into ${id} before deleting it`, { id });
  if (ctx.runner.isRunning(id)) throw new TroveError('CRAWL_RUNNING', `stop the crawl ${id} before deleting it`, { id });
  if (ctx.qaJobs.isRunning(id)) throw new TroveError('QA_RUNNING', `cancel the QA run or patch on ${id} before deleting it`, { id });
}

export function libraryHandlers(ctx: AppContext): RoomHandlers<'library'> {
  const { library, runner, emit } = ctx;
  return {
    'library.list': () =>
      library
        .ids()
        .map((id) => ctx.entry(id))
        .sort((a, b) => Number(b.running) - Number(a.running) || (b.createdAt ?? b.modifiedAt) - (a.createdAt ?? a.modifiedAt)),

    'library.open': ({ id }): LibraryDetail => {
      const e = ctx.entry(id);
      const stored = library.readStored(id);
      let scopeRules: string[] = [];
      if (stored.settings) {
        try {
          scopeRules = buildScope(scopeSettingsFrom(stored.settings), stored.settings.seeds).describe();
        } catch {
          scopeRules = [];
        }
      }
      return {
        entry: e,
        dir: library.pathOf(id),
        settings: stored.settings,
        snapshot: runner.snapshot(id) ?? library.readSnapshot(id),
        files: stored.files,
        scopeRules,
      };
    },

    'library.prepareDelete': ({ id }) => {
      checkDeletable(ctx, id);
      return library.prepareDelete(id, ctx.entry(id));
    },

    'library.delete': ({ id, token }) => {
      checkDeletable(ctx, id);
      ctx.closeArchive(id);
      library.delete(id, token);
      emit('library.changed', { id });
      return { id };
    },

    'library.import': async ({ files, into, name, copy }) => {
      let id: string;
      const created = into === undefined;
      if (into !== undefined) {
        library.requireEntry(into);
        ctx.checkNotImporting(into, 'importing into it again');
        if (runner.isRunning(into)) throw new TroveError('CRAWL_RUNNING', `cannot import into ${into} while it is crawling`, { id: into });
        if (ctx.isRecordingInto(into)) throw new TroveError('RECORDING', `cannot import into ${into} while recording into it`, { id: into });
        id = into;
      } else {
        id = library.allocateId(name || (await waczTitle(files[0]!)) || path.basename(files[0]!).replace(/\.(warc|arc|wacz)(\.gz)?$/i, '') || 'import');
      }
      const dir = library.pathOf(id);
      fs.mkdirSync(dir, { recursive: true });
      ctx.importing.add(id);
      let report: ImportResult['report'] | null = null;
      try {
        // Created (and its schema set up) here, so the entry lists at once; filled by the worker.
        const a = ctx.archives.get(id) ?? openArchive(dir);
        ctx.archives.set(id, a);
        emit('library.changed', { id });
        report = await ctx.imports.run(dir, files, copy === true, (progress) => emit('import.progress', { id, progress }));
      } finally {
        // The worker wrote through its own connection: read the archive afresh from here on.
        ctx.closeArchive(id);
        // A new archive that took nothing (no file was a WARC/ARC/WACZ, or the import failed) is
        // not an archive: no empty row is left in the library. The report still says why each
        // file was refused, and the app says "Nothing imported".
        if (created && (report === null || report.records === 0)) fs.rmSync(dir, { recursive: true, force: true });
        ctx.importing.delete(id);
        emit('library.changed', { id });
      }
      return { id, report };
    },
    'library.cancelImport': ({ id }) => {
      // The entry's folder, as library.import gave it to the runner (a new entry may not list yet).
      ctx.imports.cancel(library.pathOf(id));
      return null;
    },
  };
}
