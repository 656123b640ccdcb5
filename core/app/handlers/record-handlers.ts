/**
 * Record by browsing (`record.*`, issue #17 item 5): one Record window at a time records into an
 * archive of the library or a new one (record-session.ts); a new archive that captured nothing is
 * not kept. The tab comes from the host (`openRecordTab`); without it `record.*` answers
 * NOT_AVAILABLE.
 */
import fs from 'node:fs';
import type { RecordStatus } from '../../api/app-types.ts';
import { TroveError } from '../../errors.ts';
import { openArchive } from '../../archive/archive-dir.ts';
import { checkRecordUrl, recoverRecordings, RecordSession, type OpenRecordTab } from '../record-session.ts';
import type { AppContext, RoomHandlers } from './app-context.ts';
import { ProfileStore, profilesDirOf } from '../../storage/profile-store.ts';

/** The archive to record into: the given entry (not while it crawls), or a new one, created and opened. */
function recordTarget(ctx: AppContext, archiveId: string | undefined, newArchiveName: string | undefined): { id: string; created: boolean } {
  const { library } = ctx;
  if ((archiveId === undefined) === (newArchiveName === undefined || newArchiveName.trim() === '')) {
    throw new TroveError('RECORD_NO_ARCHIVE', 'record into an archive of the library or a new one: give archiveId or newArchiveName, not both');
  }
  if (archiveId !== undefined) {
    library.requireEntry(archiveId);
    if (ctx.runner.isRunning(archiveId)) throw new TroveError('CRAWL_RUNNING', `cannot record into ${archiveId} while it is crawling`, { id: archiveId });
    return { id: archiveId, created: false };
  }
  const id = library.allocateId(newArchiveName!.trim());
  fs.mkdirSync(library.pathOf(id), { recursive: true });
  ctx.archives.set(id, openArchive(library.pathOf(id)));
  return { id, created: true };
}

export function recordHandlers(ctx: AppContext, openRecordTab: OpenRecordTab | undefined): RoomHandlers<'record' | 'profile'> {
  const { library, emit } = ctx;
  return {
    'record.start': async ({ archiveId, newArchiveName, url }) => {
      const open = openRecordTab;
      if (!open) throw new TroveError('NOT_AVAILABLE', 'recording needs the desktop app’s Record window');
      if (ctx.recording && ctx.recording.status().state !== 'stopped') {
        throw new TroveError('RECORDING', `already recording into ${ctx.recording.archiveId}: stop it first`, { id: ctx.recording.archiveId });
      }
      const first = checkRecordUrl(url);
      const { id, created } = recordTarget(ctx, archiveId, newArchiveName);
      let tab: Awaited<ReturnType<OpenRecordTab>> | null = null;
      try {
        // A recording cut short by a crash is finished first (its file closed, indexed, sealed).
        const recovered = await recoverRecordings(ctx.archive(id));
        tab = await open();
        const session = new RecordSession({
          archive: ctx.archive(id),
          archiveId: id,
          tab,
          note: recovered.length > 0 ? recovered.join('; ') : null,
          onProgress: (status: RecordStatus) => {
            // A new archive that captured nothing is not kept: no empty archive in the library.
            if (status.state === 'stopped' && created && ctx.archive(id).index.count() === 0) {
              ctx.closeArchive(id);
              fs.rmSync(library.pathOf(id), { recursive: true, force: true });
            }
            emit('record.progress', status);
            if (status.state === 'stopped') emit('library.changed', { id });
          },
        });
        ctx.recording = session;
        if (created) emit('library.changed', { id });
        await session.start(first);
        return session.status();
      } catch (err) {
        if (ctx.recording) await ctx.recording.stop().catch(() => {});
        else await tab?.close().catch(() => {});
        ctx.recording = null;
        if (created) {
          ctx.closeArchive(id);
          fs.rmSync(library.pathOf(id), { recursive: true, force: true });
          emit('library.changed', { id });
        }
        throw err;
      }
    },
    'record.navigate': async ({ url }) => {
      if (!ctx.recording || ctx.recording.status().state !== 'recording') throw new TroveError('RECORD_NOT_RUNNING', 'nothing is being recorded');
      await ctx.recording.navigate(url);
      return null;
    },
    'record.stop': async () => (ctx.recording ? ctx.recording.stop() : null),
    'record.status': () => ctx.recording?.status() ?? null,
    'record.saveProfile': async ({ name }) => {
      if (!ctx.recording || ctx.recording.status().state !== 'recording') throw new TroveError('RECORD_NOT_RUNNING', 'nothing is being recorded: a profile is saved from an open Record window');
      const store = new ProfileStore(profilesDirOf(library.dir));
      const { state, url } = await ctx.recording.browserState();
      store.save(name, state, { url });
      return store.list().find((p) => p.name === name)!;
    },
    'profile.list': () => new ProfileStore(profilesDirOf(library.dir)).list(),
  };
}
