/**
 * The native menu. Items send `menu` events to the renderer, which owns what they do; the
 * accelerators are shown but not registered (`registerAccelerator: false`) because the renderer
 * handles the same keys itself (one code path for menu, keyboard and the e2e harness).
 */
import { app, Menu, shell, type MenuItemConstructorOptions } from 'electron';
import type { MenuAction } from '../../core/api/app-types.ts';

export function buildMenu(send: (action: MenuAction) => void, opts: { dev: boolean; libraryDir: string; chooseLibrary: () => void }): Menu {
  const item = (label: string, accelerator: string, action: MenuAction): MenuItemConstructorOptions => ({
    label,
    accelerator,
    registerAccelerator: false,
    click: () => send(action),
  });
  const isMac = process.platform === 'darwin';
  const template: MenuItemConstructorOptions[] = [
    ...(isMac ? [{ role: 'appMenu' as const }] : []),
    {
      label: 'File',
      submenu: [
        item('New Crawl…', 'CmdOrCtrl+N', 'go-new-crawl'),
        item('Import WARC / WACZ…', 'CmdOrCtrl+I', 'import'),
        { type: 'separator' },
        { label: 'Open Library Folder', click: () => void shell.openPath(opts.libraryDir) },
        { label: 'Choose Library Folder…', click: () => opts.chooseLibrary() },
        { type: 'separator' },
        isMac ? { role: 'close' } : { role: 'quit' },
      ],
    },
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [
        item('Library', 'CmdOrCtrl+1', 'go-library'),
        item('New Crawl', 'CmdOrCtrl+2', 'go-new-crawl'),
        item('Monitor', 'CmdOrCtrl+3', 'go-monitor'),
        item('WARC Browser', 'CmdOrCtrl+4', 'go-browser'),
        item('Record', 'CmdOrCtrl+5', 'go-record'),
        { type: 'separator' },
        item('Find in Archive', 'CmdOrCtrl+F', 'find'),
        { type: 'separator' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { role: 'togglefullscreen' },
        ...(opts.dev ? [{ type: 'separator' as const }, { role: 'toggleDevTools' as const }, { role: 'reload' as const }] : []),
      ],
    },
    {
      label: 'Crawl',
      submenu: [item('Pause / Resume', 'CmdOrCtrl+P', 'pause-resume'), item('Stop', 'CmdOrCtrl+Shift+S', 'stop')],
    },
    { role: 'windowMenu' },
    {
      role: 'help',
      submenu: [{ label: `Trove ${app.getVersion()}`, enabled: false }],
    },
  ];
  return Menu.buildFromTemplate(template);
}
