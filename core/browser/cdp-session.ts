/**
 * The one thing the browser recorder needs from a browser: send a DevTools Protocol command and
 * listen to its events. Kept this small so one recorder serves both Chromiums Trove drives:
 * Debian's (or any) Chromium through playwright-core's CDPSession in the CLI and tests, and
 * Electron's own through `webContents.debugger` in the app (see `debuggerSession` below).
 */

export interface CdpSession {
  send(method: string, params?: Record<string, unknown>): Promise<any>;
  on(event: string, listener: (params: any) => void): unknown;
  off(event: string, listener: (params: any) => void): unknown;
}

/**
 * The shape of Electron's `webContents.debugger` that the adapter uses. Declared here, not
 * imported: core/ never imports electron, and structural typing lets the app pass the real one.
 */
export interface ElectronDebuggerLike {
  sendCommand(method: string, params?: Record<string, unknown>): Promise<any>;
  on(event: 'message', listener: (event: unknown, method: string, params: any) => void): unknown;
  removeListener(event: 'message', listener: (event: unknown, method: string, params: any) => void): unknown;
}

/** Electron's debugger as a CdpSession: one 'message' listener fans events out by method. */
export function debuggerSession(dbg: ElectronDebuggerLike): CdpSession {
  const listeners = new Map<string, Set<(params: any) => void>>();
  const onMessage = (_e: unknown, method: string, params: any): void => {
    for (const l of listeners.get(method) ?? []) l(params);
  };
  let attached = false;
  return {
    send: (method, params) => dbg.sendCommand(method, params),
    on(event, listener) {
      if (!attached) {
        dbg.on('message', onMessage);
        attached = true;
      }
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      set.add(listener);
      return this;
    },
    off(event, listener) {
      listeners.get(event)?.delete(listener);
      if (attached && [...listeners.values()].every((s) => s.size === 0)) {
        dbg.removeListener('message', onMessage);
        attached = false;
      }
      return this;
    },
  };
}
