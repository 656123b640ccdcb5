/**
 * The one IPC gate: a handler per channel of the command table, each doing
 * sender check → validate payload → call handler → Result. Validation and the call are core/app's
 * `dispatch` (the same the e2e harness uses); the sender check is Electron's part: only the main
 * frame of our window, showing our renderer, may call.
 */
import type { WebContents } from 'electron';
import { ipcMain } from 'electron';
import { isOurSender } from './sender-check.ts';
import { commandChannel } from '../../core/api/channels.ts';
import { COMMAND_NAMES, type Handlers } from '../../core/api/commands.ts';
import type { Result } from '../../core/api/result.ts';
import { dispatch } from '../../core/app/gate.ts';

export interface GateOptions {
  handlers: Handlers;
  /** The window's webContents (null while there is no window). */
  window(): WebContents | null;
  /** URL prefix our renderer is loaded from (file:///…/out/renderer/index.html or the dev server). */
  rendererUrl: string;
  log(message: string, err?: unknown): void;
}

/** Register `ipcMain.handle` for every command; returns a function that removes them. */
export function registerIpcGate(opts: GateOptions): () => void {
  for (const name of COMMAND_NAMES) {
    ipcMain.handle(commandChannel(name), async (event, payload: unknown): Promise<Result<unknown>> => {
      if (!isOurSender(event, opts.window(), opts.rendererUrl)) {
        opts.log(`refused ${name} from ${event.senderFrame?.url ?? 'an unknown frame'}`);
        return { ok: false, error: { code: 'FORBIDDEN_SENDER', message: 'this window may not call Trove' } };
      }
      return dispatch(opts.handlers, name, payload, { onInternalError: (n, err) => opts.log(`${n} failed`, err) });
    });
  }
  return () => {
    for (const name of COMMAND_NAMES) ipcMain.removeHandler(commandChannel(name));
  };
}
