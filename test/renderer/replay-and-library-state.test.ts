// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { ReplayState } from '../../renderer/src/lib/replay-state.svelte.ts';
import { LibraryState } from '../../renderer/src/lib/library-state.svelte.ts';
import { AppState, shortcutAction } from '../../renderer/src/lib/app-state.svelte.ts';
import type { LibraryEntry, ReplayInfo } from '../../core/api/app-types.ts';
import { fakeApi, tick } from './fake-api.ts';

const info = (url: string): ReplayInfo => ({
  kind: 'archived', url, status: 200, statusText: 'OK', mime: 'text/html', headers: [], bodyBytes: 1,
  capture: { id: 1, url, ts: '20240101000000', type: 'response', fuzzy: null }, location: null,
});

describe('ReplayState', () => {
  it('keeps back and forward across opens and clicks inside the page', async () => {
    const { api } = fakeApi({
      'replay.open': ({ url }) => ({ mode: 'frame', frameSrc: url, info: info(url) }),
      'replay.close': () => null,
      'records.timeline': ({ url }) => [{ id: 1, ts: '20240101000000', url, type: 'response', status: 200, mime: 'text/html', payloadDigest: null, length: 1 }],
    });
    const r = new ReplayState(api);
    await r.show('a', 'http://x/1');
    expect(r.canBack).toBe(false);
    await r.show('a', 'http://x/2');
    r.onNavigated({ archiveId: 'a', url: 'http://x/3', info: info('http://x/3') });
    expect(r.url).toBe('http://x/3');
    expect(r.back.map((s) => s.url)).toEqual(['http://x/1', 'http://x/2']);
    await r.goBack();
    expect(r.url).toBe('http://x/2');
    expect(r.canForward).toBe(true);
    await r.goForward();
    expect(r.url).toBe('http://x/3');
    expect(r.timeline).toHaveLength(1);
    await r.close();
    expect(r.open).toBe(false);
  });
});

describe('LibraryState', () => {
  const entry = (id: string): LibraryEntry => ({
    id, name: id, kind: 'crawl', state: 'finished', finishReason: null, running: false, sizeBytes: 10, createdAt: 1, modifiedAt: 1,
    records: 1, warcFiles: 1, seeds: [], downloaded: 1,
  });

  it('deletes only after confirmation, with the token it was given', async () => {
    let entries = [entry('a'), entry('b')];
    const { api, calls } = fakeApi({
      'library.list': () => entries,
      'library.prepareDelete': ({ id }) => ({ id, name: id, sizeBytes: 10, warcFiles: 1, token: 'tok-' + id, expiresAt: Date.now() + 1000 }),
      'library.delete': ({ id, token }) => {
        if (token !== 'tok-' + id) throw Object.assign(new Error('bad token'), { code: 'DELETE_NOT_CONFIRMED' });
        entries = entries.filter((e) => e.id !== id);
        return { id };
      },
    });
    const lib = new LibraryState(api);
    await lib.refresh();
    expect(lib.totalBytes).toBe(20);
    await lib.askDelete('a');
    expect(lib.pendingDelete?.name).toBe('a');
    lib.cancelDelete();
    expect(calls.some((c) => c.name === 'library.delete')).toBe(false);
    await lib.askDelete('a');
    expect(await lib.confirmDelete()).toBe(true);
    expect(calls.find((c) => c.name === 'library.delete')!.payload).toEqual({ id: 'a', token: 'tok-a' });
    expect(lib.entries.map((e) => e.id)).toEqual(['b']);
  });

  it('an import cancelled says so, and the listings after it (its own, library.changed) leave the message', async () => {
    let finish: (() => void) | null = null;
    const { api } = fakeApi({
      'library.list': () => [],
      'library.import': () =>
        new Promise((_, reject) => {
          finish = () => reject(Object.assign(new Error('import cancelled'), { code: 'CANCELLED' }));
        }),
      'library.cancelImport': () => {
        finish!();
        return null;
      },
    });
    const lib = new LibraryState(api);
    const imported = lib.importPaths(['/tmp/x.warc']);
    await tick();
    lib.onProgress({ id: 'x', progress: { file: '/tmp/x.warc', bytes: 1, total: 10, records: 0 } });
    await lib.cancelImport();
    expect(await imported).toBeNull();
    expect(lib.error).toContain('Import cancelled');
    await lib.refresh();
    expect(lib.error).toContain('Import cancelled');
    expect(lib.importing).toBe(false);
  });

  it('a listing that fails shows why, and the next one that works clears it', async () => {
    let fail = true;
    const { api } = fakeApi({
      'library.list': () => {
        if (fail) throw Object.assign(new Error('library folder unreadable'), { code: 'IO' });
        return [];
      },
    });
    const lib = new LibraryState(api);
    await lib.refresh();
    expect(lib.error).toContain('unreadable');
    fail = false;
    await lib.refresh();
    expect(lib.error).toBeNull();
  });
});

describe('AppState', () => {
  it('maps shortcuts to menu actions and screens', () => {
    const { api } = fakeApi({});
    const app = new AppState(api);
    const key = (k: string, extra = {}) => ({ key: k, ctrlKey: true, metaKey: false, shiftKey: false, altKey: false, ...extra });
    expect(shortcutAction(key('3'))).toBe('go-monitor');
    expect(shortcutAction(key('f'))).toBe('find');
    expect(shortcutAction(key('S', { shiftKey: true }))).toBe('stop');
    expect(shortcutAction({ ...key('3'), ctrlKey: false })).toBeNull();
    expect(app.handleMenu('find')).toBe(true);
    expect(app.screen).toBe('browser');
    expect(app.findRequest).toBe(1);
    expect(app.handleMenu('pause-resume')).toBe(false);
  });
});
