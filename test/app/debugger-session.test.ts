/**
 * The Record window's debugger adapter (electron/main/debugger-session.ts) against an
 * EventEmitter shaped like Electron's `webContents.debugger`. Electron cannot run here, so this
 * is the one piece of the Record window tested without the real thing; the recorder it feeds is
 * tested through Chromium (test/e2e/record.test.ts).
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { DebuggerSession, type DebuggerLike } from '../../electron/main/debugger-session.ts';

class FakeDebugger extends EventEmitter implements DebuggerLike {
  sent: { method: string; params: unknown; sessionId?: string }[] = [];
  async sendCommand(method: string, params?: unknown, sessionId?: string): Promise<unknown> {
    this.sent.push({ method, params, ...(sessionId ? { sessionId } : {}) });
    if (method === 'Broken.call') throw new Error('no such method');
    return method === 'Runtime.evaluate' ? { result: { value: 42 } } : {};
  }
}

describe('DebuggerSession (webContents.debugger as a CdpSession)', () => {
  it('send → sendCommand, with its result and its error', async () => {
    const dbg = new FakeDebugger();
    const s = new DebuggerSession(dbg);
    expect(await s.send('Runtime.evaluate', { expression: '6*7' })).toEqual({ result: { value: 42 } });
    expect(await s.send('Network.enable')).toEqual({});
    expect(dbg.sent).toEqual([
      { method: 'Runtime.evaluate', params: { expression: '6*7' } },
      { method: 'Network.enable', params: {} },
    ]);
    await expect(s.send('Broken.call')).rejects.toThrow('no such method');
  });

  it("'message' events → on/off listeners by method; child-session messages are not the tab's", () => {
    const dbg = new FakeDebugger();
    const s = new DebuggerSession(dbg);
    const got: unknown[] = [];
    const other: unknown[] = [];
    const listener = (p: unknown) => got.push(p);
    s.on('Network.requestWillBeSent', listener);
    s.on('Fetch.requestPaused', (p) => other.push(p));
    dbg.emit('message', {}, 'Network.requestWillBeSent', { requestId: '1' }, '');
    dbg.emit('message', {}, 'Network.requestWillBeSent', { requestId: 'child' }, 'SESSION-OF-AN-IFRAME');
    dbg.emit('message', {}, 'Fetch.requestPaused', { requestId: 'f' });
    dbg.emit('message', {}, 'Page.loadEventFired', { timestamp: 1 });
    s.off('Network.requestWillBeSent', listener);
    dbg.emit('message', {}, 'Network.requestWillBeSent', { requestId: '2' }, '');
    expect(got).toEqual([{ requestId: '1' }]);
    expect(other).toEqual([{ requestId: 'f' }]);
  });

  it('after detach, send rejects with the reason; dispose lets go of the debugger', async () => {
    const dbg = new FakeDebugger();
    const s = new DebuggerSession(dbg);
    const got: unknown[] = [];
    s.on('Page.frameNavigated', (p) => got.push(p));
    dbg.emit('detach', {}, 'target closed');
    await expect(s.send('Page.navigate', { url: 'http://127.0.0.1/' })).rejects.toThrow('target closed');
    expect(dbg.listenerCount('message')).toBe(1);
    s.dispose();
    expect(dbg.listenerCount('message')).toBe(0);
    expect(dbg.listenerCount('detach')).toBe(0);
    dbg.emit('message', {}, 'Page.frameNavigated', {});
    expect(got).toEqual([]);
  });
});
