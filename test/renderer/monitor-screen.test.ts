// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { render, fireEvent } from '@testing-library/svelte';
import { flushSync } from 'svelte';
import MonitorScreen from '../../renderer/src/screens/MonitorScreen.svelte';
import { MonitorState } from '../../renderer/src/lib/monitor-state.svelte.ts';
import { AppState } from '../../renderer/src/lib/app-state.svelte.ts';
import { fakeApi, snapshot, tick } from './fake-api.ts';

describe('MonitorScreen', () => {
  it('shows counts, hosts, outcomes and traps, and excludes a trap only after a preview is confirmed', async () => {
    const snap = snapshot({
      hosts: [{ queue: 'example.org', pending: 4, inFlight: 1, done: 9, failed: 1, readyInMs: 1200, delayMs: 3000, delayReason: 'min-delay', robots: 'rules (2 groups)', backoffs: 2 }],
      recent: [{ time: Date.now(), status: -9998, outcome: 'ROBOTS_PRECLUDED', url: 'http://example.org/private/x', hopsPath: 'L', mime: null, bytes: 0, durationMs: 0 }],
      traps: [{ host: 'example.org', pattern: '/calendar/<n>/', count: 250, suggestedExclude: '/calendar/' }],
    });
    const { api, calls } = fakeApi({
      'crawl.snapshot': () => snap,
      'crawl.addExclude': ({ id, pattern }) => ({ id, pattern, running: true, added: true, dropped: 240, samples: [], appliedAt: 0 }),
      'crawl.pause': () => null,
      'crawl.excludePreview': ({ pattern }) => ({
        pattern,
        captured: { count: 2, complete: true, samples: ['http://example.org/calendar/1/', 'http://example.org/calendar/2/'] },
        queued: { count: 240, complete: true, samples: ['http://example.org/calendar/3/'] },
      }),
    });
    const app = new AppState(api);
    const monitor = new MonitorState(api);
    await monitor.attach('c1');
    const { container, getByTestId, getByText } = render(MonitorScreen, { app, monitor });
    flushSync();
    expect(getByTestId('crawl-state').dataset.state).toBe('running');
    expect(getByTestId('stat-downloaded').textContent).toContain('10');
    expect(getByTestId('hosts-table').textContent).toContain('example.org');
    expect(getByTestId('hosts-table').textContent).toContain('3.0 s');
    void getByText;
    expect(getByTestId('recent-table').textContent).toContain('robots.txt');
    expect(getByTestId('scope-rejections').textContent).toContain('exclude-regex');
    // One click opens the confirmation with what the rule matches; nothing is applied yet.
    await fireEvent.click(getByTestId('trap-exclude'));
    await tick();
    flushSync();
    expect(calls.some((c) => c.name === 'crawl.addExclude')).toBe(false);
    expect(getByTestId('preview-queued').textContent).toContain('240');
    expect(getByTestId('preview-captured').textContent).toContain('2');
    expect(getByTestId('exclude-dialog').textContent).toContain('http://example.org/calendar/3/');
    expect((getByTestId('exclude-pattern') as HTMLInputElement).value).toBe('/calendar/');
    await fireEvent.click(getByTestId('exclude-confirm'));
    await tick();
    expect(calls.find((c) => c.name === 'crawl.addExclude')?.payload).toEqual({ id: 'c1', pattern: '/calendar/' });
    flushSync();
    expect(monitor.excludeDraft).toBeNull();
    // Failures are told apart from robots.txt and scope: "Failed" never stands alone beside rejections.
    expect(getByTestId('stat-failed').textContent).toContain('Fetch errors');
    expect(getByTestId('stat-failed').textContent).toContain('1 robots.txt');
    expect(getByTestId('stat-rejected').textContent).toContain('10');
    await fireEvent.click(getByTestId('pause'));
    await tick();
    expect(calls.some((c) => c.name === 'crawl.pause')).toBe(true);
    expect(container.querySelectorAll('polyline, text').length).toBeGreaterThan(0);
  });

  it('excludes any pattern from the Monitor: typed, previewed, the preview refreshed on snapshots as the queue grows', async () => {
    let queued = 3;
    let clock = 1_000_000;
    const { api, calls } = fakeApi({
      'crawl.snapshot': () => snapshot(),
      'crawl.excludePreview': ({ pattern }) =>
        /\(/.test(pattern)
          ? Promise.reject(Object.assign(new Error(`exclude: not a valid regular expression: /${pattern}/`), { code: 'SCOPE_BAD_REGEX' }))
          : { pattern, captured: { count: 0, complete: true, samples: [] }, queued: { count: queued, complete: true, samples: ['http://example.org/ads/1'] } },
      'crawl.addExclude': ({ id, pattern }) => ({ id, pattern, running: true, added: true, dropped: queued, samples: [], appliedAt: 0 }),
    });
    const monitor = new MonitorState(api, { now: () => clock });
    await monitor.attach('c1');
    const { getByTestId } = render(MonitorScreen, { app: new AppState(api), monitor });
    flushSync();
    await fireEvent.click(getByTestId('monitor-exclude'));
    flushSync();
    expect((getByTestId('exclude-confirm') as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.input(getByTestId('exclude-pattern'), { target: { value: '/ads/' } });
    await new Promise((resolve) => setTimeout(resolve, 300)); // the typing pause
    await tick();
    flushSync();
    expect(getByTestId('preview-queued').textContent).toContain('3');
    const previews = () => calls.filter((c) => c.name === 'crawl.excludePreview').length;
    const asked = previews();
    // The queue grows: a snapshot within PREVIEW_REFRESH_MS asks nothing, one after asks again.
    queued = 7;
    clock += 200;
    monitor.onSnapshot({ id: 'c1', snapshot: snapshot() });
    await tick();
    expect(previews()).toBe(asked);
    clock += 1000;
    monitor.onSnapshot({ id: 'c1', snapshot: snapshot() });
    await tick();
    flushSync();
    expect(previews()).toBe(asked + 1);
    expect(getByTestId('preview-queued').textContent).toContain('7');
    // A bad regex: said, and nothing can be confirmed.
    await fireEvent.input(getByTestId('exclude-pattern'), { target: { value: '(' } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await tick();
    flushSync();
    expect(getByTestId('exclude-error').textContent).toMatch(/not a valid regular expression/);
    expect((getByTestId('exclude-confirm') as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.input(getByTestId('exclude-pattern'), { target: { value: '/ads/' } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await tick();
    flushSync();
    await fireEvent.click(getByTestId('exclude-confirm'));
    await tick();
    expect(calls.find((c) => c.name === 'crawl.addExclude')?.payload).toEqual({ id: 'c1', pattern: '/ads/' });
  });

  it('a shared crawl: a small table of every worker (host, state, rate, leases, last heartbeat); none on a crawl of one process', async () => {
    const workers = [
      { name: 'a', host: 'box1', pid: 11, state: 'running', urisPerSec: 2.5, downloaded: 40, leases: 2, heartbeatAgoMs: 400, alive: true },
      { name: 'b', host: 'box2', pid: 7, state: 'running', urisPerSec: 0, downloaded: 3, leases: 1, heartbeatAgoMs: 31_000, alive: false },
    ];
    for (const shared of [true, false]) {
      const { api } = fakeApi({ 'crawl.snapshot': () => snapshot(shared ? { workers } : {}) });
      const monitor = new MonitorState(api);
      await monitor.attach('c1');
      const { queryByTestId, unmount } = render(MonitorScreen, { app: new AppState(api), monitor });
      flushSync();
      const table = queryByTestId('workers-table');
      if (!shared) {
        expect(table).toBeNull();
      } else {
        const rows = [...table!.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent!.replace(/\s+/g, ' ').trim()));
        expect(rows[0]!.slice(0, 3)).toEqual(['a', 'box1 pid 11', 'running']);
        expect(rows[0]![5]).toBe('2');
        expect(rows[0]![6]).toBe('0.4 s ago');
        expect(rows[1]![6]).toContain('31.0 s ago');
        expect(rows[1]![6]).toContain('lease expired');
      }
      unmount();
    }
  });
});
