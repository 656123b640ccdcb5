// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { HISTORY_POINTS, LOG_REFRESH_MS, MonitorState } from '../../renderer/src/lib/monitor-state.svelte.ts';
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

  it('shows rates only while running, and progress with an ETA against each limit', async () => {
    const settings = { limitPages: 100, limitUris: 0, limitBytes: 8000, limitTimeS: 60 };
    const { api } = fakeApi({
      'crawl.snapshot': () => null,
      'library.open': () => ({ settings }) as never,
      'crawl.logTail': () => ({ lines: [], next: null, fileBytes: 0, scannedBytes: 0 }),
    });
    const m = new MonitorState(api, { now: () => 0 });
    await m.attach('a');
    m.onSnapshot({ id: 'a', snapshot: snapshot({ elapsedMs: 10_000, pages: 25, bytes: 8000, urisPerSec: 3 }) });
    expect(m.moving).toBe(true);
    expect(m.history.at(-1)!.uris).toBe(3);
    const byKey = Object.fromEntries(m.limits.map((l) => [l.key, l]));
    expect(Object.keys(byKey)).toEqual(['limitPages', 'limitBytes', 'limitTimeS']);
    expect(byKey.limitPages!.share).toBe(0.25);
    expect(byKey.limitPages!.etaMs).toBe(30_000); // 75 pages to go at 2.5 pages/s
    expect(byKey.limitBytes!.reached).toBe(true);
    expect(byKey.limitTimeS!.etaMs).toBe(50_000);
    m.onSnapshot({ id: 'a', snapshot: snapshot({ state: 'paused', urisPerSec: 3, kbPerSec: 9 }) });
    expect(m.moving).toBe(false);
    expect(m.history.at(-1)).toMatchObject({ uris: 0, kb: 0 });
    m.onSnapshot({ id: 'a', snapshot: snapshot({ state: 'finished', finishReason: 'limit-pages' }) });
    expect(m.finishedNormally).toBe(true);
  });

  it('ETAs at the rate the crawl ran, paused time left out; the URI limit against the frontier’s URIs, not what tabs loaded', async () => {
    const settings = { limitPages: 100, limitUris: 50, limitBytes: 0, limitTimeS: 0 };
    const { api } = fakeApi({
      'crawl.snapshot': () => null,
      'library.open': () => ({ settings }) as never,
      'crawl.logTail': () => ({ lines: [], next: null, fileBytes: 0, scannedBytes: 0 }),
    });
    const m = new MonitorState(api, { now: () => 0 });
    await m.attach('a');
    // 10 s ran, an hour paused: 25 pages in 10 s is 2.5 pages/s, not 25 an hour.
    m.onSnapshot({ id: 'a', snapshot: snapshot({ elapsedMs: 3_610_000, pausedMs: 3_600_000, pages: 25, downloaded: 40, browserLoads: 30, failed: 0 }) });
    const byKey = Object.fromEntries(m.limits.map((l) => [l.key, l]));
    expect(byKey.limitPages!.etaMs).toBe(30_000);
    expect(byKey.limitUris!.done).toBe(10);
  });

  it('reads the log from the file on attach, refreshes it at most every LOG_REFRESH_MS, and filters scope rejections by rule', async () => {
    let clock = 0;
    const line = (n: number) => ({ offset: n, time: '2026-01-01T00:00:00.000Z', status: 200, size: 1, url: `http://x/${n}`, hopsPath: 'L', via: null, mime: null, rule: null, reason: null });
    const { api, calls } = fakeApi({
      'crawl.snapshot': () => snapshot({ state: 'finished' }),
      'library.open': () => ({ settings: null }) as never,
      'crawl.logTail': (req) => ({ lines: req.before ? [line(1)] : [line(3), line(2)], next: req.before ? null : 2, fileBytes: 10, scannedBytes: 10 }),
    });
    const m = new MonitorState(api, { now: () => clock });
    await m.attach('a');
    expect(m.logLines.map((l) => l.url)).toEqual(['http://x/3', 'http://x/2']);
    await m.loadLog(true);
    expect(m.logLines.map((l) => l.url)).toEqual(['http://x/3', 'http://x/2', 'http://x/1']);
    expect(m.logNext).toBeNull();
    const reads = () => calls.filter((c) => c.name === 'crawl.logTail').length;
    const before = reads();
    clock = 100;
    m.onSnapshot({ id: 'a', snapshot: snapshot() });
    expect(reads()).toBe(before);
    clock = 100 + LOG_REFRESH_MS;
    m.onSnapshot({ id: 'a', snapshot: snapshot() });
    expect(reads()).toBe(before + 1);
    await m.showRejections('exclude-regex');
    expect(calls.at(-1)!.payload).toMatchObject({ id: 'a', log: 'scope', rule: 'exclude-regex', limit: 100 });
  });

  it('resumes with only the limits that were edited', async () => {
    const { api, calls } = fakeApi({
      'crawl.snapshot': () => snapshot({ state: 'finished', finishReason: 'limit-pages' }),
      'library.open': () => ({ settings: { limitPages: 40, limitUris: 0, limitBytes: 0, limitTimeS: 0 } }) as never,
      'crawl.logTail': () => ({ lines: [], next: null, fileBytes: 0, scannedBytes: 0 }),
      'crawl.resume': ({ id }) => ({ id }),
    });
    const m = new MonitorState(api);
    await m.attach('a');
    m.openResume();
    expect(m.resumeLimits).toEqual({ limitPages: 40, limitUris: 0, limitBytes: 0, limitTimeS: 0 });
    m.resumeLimits!.limitPages = 0;
    m.resumeLimits!.limitTimeS = 600;
    expect(await m.confirmResume()).toBe(true);
    expect(calls.find((c) => c.name === 'crawl.resume')!.payload).toEqual({ id: 'a', settings: { limitPages: 0, limitTimeS: 600 } });
    expect(m.resumeLimits).toBeNull();
    expect(m.settings!.limitPages).toBe(0);
  });

  it('resumes with an exclusion typed in the Resume dialog: added first, then resumed', async () => {
    const { api, calls } = fakeApi({
      'crawl.snapshot': () => snapshot({ state: 'paused' }),
      'library.open': () => ({ settings: { limitPages: 0, limitUris: 0, limitBytes: 0, limitTimeS: 0, exclude: [] } }) as never,
      'crawl.logTail': () => ({ lines: [], next: null, fileBytes: 0, scannedBytes: 0 }),
      'crawl.addExclude': ({ id, pattern }) => (pattern === '(' ? Promise.reject(Object.assign(new Error('not a valid regular expression'), { code: 'SCOPE_BAD_REGEX' })) : { id, pattern, running: true, added: true, dropped: 4, samples: [], appliedAt: 0 }),
      'crawl.resume': ({ id }) => ({ id }),
    });
    const m = new MonitorState(api);
    await m.attach('a');
    m.openResume();
    m.resumeExclude = '(';
    expect(await m.confirmResume()).toBe(false);
    expect(m.error).toMatch(/not a valid regular expression/);
    expect(calls.some((c) => c.name === 'crawl.resume')).toBe(false);
    m.resumeExclude = ' /ads/ ';
    expect(await m.confirmResume()).toBe(true);
    const names = calls.map((c) => c.name).filter((n) => n === 'crawl.addExclude' || n === 'crawl.resume');
    expect(names.slice(-2)).toEqual(['crawl.addExclude', 'crawl.resume']);
    expect(calls.filter((c) => c.name === 'crawl.addExclude').at(-1)!.payload).toEqual({ id: 'a', pattern: '/ads/' });
    expect(m.lastExclude).toMatchObject({ dropped: 4 });
    expect(m.settings!.exclude).toEqual(['/ads/']);
    expect(m.resumeLimits).toBeNull();
  });
});
