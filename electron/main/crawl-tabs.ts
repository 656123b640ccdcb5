/**
 * The tabs of the app's browser crawls: hidden windows of Electron's own Chromium, so users
 * install nothing. Each is sandboxed, context-isolated and has no preload (crawled pages get no
 * access to Trove), in the crawl's own persistent session partition (`persist:trove-crawl`,
 * apart from the Record window's logins and the app's session), with no permissions. Its
 * `webContents.debugger`, through core's `debuggerSession` adapter, is relayed to the crawl's
 * worker thread by core (tab-relay-host.ts); everything about capture lives in core/.
 */
import { BrowserWindow, session } from 'electron';
import type { OpenTab, SourceTab } from '../../core/browser/tab-source.ts';
import { attachDebugger } from './attach-debugger.ts';
import { LOCKED_DOWN } from './web-preferences.ts';

export const CRAWL_PARTITION = 'persist:trove-crawl';

let sessionReady = false;

function crawlSession(): Electron.Session {
  const s = session.fromPartition(CRAWL_PARTITION);
  if (!sessionReady) {
    sessionReady = true;
    s.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
    s.setPermissionCheckHandler(() => false);
  }
  return s;
}

export function crawlTabOpener(log: (message: string, err?: unknown) => void): OpenTab {
  return async (): Promise<SourceTab> => {
    const w = new BrowserWindow({
      show: false,
      width: 1280,
      height: 800,
      // The page's viewport is 1280×800, as the CLI's Chromium tabs.
      useContentSize: true,
      // A hidden window must still lay out and paint (the page's screenshot).
      paintWhenInitiallyHidden: true,
      webPreferences: {
        ...LOCKED_DOWN,
        session: crawlSession(),
        // A hidden window must still run timers and animations at full speed.
        backgroundThrottling: false,
        // Media behaviors play audio and video without a gesture, as the CLI's Chromium does.
        autoplayPolicy: 'no-user-gesture-required',
      },
    });
    w.webContents.setAudioMuted(true);
    // Pop-ups are not followed in a crawl tab (their links are found by the live-DOM extraction).
    w.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
    const dbg = await attachDebugger(w, 'crawl tab', log);
    return {
      session: dbg.session,
      async close() {
        if (w.isDestroyed()) return;
        dbg.detach();
        // destroy, not close: a page's beforeunload must not keep a crawl tab open.
        w.destroy();
      },
    };
  };
}
