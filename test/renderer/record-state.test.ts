/** The Record screen's state over a fake API: what it sends for each choice, and what it shows as progress arrives. */
import { describe, expect, it } from 'vitest';
import { NEW_ARCHIVE, RecordState } from '../../renderer/src/lib/record-state.svelte.ts';
import { shortcutAction } from '../../renderer/src/lib/app-state.svelte.ts';
import type { RecordStatus } from '../../core/api/app-types.ts';
import { fakeApi } from './fake-api.ts';

const status = (over: Partial<RecordStatus> = {}): RecordStatus => ({
  archiveId: 'Rec', state: 'recording', startedAt: 1, warcFile: null, exchanges: 0, records: 0, bytes: 0, pages: [], message: null, ...over,
});

describe('RecordState', () => {
  it('starts into a new archive or an existing one, navigates while recording, stops', async () => {
    const f = fakeApi({
      'record.status': () => null,
      'record.start': (p) => status({ archiveId: p.archiveId ?? p.newArchiveName! }),
      'record.navigate': () => null,
      'record.stop': () => status({ state: 'stopped', archiveId: 'Rec' }),
    });
    const rec = new RecordState(f.api);
    await rec.refresh();
    expect(rec.recording).toBe(false);
    expect(rec.canStart).toBe(false);
    rec.url = 'https://example.org/';
    expect(rec.canStart).toBe(false); // a new archive needs a name
    rec.newName = ' Rec ';
    expect(rec.canStart).toBe(true);
    expect(await rec.start()).toBe('Rec');
    expect(f.calls.at(-1)).toEqual({ name: 'record.start', payload: { newArchiveName: 'Rec', url: 'https://example.org/' } });
    expect(rec.recording).toBe(true);
    expect(rec.canStart).toBe(false);

    rec.url = 'https://example.org/about';
    await rec.go();
    expect(f.calls.at(-1)).toEqual({ name: 'record.navigate', payload: { url: 'https://example.org/about' } });

    // App.svelte hands every record.progress event to onProgress.
    rec.onProgress(status({ pages: [{ url: 'https://example.org/', title: 'Home', ts: '20260101000000', status: 200 }] }));
    expect(rec.status?.pages.map((p) => p.title)).toEqual(['Home']);
    // The address follows the window (a link clicked there)…
    const page = (url: string) => ({ url, title: null, ts: '20260101000001', status: 200 });
    rec.onProgress(status({ pages: [page('https://example.org/'), page('https://example.org/about')] }));
    expect(rec.url).toBe('https://example.org/about');
    rec.onProgress(status({ pages: [page('https://example.org/'), page('https://example.org/about'), page('https://example.org/news')] }));
    expect(rec.url).toBe('https://example.org/news');
    // …but not over an address the archivist is typing.
    rec.url = 'https://example.org/con';
    rec.onProgress(status({ pages: [page('https://example.org/'), page('https://example.org/x')] }));
    expect(rec.url).toBe('https://example.org/con');

    await rec.stop();
    expect(rec.recording).toBe(false);

    rec.target = 'Old archive';
    rec.url = 'example.org';
    await rec.start();
    expect(f.calls.at(-1)).toEqual({ name: 'record.start', payload: { archiveId: 'Old archive', url: 'example.org' } });
    expect(NEW_ARCHIVE).toBe('');
  });

  it('shows the core’s refusal', async () => {
    const f = fakeApi({ 'record.start': () => Promise.reject(Object.assign(new Error('only http and https pages can be recorded, not file:'), { code: 'RECORD_BAD_URL' })) });
    const rec = new RecordState(f.api);
    rec.newName = 'x';
    rec.url = 'file:///etc/passwd';
    expect(await rec.start()).toBeNull();
    expect(rec.error).toMatch(/only http and https/);
    expect(rec.recording).toBe(false);
  });

  it('Ctrl+5 opens the Record screen', () => {
    expect(shortcutAction({ key: '5', ctrlKey: true, metaKey: false, shiftKey: false, altKey: false })).toBe('go-record');
  });
});
