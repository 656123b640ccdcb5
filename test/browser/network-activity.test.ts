/**
 * The network-quiet wait on a driven clock: the events are the Network domain's, replayed from
 * an EventEmitter (the CDP transport is not what is tested here; capture-page.test.ts runs it in
 * Chromium), and time moves only when the test says so.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { BrowserClock } from '../../core/browser/browser-clock.ts';
import type { CdpSession } from '../../core/browser/cdp-session.ts';
import { NetworkActivity } from '../../core/browser/network-activity.ts';

/** A clock whose sleep advances virtual time and runs `onTick` (the test's script of events). */
function drivenClock(onTick: (now: number) => void): BrowserClock {
  let t = 1_000_000;
  return {
    now: () => t,
    async sleep(ms) {
      t += ms;
      onTick(t);
    },
  };
}

function emitterSession(): CdpSession & { emit(event: string, p: unknown): void } {
  const e = new EventEmitter();
  return {
    send: async () => ({}),
    on: (ev, l) => e.on(ev, l),
    off: (ev, l) => e.off(ev, l),
    emit: (ev, p) => e.emit(ev, p),
  };
}

describe('NetworkActivity', () => {
  it('is quiet only after nothing was in flight for quietMs, counted from the call', async () => {
    const s = emitterSession();
    let started = 0;
    const clock = drivenClock((now) => {
      // A request starts 100 ms in and finishes 400 ms in; a redirect hop reuses its id.
      if (now - started === 100) s.emit('Network.requestWillBeSent', { requestId: 'r1' });
      if (now - started === 200) s.emit('Network.requestWillBeSent', { requestId: 'r1' });
      if (now - started === 400) s.emit('Network.loadingFinished', { requestId: 'r1' });
    });
    const net = new NetworkActivity(s, clock);
    net.start();
    started = clock.now();
    expect(await net.waitForQuiet({ quietMs: 500, maxMs: 10_000, pollMs: 100 })).toBe(true);
    // Quiet from 400 ms on, for 500 ms.
    expect(clock.now() - started).toBe(900);
    expect(net.inFlight).toBe(0);
    net.stop();
  });

  it('gives up at the cap while a request never ends', async () => {
    const s = emitterSession();
    const clock = drivenClock(() => {});
    const net = new NetworkActivity(s, clock);
    net.start();
    s.emit('Network.requestWillBeSent', { requestId: 'poll' });
    const t0 = clock.now();
    expect(await net.waitForQuiet({ quietMs: 500, maxMs: 3_000, pollMs: 100 })).toBe(false);
    expect(clock.now() - t0).toBe(3_000);
    expect(net.inFlight).toBe(1);
    s.emit('Network.loadingFailed', { requestId: 'poll' });
    expect(net.inFlight).toBe(0);
    net.stop();
  });

  it("a request whose head arrived and that then went silent (its body went to another target) does not hold the page", async () => {
    const s = emitterSession();
    let started = 0;
    const clock = drivenClock((now) => {
      if (now - started === 100) s.emit('Network.requestWillBeSent', { requestId: 'frame-doc' });
      if (now - started === 200) s.emit('Network.responseReceived', { requestId: 'frame-doc' });
      if (now - started === 300) s.emit('Network.dataReceived', { requestId: 'frame-doc' });
    });
    const net = new NetworkActivity(s, clock);
    net.start();
    started = clock.now();
    expect(await net.waitForQuiet({ quietMs: 500, maxMs: 10_000, pollMs: 100 })).toBe(true);
    expect(clock.now() - started).toBe(800);
    expect(net.inFlight).toBe(1);
    expect(net.awaitingResponse).toBe(0);
    net.stop();
  });

  it('stops counting once stopped', () => {
    const s = emitterSession();
    const net = new NetworkActivity(s, drivenClock(() => {}));
    net.start();
    net.stop();
    s.emit('Network.requestWillBeSent', { requestId: 'x' });
    expect(net.inFlight).toBe(0);
  });
});
