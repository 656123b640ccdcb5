/**
 * Electron's webContents.debugger as a CdpSession. Electron itself is not started here (its e2e
 * tests need the downloaded binary); the stand-in has the debugger's documented surface:
 * sendCommand(method, params) and 'message' events (event, method, params).
 */
import { EventEmitter } from 'node:events';
import { expect, it } from 'vitest';
import { debuggerSession } from '../../core/browser/cdp-session.ts';

it('sends through sendCommand and fans message events out by method, detaching when no listener is left', async () => {
  const dbg = Object.assign(new EventEmitter(), {
    sent: [] as [string, unknown][],
    async sendCommand(method: string, params?: Record<string, unknown>) {
      this.sent.push([method, params]);
      return { ok: method };
    },
  });
  const s = debuggerSession(dbg);
  expect(await s.send('Network.enable', {})).toEqual({ ok: 'Network.enable' });
  expect(dbg.sent).toEqual([['Network.enable', {}]]);

  const paused: unknown[] = [];
  const onPaused = (p: unknown) => paused.push(p);
  s.on('Fetch.requestPaused', onPaused);
  dbg.emit('message', {}, 'Fetch.requestPaused', { requestId: '1' });
  dbg.emit('message', {}, 'Network.loadingFinished', { requestId: '1' });
  expect(paused).toEqual([{ requestId: '1' }]);
  expect(dbg.listenerCount('message')).toBe(1);

  s.off('Fetch.requestPaused', onPaused);
  dbg.emit('message', {}, 'Fetch.requestPaused', { requestId: '2' });
  expect(paused).toHaveLength(1);
  expect(dbg.listenerCount('message')).toBe(0);
});
