/**
 * The preload (sandboxed, bundled to CommonJS): `window.trove` built by looping over the command
 * and event tables. Each command is one `ipcRenderer.invoke` on its own channel; each event one
 * `ipcRenderer.on` on its own channel, with the IPC event object kept out of the renderer's
 * reach. There is no generic send/invoke/on.
 */
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron';
import { buildTroveApi, EVENT_NAMES } from '../../core/api/channels.ts';
import { COMMAND_NAMES } from '../../core/api/commands.ts';

const api = buildTroveApi(COMMAND_NAMES, EVENT_NAMES, {
  invoke: (channel, payload) => ipcRenderer.invoke(channel, payload),
  subscribe: (channel, listener) => {
    const wrapped = (_event: IpcRendererEvent, payload: unknown) => listener(payload);
    ipcRenderer.on(channel, wrapped);
    return () => {
      ipcRenderer.removeListener(channel, wrapped);
    };
  },
  pathForFile: (file) => {
    try {
      return webUtils.getPathForFile(file) || null;
    } catch {
      return null;
    }
  },
});

contextBridge.exposeInMainWorld('trove', api);
