// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { HISTORY_POINTS, MonitorState } from '../../renderer/src/lib/monitor-state.svelte.ts';
import { fakeApi, snapshot } from './fake-api.ts';

describe('MonitorState', () => {
  it('follows only its crawl, keeps a bounded history and derives the controls', async () => {
    const { api } = fakeApi({ 'crawl.snapshot': () => null, 'crawl.pause': () => null });
    const m = new MonitorState(api);
    await m.attach('a');
    m.onSnapshot({ id: 'b', snapshot: snapshot() });
    expect(m.snapshot).toBeNull();
    for (let i = 0; i < HISTORY_POINTS + 20; i++) m.onSnapshot({ id: 'a', snapshot: snapshot({ elapsedMs: i, urisPerSec: i }) });
    expect(m.history).toHaveLength(HISTORY_POINTS);
    expect(m.history.at(-1)!.uris).toBe(HISTORY_POINTS + 19);
    expect(m.canPause).toBe(true);
    expect(m.canResume).toBe(false);
    expect(m.rejections[0]).toEqual(['exclude-regex', 7]);
    expect(m.novelShare).toBe(0.75);
    m.onState({ id: 'a', state: 'paused', reason: null, message: null });
    expect(m.canResume).toBe(true);
    expect(m.canPause).toBe(false);
    expect(await m.pause()).toBe(true);
  });

  it('shows an error from a refused command', async () => {
    const { api } = fakeApi({ 'crawl.snapshot': () => snapshot({ state: 'finished' }) });
    const m = new MonitorState(api);
    await m.attach('a');
    expect(m.state).toBe('finished');
    expect(await m.stop()).toBe(false);
    expect(m.error).toMatch(/not faked/);
  });
});
