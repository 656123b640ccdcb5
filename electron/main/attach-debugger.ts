/**
 * The debugger of a window that captures the live web (the Record window, the crawl's hidden
 * tabs): attached to a blank page, handed to core as a CdpSession, and detached on close.
 */
import type { BrowserWindow } from 'electron';
import { debuggerSession } from '../../core/browser/cdp-session.ts';
import type { CdpSession } from '../../core/browser/cdp-session.ts';

/**
 * Load about:blank (the debugger answers only once the target has navigated), attach the
 * debugger, and give its CdpSession with a `detach` that logs instead of throwing.
 */
export async function attachDebugger(w: BrowserWindow, what: string, log: (message: string, err?: unknown) => void): Promise<{ session: CdpSession; detach(): void }> {
  await w.webContents.loadURL('about:blank');
  const dbg = w.webContents.debugger;
  dbg.attach('1.3');
  return {
    session: debuggerSession(dbg),
    detach() {
      try {
        if (dbg.isAttached()) dbg.detach();
      } catch (err) {
        log(`detaching the ${what} debugger failed`, err);
      }
    },
  };
}
