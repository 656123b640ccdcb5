/**
 * Electron's `webContents.debugger` as the CdpSession core/browser's PageRecorder drives: the
 * recorder is written once against `send`/`on`/`off` (a playwright-core CDPSession has them), and
 * this adapter maps them onto the debugger's `sendCommand` and its single `message` event, so
 * the app records with Electron's own Chromium and the archivist installs nothing.
 *
 * Events of the tab's own session only: messages that carry a sessionId belong to child targets
 * (out-of-process iframes, workers) the recorder did not attach to through this session, as a
 * playwright page session does not see them either.
 *
 * No run-time electron import, so the adapter is unit-tested against an EventEmitter shaped like
 * the debugger (test/app/debugger-session.test.ts); it is the one piece of the Record window the
 * tests cannot run inside real Electron here.
 */
import type { CdpSession } from '../../core/browser/cdp-session.ts';

type MessageListener = (event: unknown, method: string, params: unknown, sessionId?: string) => void;
type DetachListener = (event: unknown, reason: string) => void;

/** What the adapter needs of Electron's Debugger (`webContents.debugger`). */
export interface DebuggerLike {
  sendCommand(method: string, commandParams?: unknown, sessionId?: string): Promise<unknown>;
  on(event: 'message', listener: MessageListener): unknown;
  on(event: 'detach', listener: DetachListener): unknown;
  removeListener(event: 'message', listener: MessageListener): unknown;
  removeListener(event: 'detach', listener: DetachListener): unknown;
}

export class DebuggerSession implements CdpSession {
  readonly #dbg: DebuggerLike;
  readonly #listeners = new Map<string, Set<(params: any) => void>>();
  #detached: string | null = null;

  readonly #onMessage: MessageListener = (_event, method, params, sessionId) => {
    if (sessionId) return;
    const set = this.#listeners.get(method);
    if (!set) return;
    for (const l of [...set]) l(params ?? {});
  };

  readonly #onDetach: DetachListener = (_event, reason) => {
    this.#detached = reason || 'detached';
  };

  constructor(dbg: DebuggerLike) {
    this.#dbg = dbg;
    dbg.on('message', this.#onMessage);
    dbg.on('detach', this.#onDetach);
  }

  send(method: string, params?: Record<string, unknown>): Promise<any> {
    if (this.#detached !== null) return Promise.reject(new Error(`${method}: the debugger is detached (${this.#detached})`));
    return this.#dbg.sendCommand(method, params ?? {});
  }

  on(event: string, listener: (params: any) => void): this {
    let set = this.#listeners.get(event);
    if (!set) this.#listeners.set(event, (set = new Set()));
    set.add(listener);
    return this;
  }

  off(event: string, listener: (params: any) => void): this {
    this.#listeners.get(event)?.delete(listener);
    return this;
  }

  /** Stop listening to the debugger (the window is closing). */
  dispose(): void {
    this.#dbg.removeListener('message', this.#onMessage);
    this.#dbg.removeListener('detach', this.#onDetach);
    this.#listeners.clear();
  }
}
