/**
 * The Record window's CDP session: Electron's `webContents.debugger` through core's
 * `debuggerSession` adapter (core/browser/cdp-session.ts), against an EventEmitter shaped like the
 * debugger. Electron cannot run here, so this is the one piece of the Record window tested
 * without the real thing; the recorder it feeds is tested through Chromium
 * (test/app/record-session.test.ts, test/e2e/record.test.ts).
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { debuggerSession, type ElectronDebuggerLike } from '../../core/browser/cdp-session.ts';

class FakeDebugger extends EventEmitter implements ElectronDebuggerLike {
  sent: { method: string; params: unknown }[] = [];
  async sendCommand(method: string, params?: Record<string, unknown>): Promise<unknown> {
    this.sent.push({ method, params });
    if (method === 'Broken.call') throw new Error('no such method');
    return method === 'Runtime.evaluate' ? { result: { value: 42 } } : {};
  }
}

describe('debuggerSession (webContents.debugger as the Record tab’s CdpSession)', () => {
  it('send → sendCommand, with its result and its error', async () => {
    const dbg = new FakeDebugger();
    const s = debuggerSession(dbg);
    expect(await s.send('Runtime.evaluate', { expression: '6*7' })).toEqual({ result: { value: 42 } });
    await s.send('Page.navigate', { url: 'http://127.0.0.1/' });
    expect(dbg.sent).toEqual([
      { method: 'Runtime.evaluate', params: { expression: '6*7' } },
      { method: 'Page.navigate', params: { url: 'http://127.0.0.1/' } },
    ]);
    await expect(s.send('Broken.call')).rejects.toThrow('no such method');
  });

  it("'message' events → on/off listeners by method; the debugger is let go when nobody listens", () => {
    const dbg = new FakeDebugger();
    const s = debuggerSession(dbg);
    const got: unknown[] = [];
    const other: unknown[] = [];
    const listener = (p: unknown) => got.push(p);
    s.on('Network.requestWillBeSent', listener);
    const lifecycle = (p: unknown) => other.push(p);
    s.on('Page.lifecycleEvent', lifecycle);
    expect(dbg.listenerCount('message')).toBe(1);
    dbg.emit('message', {}, 'Network.requestWillBeSent', { requestId: '1' });
    dbg.emit('message', {}, 'Page.lifecycleEvent', { name: 'networkIdle' });
    dbg.emit('message', {}, 'Page.loadEventFired', { timestamp: 1 });
    s.off('Network.requestWillBeSent', listener);
    dbg.emit('message', {}, 'Network.requestWillBeSent', { requestId: '2' });
    expect(got).toEqual([{ requestId: '1' }]);
    expect(other).toEqual([{ name: 'networkIdle' }]);
    expect(dbg.listenerCount('message')).toBe(1);
    s.off('Page.lifecycleEvent', lifecycle);
    expect(dbg.listenerCount('message')).toBe(0);
  });
});
