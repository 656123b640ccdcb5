// @vitest-environment happy-dom
/**
 * The Monitor says what a crawl waits for (issue 33): URIs waiting to be retried, each with the
 * last try's outcome code and name, which try comes next and a countdown on the monitor's
 * injected clock; pages held back by a reached page limit; nothing when nothing waits.
 */
import { describe, expect, it } from 'vitest';
import { render } from '@testing-library/svelte';
import { flushSync } from 'svelte';
import MonitorScreen from '../../renderer/src/screens/MonitorScreen.svelte';
import WaitingPanel from '../../renderer/src/screens/monitor/WaitingPanel.svelte';
import { MonitorState } from '../../renderer/src/lib/monitor-state.svelte.ts';
import { AppState } from '../../renderer/src/lib/app-state.svelte.ts';
import type { CrawlSnapshot } from '../../core/api/crawl-snapshot.ts';
import { fakeApi, snapshot } from './fake-api.ts';

const T = 1_800_000_000_000;

const retrying: CrawlSnapshot['retrying'] = {
  count: 3,
  next: [
    { url: 'http://slow.test/a', queue: 'slow.test', status: -4, outcome: 'TIMEOUT', nextTry: 4, maxTries: 4, nextTryAt: T + 38_000, nextTryInMs: 38_000 },
    { url: 'http://busy.test/b', queue: 'busy.test', status: 503, outcome: 'HTTP 503', nextTry: 2, maxTries: 4, nextTryAt: T + 160_000, nextTryInMs: 160_000 },
  ],
};

async function monitorWith(snap: CrawlSnapshot, now: () => number): Promise<MonitorState> {
  const { api } = fakeApi({ 'crawl.snapshot': () => snap });
  const monitor = new MonitorState(api, { now });
  await monitor.attach('c1');
  return monitor;
}

const rows = (el: HTMLElement) =>
  [...el.querySelectorAll('[data-testid="retry-row"]')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent!.replace(/\s+/g, ' ').trim()));

describe('the Monitor’s waiting panel', () => {
  it('lists the URIs waiting to retry: outcome code and name, which try, and a countdown on the injected clock', async () => {
    let now = T;
    const monitor = await monitorWith(snapshot({ queued: 3, inFlight: 0, retrying, retries: 5 }), () => now);
    const { getByTestId, queryByTestId } = render(WaitingPanel, { monitor });
    flushSync();
    expect(getByTestId('retry-count').textContent!.replace(/\s+/g, ' ')).toContain('3 waiting to retry · 5 tried again so far');
    expect(rows(getByTestId('retry-table'))).toEqual([
      ['TIMEOUT (-4)', 'http://slow.test/a', 'try 4 of 4', 'in 38s'],
      ['HTTP 503', 'http://busy.test/b', 'try 2 of 4', 'in 2m 40s'],
    ]);
    expect(getByTestId('waits').textContent).toContain('and 1 more');
    expect(queryByTestId('held-by-page-limit')).toBeNull();
    expect(monitor.waits.retryingCapped).toBe(false);

    // The next snapshot, 40 s later on the monitor's clock: the first is due, the second nearer.
    now = T + 40_000;
    monitor.onSnapshot({ id: 'c1', snapshot: snapshot({ queued: 3, inFlight: 0, retrying, retries: 5 }) });
    flushSync();
    expect(rows(getByTestId('retry-table')).map((r) => r[3])).toEqual(['due now', 'in 2m 00s']);

    // Paused (or finished): they are tried when the crawl is resumed.
    monitor.onSnapshot({ id: 'c1', snapshot: snapshot({ state: 'paused', queued: 3, inFlight: 0, retrying, retries: 5 }) });
    flushSync();
    expect(rows(getByTestId('retry-table')).map((r) => r[3])).toEqual(['when the crawl is resumed', 'when the crawl is resumed']);
  });

  it('says how many pages the page limit holds back, and nothing at all when nothing waits', async () => {
    const held = await monitorWith(snapshot({ state: 'finished', finishReason: 'limit-pages', queued: 464, heldByPageLimit: 464 }), () => T);
    const a = render(WaitingPanel, { monitor: held });
    flushSync();
    expect(a.getByTestId('held-by-page-limit').textContent!.replace(/\s+/g, ' ')).toContain('464 held back by the page limit');
    expect(a.queryByTestId('retry-table')).toBeNull();
    a.unmount();

    // An older stored snapshot has neither field: no panel.
    const quiet = await monitorWith(snapshot(), () => T);
    const b = render(WaitingPanel, { monitor: quiet });
    flushSync();
    expect(b.queryByTestId('waits')).toBeNull();
  });

  it('is on the Monitor screen', async () => {
    const monitor = await monitorWith(snapshot({ queued: 3, inFlight: 0, retrying }), () => T);
    const { getByTestId } = render(MonitorScreen, { app: new AppState(monitor.api), monitor });
    flushSync();
    expect(rows(getByTestId('retry-table'))[0]).toEqual(['TIMEOUT (-4)', 'http://slow.test/a', 'try 4 of 4', 'in 38s']);
  });
});
