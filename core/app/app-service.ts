/**
 * The desktop app's command handlers, as plain Node: `createAppService({ libraryDir, emit })`
 * returns one handler per `core` command of the table (core/api/commands.ts). Electron's main
 * process wraps them in its IPC gate; the e2e harness binds them into a real browser page; tests
 * call them directly. Nothing here imports electron.
 *
 * Crawls run in worker threads (crawl-runner.ts); archives are opened on demand and kept open
 * (one read connection per library entry) until deleted or the service closes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { defaultSettings, POLITENESS_PRESETS, TROVE_VERSION } from '../api/settings.ts';
import type { CrawlSettings } from '../api/settings.ts';
import type { CoreCommandName, Handlers } from '../api/commands.ts';
import type { Emit } from '../api/channels.ts';
import type { ExportRequest, ExportResult, ImportResult, LibraryDetail, LibraryEntry, RecordStatus } from '../api/app-types.ts';
import { TroveError } from '../errors.ts';
import { openArchive, type Archive } from '../archive/archive-dir.ts';
import { openWacz } from '../archive/wacz-read.ts';
import { latestScreenshot, pageScreenshot } from '../archive/page-screenshot.ts';
import { listPages, queryRecords, searchText, sortedPages, timeline } from '../archive/record-query.ts';
import { recordDetail } from '../archive/record-query-detail.ts';
import { buildScope, scopeSettingsFrom } from '../scope/decide-rules.ts';
import { crawlDatabasePath } from '../storage/open-database.ts';
import { CrawlRunner, type RunnerEvent } from './crawl-runner.ts';
import type { OpenTab } from '../browser/tab-source.ts';
import { checkCrawl, robotsTest, scopeTest } from './crawl-checks.ts';
import { CUSTOM_ROBOTS_FILE, Library } from './library.ts';
import { ExportRunner } from './export-runner.ts';
import { appSigningKeyFile } from './signing-key.ts';
import { ImportRunner } from './import-runner.ts';
import { replayInfo } from './replay-bridge.ts';
import { readLogTail } from './crawl-log-tail.ts';
import { crawlPaths } from '../crawl/crawl-dir.ts';
import { addExclude, excludePreview } from './exclude-handlers.ts';
import { checkRecordUrl, recoverRecordings, RecordSession, type OpenRecordTab } from './record-session.ts';

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

export interface AppServiceOptions {
  /** The library folder (created when missing). The app uses ~/Documents/Trove; tests a temp dir. */
  libraryDir: string;
  /** Where events go up (the window, the harness page, a test's list). */
  emit: Emit;
  /** Which host runs the service, for app.info. */
  shell?: 'electron' | 'browser';
  /** Override the crawl worker entry (tests). */
  crawlWorkerUrl?: URL;
  /**
   * Opens the Record window's tab (Electron: a window in its own session partition; the e2e
   * harness: a Chromium page). Without it `record.*` answers NOT_AVAILABLE.
   */
  openRecordTab?: OpenRecordTab;
  /**
   * Opens a tab for a browser crawl (Electron: a hidden window of its own crawl partition),
   * relayed to the crawl's worker. Without it a browser crawl uses a system Chromium.
   */
  openCrawlTab?: OpenTab;
}


export type AppHandlers = Handlers<CoreCommandName>;

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

/** Persist the live snapshot this often, so a crash still leaves recent counts for the library. */
const SNAPSHOT_SAVE_MS = 5_000;

export function createAppService(opts: AppServiceOptions): AppService {
  const library = new Library(opts.libraryDir);
  const archives = new Map<string, Archive>();
  // Entries an import is writing into (library.import): listed as importing, not deletable until done.
  const importing = new Set<string>();
  const lastSaved = new Map<string, number>();
  const emit = opts.emit;
  const exports = new ExportRunner({ signingKeyFile: () => appSigningKeyFile(library.dir) });
  const imports = new ImportRunner();
  /** The recording under way (one Record window at a time), or the last one, stopped. */
  let recording: RecordSession | null = null;
  const isRecordingInto = (id: string) => recording !== null && recording.archiveId === id && recording.status().state !== 'stopped';

  const runner = new CrawlRunner({
    workerUrl: opts.crawlWorkerUrl,
    openTab: opts.openCrawlTab,
    onEvent: (id: string, e: RunnerEvent) => {
      switch (e.type) {
        case 'snapshot': {
          emit('crawl.snapshot', { id, snapshot: e.snapshot });
          const now = Date.now();
          if (now - (lastSaved.get(id) ?? 0) >= SNAPSHOT_SAVE_MS) {
            lastSaved.set(id, now);
            saveSnapshot(id, e.snapshot);
          }
          break;
        }
        case 'state':
          emit('crawl.state', { id, state: e.state, reason: e.reason, message: e.message });
          break;
        case 'log':
          emit('crawl.log', { id, level: e.level, code: e.code, message: e.message });
          break;
        case 'exit':
          lastSaved.delete(id);
          if (e.snapshot) saveSnapshot(id, e.error ? { ...e.snapshot, state: 'failed', message: e.error } : e.snapshot);
          if (e.error) {
            emit('crawl.log', { id, level: 'error', code: 'CRAWL_FAILED', message: e.error });
            emit('crawl.state', { id, state: 'failed', reason: 'error', message: e.error });
          }
          emit('library.changed', { id });
          break;
      }
    },
  });

  function saveSnapshot(id: string, snapshot: Parameters<Library['writeSnapshot']>[1]): void {
    try {
      library.writeSnapshot(id, snapshot);
    } catch {
      /* the directory may be gone (deleted while stopping) */
    }
  }

  function archive(id: string): Archive {
    let a = archives.get(id);
    if (!a) {
      const dir = library.requireEntry(id);
      a = openArchive(dir, { create: false });
      archives.set(id, a);
    }
    return a;
  }

  function closeArchive(id: string): void {
    archives.get(id)?.close();
    archives.delete(id);
  }

  function entry(id: string): LibraryEntry {
    const live = runner.snapshot(id);
    // A worker that has finished but not exited yet is no longer "running" for the library.
    const running = runner.isRunning(id) && live?.state !== 'finished' && live?.state !== 'failed';
    return library.entry(id, running, live, importing.has(id));
  }

  /**
   * Refuse to delete or import into an entry while an import into it runs: the import worker
   * would go on writing into a folder being removed (the WARC it copies was seen left behind).
   */
  function checkNotImporting(id: string, doing: string): void {
    if (importing.has(id)) throw new TroveError('IMPORT_RUNNING', `wait for the import into ${id} to finish before ${doing}`, { id });
  }

  async function startWorker(id: string, dir: string, settings: Partial<CrawlSettings>): Promise<void> {
    await runner.start(id, dir, settings);
    emit('library.changed', { id });
  }

  /** An export into the entry's exports/ folder, or into `outDir` (a folder the host's dialog gave). */
  async function exportArchive(req: ExportRequest, outDir?: string): Promise<ExportResult> {
    const dir = library.requireEntry(req.archiveId);
    if (runner.isRunning(req.archiveId)) throw new TroveError('CRAWL_RUNNING', `stop the crawl “${req.archiveId}” before exporting it`, { id: req.archiveId });
    if (isRecordingInto(req.archiveId)) throw new TroveError('RECORDING', `stop recording into “${req.archiveId}” before exporting it`, { id: req.archiveId });
    if (outDir !== undefined && !fs.statSync(outDir, { throwIfNoEntry: false })?.isDirectory()) {
      throw new TroveError('EXPORT_FOLDER_INVALID', `cannot export into ${outDir}: not a folder`, { outDir });
    }
    const result = await exports.run(req.archiveId, dir, req, (exportId, progress) => emit('export.progress', { exportId, archiveId: req.archiveId, progress }), outDir);
    emit('library.changed', { id: req.archiveId });
    return result;
  }

  const handlers: AppHandlers = {
    'app.info': () => ({
      version: TROVE_VERSION,
      libraryDir: library.dir,
      platform: process.platform,
      shell: opts.shell ?? 'browser',
      defaults: defaultSettings(),
      politenessPresets: POLITENESS_PRESETS,
    }),

    'library.list': () =>
      library
        .ids()
        .map((id) => entry(id))
        .sort((a, b) => Number(b.running) - Number(a.running) || (b.createdAt ?? b.modifiedAt) - (a.createdAt ?? a.modifiedAt)),

    'library.open': ({ id }): LibraryDetail => {
      const e = entry(id);
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
      checkNotImporting(id, 'deleting it');
      if (isRecordingInto(id)) throw new TroveError('RECORDING', `stop recording into ${id} before deleting it`, { id });
      if (runner.isRunning(id)) throw new TroveError('CRAWL_RUNNING', `stop the crawl ${id} before deleting it`, { id });
      return library.prepareDelete(id, entry(id));
    },

    'library.delete': ({ id, token }) => {
      checkNotImporting(id, 'deleting it');
      if (isRecordingInto(id)) throw new TroveError('RECORDING', `stop recording into ${id} before deleting it`, { id });
      if (runner.isRunning(id)) throw new TroveError('CRAWL_RUNNING', `stop the crawl ${id} before deleting it`, { id });
      closeArchive(id);
      library.delete(id, token);
      emit('library.changed', { id });
      return { id };
    },

    'library.import': async ({ files, into, name, copy }) => {
      let id: string;
      const created = into === undefined;
      if (into !== undefined) {
        library.requireEntry(into);
        checkNotImporting(into, 'importing into it again');
        if (runner.isRunning(into)) throw new TroveError('CRAWL_RUNNING', `cannot import into ${into} while it is crawling`, { id: into });
        if (isRecordingInto(into)) throw new TroveError('RECORDING', `cannot import into ${into} while recording into it`, { id: into });
        id = into;
      } else {
        id = library.allocateId(name || (await waczTitle(files[0]!)) || path.basename(files[0]!).replace(/\.(warc|arc|wacz)(\.gz)?$/i, '') || 'import');
      }
      const dir = library.pathOf(id);
      fs.mkdirSync(dir, { recursive: true });
      importing.add(id);
      let report: ImportResult['report'] | null = null;
      try {
        // Created (and its schema set up) here, so the entry lists at once; filled by the worker.
        const a = archives.get(id) ?? openArchive(dir);
        archives.set(id, a);
        emit('library.changed', { id });
        report = await imports.run(dir, files, copy === true, (progress) => emit('import.progress', { id, progress }));
      } finally {
        // The worker wrote through its own connection: read the archive afresh from here on.
        closeArchive(id);
        // A new archive that took nothing (no file was a WARC/ARC/WACZ, or the import failed) is
        // not an archive: no empty row is left in the library. The report still says why each
        // file was refused, and the app says "Nothing imported".
        if (created && (report === null || report.records === 0)) fs.rmSync(dir, { recursive: true, force: true });
        importing.delete(id);
        emit('library.changed', { id });
      }
      return { id, report };
    },

    'crawl.check': (req) => {
      const { valid, seeds, urls, issues, scopeRules } = checkCrawl(req);
      return { valid, seeds, urls, issues, scopeRules };
    },

    'crawl.start': async ({ name, settings, customRobots }) => {
      const check = checkCrawl({ seedsText: (settings.seeds ?? []).join('\n'), settings, customRobots });
      if (!check.valid) {
        const first = check.issues[0]!;
        throw new TroveError('SETTINGS_INVALID', first.message, { field: first.field, issues: check.issues });
      }
      const displayName = name.trim() || new URL(check.urls[0]!).host;
      const id = library.allocateId(displayName);
      const dir = library.pathOf(id);
      const given: Partial<CrawlSettings> = { ...settings, seeds: check.urls, name: displayName };
      fs.mkdirSync(dir, { recursive: true });
      if (check.settings.robots === 'custom') {
        const file = path.join(dir, CUSTOM_ROBOTS_FILE);
        fs.writeFileSync(file, customRobots ?? '');
        given.robotsFile = file;
      }
      try {
        await startWorker(id, dir, given);
      } catch (err) {
        if (!fs.existsSync(crawlDatabasePath(dir))) fs.rmSync(dir, { recursive: true, force: true });
        throw err;
      }
      return { id };
    },

    'crawl.pause': ({ id }) => {
      runner.pause(id);
      return null;
    },

    'crawl.resume': async ({ id, settings }) => {
      if (isRecordingInto(id)) throw new TroveError('RECORDING', `stop recording into ${id} before resuming its crawl`, { id });
      if (runner.isRunning(id)) {
        if (!settings || Object.keys(settings).length === 0) {
          runner.resume(id);
          return { id };
        }
        // New settings (limits edited at resume) take a fresh run (a live exclusion does not: crawl.addExclude).
        emit('crawl.log', { id, level: 'info', code: 'CRAWL_RESTARTING', message: 'restarting with the edited settings' });
        runner.stop(id, false);
        await runner.exited(id);
      }
      const stored = library.readStored(id);
      if (stored.kind !== 'crawl') throw new TroveError('NOT_A_CRAWL', `${id} is an imported archive, not a crawl`, { id });
      await startWorker(id, library.pathOf(id), settings ?? {});
      return { id };
    },

    'crawl.stop': ({ id, now }) => {
      runner.stop(id, now ?? false);
      return null;
    },

    'crawl.snapshot': ({ id }) => runner.snapshot(id) ?? (library.exists(id) ? library.readSnapshot(id) : null),

    'crawl.addExclude': ({ id, pattern }) => addExclude({ runner, library, emit }, id, pattern),

    // ── monitor: log tail, queued URIs per host, exclusion preview ──
    'crawl.logTail': (req) => {
      const p = crawlPaths(library.requireEntry(req.id));
      return readLogTail(req.log === 'scope' ? p.scopeLog : p.crawlLog, req);
    },
    'crawl.queued': ({ id, queue, limit, after }) => archive(id).frontier.queuedPage(queue, limit, after ?? null),
    'crawl.excludePreview': ({ id, pattern, samples }) => excludePreview({ runner, library, emit }, id, pattern, samples),
    // ── end monitor ──

    'scope.test': (req) => scopeTest(req),
    'robots.test': (req) => robotsTest(req),

    'records.query': ({ archiveId, filter, limit, after }) => queryRecords(archive(archiveId), filter, { limit, after }),
    'records.detail': ({ archiveId, id }) => recordDetail(archive(archiveId), id),
    'records.timeline': ({ archiveId, url }) => timeline(archive(archiveId), url),
    'records.search': ({ archiveId, q, limit }) => searchText(archive(archiveId), q, limit ?? 50),
    'records.pages': ({ archiveId, limit, after }) => listPages(archive(archiveId), limit, after),

    // ── replay features (issue #16: Pages view) ──
    'records.sortedPages': ({ archiveId, ...opts }) => sortedPages(archive(archiveId), opts),
    'records.screenshot': ({ archiveId, pageId }) => (pageId === undefined ? latestScreenshot(archive(archiveId)) : pageScreenshot(archive(archiveId), pageId)),


    'export.run': (req) => exportArchive(req),
    'export.list': ({ archiveId }) => exports.list(library.requireEntry(archiveId)),

    'replay.info': ({ archiveId, url, at }) => replayInfo(archive(archiveId), url, at),

    // ── record by browsing (issue #17 item 5) ──
    'record.start': async ({ archiveId, newArchiveName, url }) => {
      const open = opts.openRecordTab;
      if (!open) throw new TroveError('NOT_AVAILABLE', 'recording needs the desktop app’s Record window');
      if (recording && recording.status().state !== 'stopped') {
        throw new TroveError('RECORDING', `already recording into ${recording.archiveId}: stop it first`, { id: recording.archiveId });
      }
      const first = checkRecordUrl(url);
      if ((archiveId === undefined) === (newArchiveName === undefined || newArchiveName.trim() === '')) {
        throw new TroveError('RECORD_NO_ARCHIVE', 'record into an archive of the library or a new one: give archiveId or newArchiveName, not both');
      }
      let id: string;
      let created = false;
      if (archiveId !== undefined) {
        library.requireEntry(archiveId);
        if (runner.isRunning(archiveId)) throw new TroveError('CRAWL_RUNNING', `cannot record into ${archiveId} while it is crawling`, { id: archiveId });
        id = archiveId;
      } else {
        id = library.allocateId(newArchiveName!.trim());
        fs.mkdirSync(library.pathOf(id), { recursive: true });
        archives.set(id, openArchive(library.pathOf(id)));
        created = true;
      }
      let tab: Awaited<ReturnType<OpenRecordTab>> | null = null;
      try {
        // A recording cut short by a crash is finished first (its file closed, indexed, sealed).
        const recovered = await recoverRecordings(archive(id));
        tab = await open();
        const session = new RecordSession({
          archive: archive(id),
          archiveId: id,
          tab,
          note: recovered.length > 0 ? recovered.join('; ') : null,
          onProgress: (status: RecordStatus) => {
            // A new archive that captured nothing is not kept: no empty archive in the library.
            if (status.state === 'stopped' && created && archive(id).index.count() === 0) {
              closeArchive(id);
              fs.rmSync(library.pathOf(id), { recursive: true, force: true });
            }
            emit('record.progress', status);
            if (status.state === 'stopped') emit('library.changed', { id });
          },
        });
        recording = session;
        if (created) emit('library.changed', { id });
        await session.start(first);
        return session.status();
      } catch (err) {
        if (recording) await recording.stop().catch(() => {});
        else await tab?.close().catch(() => {});
        recording = null;
        if (created) {
          closeArchive(id);
          fs.rmSync(library.pathOf(id), { recursive: true, force: true });
          emit('library.changed', { id });
        }
        throw err;
      }
    },
    'record.navigate': async ({ url }) => {
      if (!recording || recording.status().state !== 'recording') throw new TroveError('RECORD_NOT_RUNNING', 'nothing is being recorded');
      await recording.navigate(url);
      return null;
    },
    'record.stop': async () => (recording ? recording.stop() : null),
    'record.status': () => recording?.status() ?? null,
  };

  return {
    handlers,
    library,
    archive,
    exportTo: (req: ExportRequest, outDir: string) => exportArchive(req, outDir),
    async close() {
      await Promise.all([runner.close(), exports.close(), imports.close(), recording?.stop()]);
      for (const id of [...archives.keys()]) closeArchive(id);
    },
  };
}
