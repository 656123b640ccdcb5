// @vitest-environment happy-dom
// The Monitor's crawl.log line puts the MIME type and the annotation apart with a spaced dot
// ("image/png · duplicate:digest"), as every other "·" on the screen is spaced.
import { describe, expect, it } from 'vitest';
import { render } from '@testing-library/svelte';
import { flushSync } from 'svelte';
import MonitorScreen from '../../renderer/src/screens/MonitorScreen.svelte';
import { MonitorState } from '../../renderer/src/lib/monitor-state.svelte.ts';
import { AppState } from '../../renderer/src/lib/app-state.svelte.ts';
import { fakeApi, snapshot } from './fake-api.ts';

const line = (offset: number, mime: string | null, reason: string | null) => ({
  offset, time: '2026-01-01T00:00:00.000Z', status: 200, size: 1000, url: `http://x/${offset}`, hopsPath: 'L', via: null, mime, rule: null, reason,
});

describe('a crawl.log line in the Monitor', () => {
  it('shows "image/png · duplicate:digest", the annotation alone without a dot, the MIME alone without one', async () => {
    const { api } = fakeApi({
      'crawl.snapshot': () => snapshot(),
      'crawl.logTail': () => ({ lines: [line(3, 'image/png', 'duplicate:digest'), line(2, null, 'duplicate:digest'), line(1, 'text/html', null)], next: null, fileBytes: 10, scannedBytes: 10 }),
    });
    const monitor = new MonitorState(api, { now: () => 0 });
    await monitor.attach('c1');
    const { getAllByTestId } = render(MonitorScreen, { app: new AppState(api), monitor });
    flushSync();
    const mimeCells = getAllByTestId('log-line').map((tr) => tr.querySelectorAll('td')[4]!.textContent!.trim());
    expect(mimeCells).toEqual(['image/png · duplicate:digest', 'duplicate:digest', 'text/html']);
  });
});
