/**
 * Trove's main process: the composition root. It builds the app service (core/app, plain Node;
 * crawls run in worker threads), opens one locked-down window, registers the one IPC gate,
 * forwards events to the window and hosts the replay view and the Record window.
 *
 * Window: sandbox, context isolation, no node integration, strict CSP (renderer/index.html), no
 * navigation away from the renderer, no new windows, no permissions, and no http(s) request from
 * the window's session except to the dev server.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { app, BrowserWindow, dialog, nativeTheme, session, shell, Menu } from 'electron';
import { eventChannel, type Emit } from '../../core/api/channels.ts';
import type { Handlers, ShellCommandName } from '../../core/api/commands.ts';
import { createAppService, type AppService } from '../../core/app/app-service.ts';
import { registerIpcGate } from './ipc-gate.ts';
import { buildMenu } from './menu.ts';
import { ReplayView } from './replay-view.ts';
import { recordWindowOpener } from './record-window.ts';
import { crawlTabOpener } from './crawl-tabs.ts';
import { chooseLibraryLocation, libraryLocation } from './library-location.ts';
import { LOCKED_DOWN } from './web-preferences.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const devServer = process.env.ELECTRON_RENDERER_URL ?? null;
const rendererFile = path.join(here, '../renderer/index.html');
const rendererUrl = devServer ?? pathToFileURL(rendererFile).href;
const preload = path.join(here, '../preload/index.cjs');

/** The library folder: the one the user chose, TROVE_LIBRARY, or ~/Documents/Trove. */
const libraryDir = libraryLocation();

// No speculative DNS/TCP to hosts named in archived pages: replay must not touch the network.
app.commandLine.appendSwitch('dns-prefetch-disable');

let win: BrowserWindow | null = null;
let service: AppService | null = null;
let replay: ReplayView | null = null;
let quitting = false;

const log = (message: string, err?: unknown) => console.error(`[trove] ${message}`, err ?? '');

const emit: Emit = (name, payload) => {
  if (win && !win.isDestroyed()) win.webContents.send(eventChannel(name), payload);
};

function background(): string {
  return nativeTheme.shouldUseDarkColors ? '#14171c' : '#f6f7f9';
}

function createWindow(svc: AppService): BrowserWindow {
  const w = new BrowserWindow({
    width: 1360,
    height: 880,
    minWidth: 960,
    minHeight: 600,
    show: false,
    title: 'Trove',
    backgroundColor: background(),
    webPreferences: { ...LOCKED_DOWN, preload, spellcheck: false },
  });
  w.once('ready-to-show', () => w.show());
  w.webContents.on('will-navigate', (e, url) => {
    if (!url.startsWith(rendererUrl)) e.preventDefault();
  });
  w.webContents.setWindowOpenHandler(({ url }) => {
    // Links to the outside world open in the user's browser, never in Trove.
    if (/^https?:\/\//.test(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  replay = new ReplayView(w, svc, emit);
  w.on('closed', () => {
    win = null;
    replay = null;
  });
  if (devServer) void w.loadURL(devServer);
  else void w.loadFile(rendererFile);
  return w;
}

function shellHandlers(svc: AppService): Handlers<ShellCommandName> {
  return {
    'replay.open': (req) => {
      if (!replay) throw new Error('no window');
      return replay.open(req);
    },
    'replay.bounds': (b) => {
      replay?.setBounds(b);
      return null;
    },
    'replay.close': () => {
      replay?.close();
      return null;
    },
    'shell.chooseFiles': async ({ purpose }) => {
      if (!win) return [];
      const filters =
        purpose === 'import'
          ? [{ name: 'Web archives', extensions: ['warc', 'gz', 'arc', 'wacz'] }, { name: 'All files', extensions: ['*'] }]
          : [{ name: 'Text', extensions: ['txt', 'csv'] }, { name: 'All files', extensions: ['*'] }];
      const r = await dialog.showOpenDialog(win, { properties: ['openFile', 'multiSelections'], filters });
      return r.canceled ? [] : r.filePaths;
    },
    'export.runTo': async (req) => {
      if (!win) return null;
      const r = await dialog.showOpenDialog(win, { title: 'Export to folder', properties: ['openDirectory', 'createDirectory'] });
      return r.canceled || !r.filePaths[0] ? null : svc.exportTo(req, r.filePaths[0]);
    },
    'shell.setTheme': ({ theme }) => {
      nativeTheme.themeSource = theme;
      return null;
    },
    'shell.reveal': async ({ id, exports }) => {
      const dir = svc.library.pathOf(id);
      if (exports) await shell.openPath(path.join(dir, 'exports'));
      else shell.showItemInFolder(dir);
      return null;
    },
  };
}

function lockDownSessions(): void {
  const s = session.defaultSession;
  s.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  s.setPermissionCheckHandler(() => false);
  // The window loads from file:// (or the dev server): it has no business on the network.
  const devOrigin = devServer ? new URL(devServer).origin : null;
  s.webRequest.onBeforeRequest({ urls: ['http://*/*', 'https://*/*', 'ws://*/*', 'wss://*/*'] }, (details, callback) => {
    const ok = devOrigin !== null && (details.url.startsWith(devOrigin) || details.url.startsWith(devOrigin.replace(/^http/, 'ws')));
    callback({ cancel: !ok });
  });
}

async function main(): Promise<void> {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  await app.whenReady();
  lockDownSessions();
  app.on('web-contents-created', (_e, contents) => {
    contents.on('will-attach-webview', (ev) => ev.preventDefault());
  });

  const svc = createAppService({ libraryDir, emit, shell: 'electron', openRecordTab: recordWindowOpener(log), openCrawlTab: crawlTabOpener(log) });
  service = svc;
  registerIpcGate({ handlers: { ...svc.handlers, ...shellHandlers(svc) }, window: () => win?.webContents ?? null, rendererUrl, log });
  Menu.setApplicationMenu(
    buildMenu((action) => emit('menu', { action }), {
      dev: devServer !== null,
      libraryDir: svc.library.dir,
      chooseLibrary: () => void chooseLibraryLocation(win, svc.library.dir).catch((err) => log('choosing the library folder failed', err)),
    }),
  );
  nativeTheme.on('updated', () => win?.setBackgroundColor(background()));

  win = createWindow(svc);
  app.on('second-instance', () => {
    if (win) {
      if (win.isMinimized()) win.restore();
      win.focus();
    }
  });
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) win = createWindow(svc);
  });
}

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});

// Stop crawls cleanly (WARCs closed, state saved) before the process goes.
app.on('before-quit', (e) => {
  if (quitting || !service) return;
  e.preventDefault();
  quitting = true;
  void service
    .close()
    .catch((err) => log('closing the app service failed', err))
    .finally(() => app.quit());
});

main().catch((err) => {
  log('start-up failed', err);
  dialog.showErrorBox('Trove could not start', String(err instanceof Error ? err.message : err));
  app.exit(1);
});
