// @vitest-environment happy-dom
// What the sidebar and the Monitor say about running crawls: a paused crawl is counted as paused,
// not crawling, and the Monitor, with no crawl in focus, selects the running one (so it never says
// "No crawl selected" while the sidebar counts one).
import { describe, expect, it } from 'vitest';
import type { LibraryEntry } from '../../core/api/app-types.ts';
import { LibraryState } from '../../renderer/src/lib/library-state.svelte.ts';
import { AppState } from '../../renderer/src/lib/app-state.svelte.ts';
import { fakeApi } from './fake-api.ts';

const entry = (id: string, over: Partial<LibraryEntry> = {}): LibraryEntry => ({
  id, name: id, kind: 'crawl', state: 'finished', finishReason: null, running: false, sizeBytes: 10, createdAt: 1, modifiedAt: 1,
  records: 1, warcFiles: 1, seeds: [], downloaded: 1, ...over,
});

describe('running crawls', () => {
  it('a paused crawl is paused, not crawling', async () => {
    const entries = [entry('p', { running: true, state: 'paused' }), entry('f')];
    const lib = new LibraryState(fakeApi({ 'library.list': () => entries }).api);
    await lib.refresh();
    expect(lib.crawling).toBe(0);
    expect(lib.paused).toBe(1);
    entries.push(entry('r', { running: true, state: 'running' }));
    await lib.refresh();
    expect(lib.crawling).toBe(1);
    expect(lib.paused).toBe(1);
  });

  it('the Monitor selects the running crawl when no crawl is in focus, and leaves a chosen one alone', () => {
    const app = new AppState(fakeApi({}).api);
    const entries = [entry('old'), entry('held', { running: true, state: 'paused' }), entry('live', { running: true, state: 'running', name: 'Live one' })];
    app.followRunningCrawl(entries);
    expect(app.focus).toBeNull(); // only on the Monitor
    app.go('monitor');
    app.followRunningCrawl(entries);
    expect(app.focus).toEqual({ id: 'live', name: 'Live one', kind: 'crawl' });
    app.setFocus({ id: 'old', name: 'old', kind: 'crawl' });
    app.followRunningCrawl(entries);
    expect(app.focus?.id).toBe('old');
    app.setFocus({ id: 'arch', name: 'arch', kind: 'archive' });
    app.followRunningCrawl([entries[1]!]);
    expect(app.focus?.id).toBe('held');
  });
});
