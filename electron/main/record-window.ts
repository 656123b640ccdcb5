/**
 * The Record window: a plain browser window in its own persistent session partition
 * (`persist:trove-record`, so logins made while recording survive for the next recording and
 * never mix with the replay or app sessions), sandboxed and context-isolated, with no preload:
 * the pages the archivist browses get no access to Trove at all. Its `webContents.debugger`,
 * through core's `debuggerSession` adapter (sendCommand → send, 'message' events → on/off), is
 * the CdpSession core's RecordSession records with; the address to load comes from the Record
 * screen of the app window (`record.start`, `record.navigate`).
 *
 * Pop-ups (target=_blank, window.open) load in the same window, so what they show is recorded
 * too. Everything else about recording lives in core/app/record-session.ts.
 */
import { BrowserWindow, session } from 'electron';
import type { OpenRecordTab, RecordTab } from '../../core/app/record-session.ts';
import { attachDebugger } from './attach-debugger.ts';
import { LOCKED_DOWN } from './web-preferences.ts';

export const RECORD_PARTITION = 'persist:trove-record';

/** Permissions a site may have while being recorded: none that reach the archivist's devices. */
const ALLOWED_PERMISSIONS = new Set(['fullscreen', 'clipboard-sanitized-write']);

let sessionReady = false;

function recordSession(): Electron.Session {
  const s = session.fromPartition(RECORD_PARTITION);
  if (!sessionReady) {
    sessionReady = true;
    s.setPermissionRequestHandler((_wc, permission, callback) => callback(ALLOWED_PERMISSIONS.has(permission)));
    s.setPermissionCheckHandler((_wc, permission) => ALLOWED_PERMISSIONS.has(permission));
  }
  return s;
}

/** A separate top-level window (not a child of the app's): the archivist arranges the two side by side. */
export function recordWindowOpener(log: (message: string, err?: unknown) => void): OpenRecordTab {
  return async (): Promise<RecordTab> => {
    const w = new BrowserWindow({
      width: 1280,
      height: 900,
      title: 'Trove — Recording',
      webPreferences: { ...LOCKED_DOWN, session: recordSession() },
    });
    w.webContents.setWindowOpenHandler(({ url }) => {
      if (/^https?:\/\//.test(url)) void w.webContents.loadURL(url);
      return { action: 'deny' };
    });
    const dbg = await attachDebugger(w, 'Record window', log);
    const closedListeners: (() => void)[] = [];
    let closing = false;
    w.on('closed', () => {
      if (!closing) for (const l of closedListeners) l();
    });
    return {
      session: dbg.session,
      onClosed: (l) => void closedListeners.push(l),
      async close() {
        closing = true;
        if (w.isDestroyed()) return;
        dbg.detach();
        w.close();
      },
    };
  };
}
