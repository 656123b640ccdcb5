/**
 * Where the library lives: a real folder the user chooses (File › Choose Library Folder…),
 * remembered in the app's own settings file; `TROVE_LIBRARY` wins (tests, portable setups);
 * by default `~/Documents/Trove`. Archives are never kept only inside app storage: this file
 * holds nothing but the folder's path.
 */
import fs from 'node:fs';
import path from 'node:path';
import { app, dialog, type BrowserWindow } from 'electron';

function settingsFile(): string {
  return path.join(app.getPath('userData'), 'library-location.json');
}

export function libraryLocation(): string {
  if (process.env.TROVE_LIBRARY) return process.env.TROVE_LIBRARY;
  try {
    const saved = JSON.parse(fs.readFileSync(settingsFile(), 'utf8')) as { libraryDir?: unknown };
    if (typeof saved.libraryDir === 'string' && path.isAbsolute(saved.libraryDir)) return saved.libraryDir;
  } catch {
    /* first run, or an unreadable file: the default */
  }
  return path.join(app.getPath('documents'), 'Trove');
}

/**
 * Ask for a folder, remember it and restart into it (crawls are stopped cleanly by the quit
 * handler first). Nothing is moved: the old library stays where it is, as files.
 */
export async function chooseLibraryLocation(win: BrowserWindow | null, current: string): Promise<void> {
  const options = { title: 'Choose the Trove library folder', defaultPath: current, properties: ['openDirectory', 'createDirectory'] as ('openDirectory' | 'createDirectory')[] };
  const r = win ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options);
  const chosen = r.canceled ? undefined : r.filePaths[0];
  if (!chosen || path.resolve(chosen) === path.resolve(current)) return;
  fs.mkdirSync(path.dirname(settingsFile()), { recursive: true });
  fs.writeFileSync(settingsFile(), JSON.stringify({ libraryDir: path.resolve(chosen) }, null, 2));
  app.relaunch();
  app.quit();
}
