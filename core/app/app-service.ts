/**
 * The desktop app's command handlers, as plain Node: `createAppService({ libraryDir, emit })`
 * returns one handler per `core` command of the table (core/api/commands.ts). Electron's main
 * process wraps them in its IPC gate; the e2e harness binds them into a real browser page; tests
 * call them directly. Nothing here imports electron.
 *
 * The handlers live by room in handlers/ (library, crawl, records and replay, export, record, qa),
 * each given the one shared AppContext (handlers/app-context.ts); this file builds the context and
 * assembles them. Crawls run in worker threads (crawl-runner.ts); archives are opened on demand
 * and kept open (one read connection per library entry) until deleted or the service closes.
 */
import { defaultSettings, POLITENESS_PRESETS, TROVE_VERSION } from '../api/settings.ts';
import type { ExportRequest, ExportResult } from '../api/app-types.ts';
import type { Archive } from '../archive/archive-dir.ts';
import type { Library } from './library.ts';
import type { OpenRecordTab } from './record-session.ts';
import { createAppContext, type AppContextOptions, type AppHandlers } from './handlers/app-context.ts';
import { libraryHandlers } from './handlers/library-handlers.ts';
import { crawlHandlers } from './handlers/crawl-handlers.ts';
import { recordsHandlers } from './handlers/records-handlers.ts';
import { exportArchive, exportHandlers } from './handlers/export-handlers.ts';
import { recordHandlers } from './handlers/record-handlers.ts';
import { seriesHandlers } from './handlers/series-handlers.ts';
import type { SchedulerClock } from './recrawl-scheduler.ts';
import { qaHandlers } from './handlers/qa-handlers.ts';
import { sharedCrawlHandlers } from './handlers/shared-crawl-handlers.ts';

export type { AppHandlers } from './handlers/app-context.ts';

export interface AppServiceOptions extends AppContextOptions {
  /** Which host runs the service, for app.info. */
  shell?: 'electron' | 'browser';
  /**
   * Opens the Record window's tab (Electron: a window in its own session partition; the e2e
   * harness: a Chromium page). Without it `record.*` answers NOT_AVAILABLE.
   */
  openRecordTab?: OpenRecordTab;
  /** The schedules' clock (tests inject one); default the system's. */
  scheduleClock?: SchedulerClock;
}

export interface AppService {
  handlers: AppHandlers;
  library: Library;
  /** The open archive of a library entry (replay uses it from the protocol handlers). */
  archive(id: string): Archive;
  /** `export.run` into a folder the host's native dialog gave (the host's `export.runTo`). */
  exportTo(req: ExportRequest, outDir: string): Promise<ExportResult>;
  /** Stop crawls (files closed cleanly) and close archives. */
  close(): Promise<void>;
}

export function createAppService(opts: AppServiceOptions): AppService {
  const ctx = createAppContext(opts);
  const series = seriesHandlers(ctx, opts.scheduleClock);
  const handlers: AppHandlers = {
    'app.info': () => ({
      version: TROVE_VERSION,
      libraryDir: ctx.library.dir,
      platform: process.platform,
      shell: opts.shell ?? 'browser',
      defaults: defaultSettings(),
      politenessPresets: POLITENESS_PRESETS,
    }),
    ...libraryHandlers(ctx),
    ...crawlHandlers(ctx),
    ...recordsHandlers(ctx),
    ...exportHandlers(ctx),
    ...recordHandlers(ctx, opts.openRecordTab),
    ...series.handlers,
    ...qaHandlers(ctx),
    ...sharedCrawlHandlers(ctx),
  };
  // Scheduled recrawls: what fell due while the app was closed starts now (once), then on time.
  series.scheduler.start();

  return {
    handlers,
    library: ctx.library,
    archive: (id: string) => ctx.archive(id),
    exportTo: (req: ExportRequest, outDir: string) => exportArchive(ctx, req, outDir),
    async close() {
      series.scheduler.stop();
      ctx.qaJobs.close();
      await Promise.all([ctx.runner.close(), ctx.exports.close(), ctx.imports.close(), ctx.recording?.stop()]);
      for (const id of [...ctx.archives.keys()]) ctx.closeArchive(id);
    },
  };
}
