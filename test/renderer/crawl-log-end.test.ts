// @vitest-environment happy-dom
// The Monitor's crawl.log of a very short crawl: read at attach (still empty), then the crawl ends
// within one refresh interval. The end of the crawl reads the log again, so it does not say "no
// matching lines" until the operator switches tabs. The clock is injected: it never moves here.
import { describe, expect, it } from 'vitest';
import { MonitorState } from '../../renderer/src/lib/monitor-state.svelte.ts';
import { fakeApi, snapshot } from './fake-api.ts';

describe('crawl log of a short crawl', () => {
  it('is read again when the crawl ends', async () => {
    let written: number[] = [];
    const line = (n: number) => ({ offset: n, time: '2026-01-01T00:00:00.000Z', status: 200, size: 1, url: `http://x/${n}`, hopsPath: 'L', via: null, mime: null, rule: null, reason: null });
    const { api } = fakeApi({
      'crawl.snapshot': () => snapshot({ state: 'running' }),
      'library.open': () => ({ settings: null }) as never,
      'crawl.logTail': () => ({ lines: written.map(line), next: null, fileBytes: 10, scannedBytes: 10 }),
    });
    const m = new MonitorState(api, { now: () => 0 });
    await m.attach('a');
    expect(m.logLines).toEqual([]);
    written = [2, 1];
    m.onSnapshot({ id: 'a', snapshot: snapshot({ state: 'running' }) });
    m.onState({ id: 'a', state: 'finished', reason: 'frontier-empty', message: null });
    await expect.poll(() => m.logLines.map((l) => l.url)).toEqual(['http://x/2', 'http://x/1']);
  });
});
