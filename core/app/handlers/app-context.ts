/**
 * The state the app service's handlers share (the library, the crawl/export/import runners, the
 * open archives, the entries being imported into, the recording under way, the QA runs and
 * patches under way) and the few checks several rooms make, as one declared context: each
 * handler file (library-, crawl-, records-, export-, record-, qa-handlers.ts) takes it and
 * nothing else, so what a handler may touch is written here once. app-service.ts builds it and
 * assembles the handlers.
 */
import type { CrawlSettings } from '../../api/settings.ts';
import type { CoreCommandName, Handlers } from '../../api/commands.ts';
import type { Emit } from '../../api/channels.ts';
import type { LibraryEntry } from '../../api/app-types.ts';
import { TroveError } from '../../errors.ts';
import { openArchive, type Archive } from '../../archive/archive-dir.ts';
import type { OpenTab } from '../../browser/tab-source.ts';
import { CrawlRunner } from '../crawl-runner.ts';
import { crawlEventSink } from '../crawl-events.ts';
import { Library } from '../library.ts';
import { ExportRunner } from '../export-runner.ts';
import { ImportRunner } from '../import-runner.ts';
import { appSigningKeyFile } from '../signing-key.ts';
import { profilesDirOf } from '../../storage/profile-store.ts';
import type { RecordSession } from '../record-session.ts';
import { QaJobs } from '../qa-jobs.ts';

export type AppHandlers = Handlers<CoreCommandName>;

/** The handlers of the commands named `<room>.…` (one handler file's share of the table). */
export type RoomHandlers<Room extends string> = Pick<AppHandlers, Extract<CoreCommandName, `${Room}.${string}`>>;

export interface AppContext {
  library: Library;
  runner: CrawlRunner;
  exports: ExportRunner;
  imports: ImportRunner;
  /** Where events go up (the window, the harness page, a test's list). */
  emit: Emit;
  /** Open archives, one read connection per library entry, kept until deleted or the service closes. */
  archives: Map<string, Archive>;
  /** Entries an import is writing into (library.import): listed as importing, not deletable until done. */
  importing: Set<string>;
  /** The recording under way (one Record window at a time), or the last one, stopped. */
  recording: RecordSession | null;
  /** The QA runs and patches under way, one per archive at most. */
  qaJobs: QaJobs;
  /** The open archive of a library entry, opened on first use. */
  archive(id: string): Archive;
  closeArchive(id: string): void;
  /** The library's entry with what the runner knows live. */
  entry(id: string): LibraryEntry;
  isRecordingInto(id: string): boolean;
  /**
   * Refuse to delete or import into an entry while an import into it runs: the import worker
   * would go on writing into a folder being removed (the WARC it copies was seen left behind).
   */
  checkNotImporting(id: string, doing: string): void;
  /** Start (or continue) a crawl's worker; `recrawlOf` makes it a recrawl of that crawl directory. */
  startWorker(id: string, dir: string, settings: Partial<CrawlSettings>, recrawlOf?: string): Promise<void>;
}

/** What the context is built from (the part of AppServiceOptions it takes). */
export interface AppContextOptions {
  /** The library folder (created when missing). The app uses ~/Documents/Trove; tests a temp dir. */
  libraryDir: string;
  /** Where events go up (the window, the harness page, a test's list). */
  emit: Emit;
  /** Override the crawl worker entry (tests). */
  crawlWorkerUrl?: URL;
  /**
   * Opens a tab for a browser crawl (Electron: a hidden window of its own crawl partition),
   * relayed to the crawl's worker. Without it a browser crawl uses a system Chromium.
   */
  openCrawlTab?: OpenTab;
}

export function createAppContext(opts: AppContextOptions): AppContext {
  const library = new Library(opts.libraryDir);
  const emit = opts.emit;
  const runner = new CrawlRunner({ workerUrl: opts.crawlWorkerUrl, openTab: opts.openCrawlTab, onEvent: crawlEventSink(library, emit), profilesDir: profilesDirOf(library.dir) });
  const ctx: AppContext = {
    library,
    runner,
    exports: new ExportRunner({ signingKeyFile: () => appSigningKeyFile(library.dir) }),
    imports: new ImportRunner(),
    emit,
    archives: new Map(),
    importing: new Set(),
    recording: null,
    qaJobs: new QaJobs(emit),

    archive(id) {
      let a = ctx.archives.get(id);
      if (!a) {
        const dir = library.requireEntry(id);
        a = openArchive(dir, { create: false });
        ctx.archives.set(id, a);
      }
      return a;
    },

    closeArchive(id) {
      ctx.archives.get(id)?.close();
      ctx.archives.delete(id);
    },

    entry(id) {
      const live = runner.snapshot(id);
      // A worker that has finished but not exited yet is no longer "running" for the library.
      const running = runner.isRunning(id) && live?.state !== 'finished' && live?.state !== 'failed';
      return library.entry(id, running, live, ctx.importing.has(id));
    },

    isRecordingInto: (id) => ctx.recording !== null && ctx.recording.archiveId === id && ctx.recording.status().state !== 'stopped',

    checkNotImporting(id, doing) {
      if (ctx.importing.has(id)) throw new TroveError('IMPORT_RUNNING', `wait for the import into ${id} to finish before ${doing}`, { id });
    },

    async startWorker(id, dir, settings, recrawlOf) {
      await runner.start(id, dir, settings, recrawlOf);
      emit('library.changed', { id });
    },
  };
  return ctx;
}
