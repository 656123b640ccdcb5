// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest';
import { LIVE_REFRESH_MS, PAGE_SIZE, RecordsState, snippetParts, toRecordFilter, emptyFilter } from '../../renderer/src/lib/records-state.svelte.ts';
import { fakeApi, millionRows, MILLION, row } from './fake-api.ts';

describe('RecordsState', () => {
  it('pages through a million records by keyset cursor, loading only what is asked for', async () => {
    const { api, calls } = fakeApi({ 'records.query': millionRows() });
    const s = new RecordsState(api);
    await s.open('big');
    expect(s.count).toBe(PAGE_SIZE);
    expect(s.total).toBe(MILLION);
    expect(s.rowAt(0)!.id).toBe(1);
    expect(s.rowAt(PAGE_SIZE - 1)!.id).toBe(PAGE_SIZE);
    expect(s.rowAt(PAGE_SIZE)).toBeUndefined();

    s.ensureLoaded(10); // near the top: nothing to fetch
    expect(calls.filter((c) => c.name === 'records.query')).toHaveLength(1);
    s.ensureLoaded(PAGE_SIZE - 20);
    await s.loadMore(); // joins / follows the fetch just started
    expect(s.count).toBe(2 * PAGE_SIZE);
    const second = calls.filter((c) => c.name === 'records.query')[1]!.payload as { after: number };
    expect(second.after).toBe(PAGE_SIZE);
    expect(s.rowAt(PAGE_SIZE)!.id).toBe(PAGE_SIZE + 1);
  });

  it('grows while the crawl shown writes: new rows appended at most once a second, other crawls ignored', async () => {
    vi.useFakeTimers();
    try {
      let n = 3;
      const { api, calls } = fakeApi({ 'records.query': (p) => millionRows(n)(p) });
      const s = new RecordsState(api);
      await s.open('live');
      expect([s.count, s.total, s.done]).toEqual([3, 3, true]);
      n = 7;
      const before = calls.length;
      s.onCrawlSnapshot('other-crawl');
      s.onCrawlSnapshot('live');
      s.onCrawlSnapshot('live'); // within the same second: one refresh
      await vi.advanceTimersByTimeAsync(LIVE_REFRESH_MS - 1);
      expect(calls.length).toBe(before);
      await vi.advanceTimersByTimeAsync(1);
      await vi.waitFor(() => expect(s.count).toBe(7));
      expect(s.rowAt(6)!.id).toBe(7);
      expect(s.total).toBe(7);
      const queries = calls.slice(before).map((c) => c.payload as { after?: number; limit: number });
      expect(queries[0]).toMatchObject({ after: 3 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('drops a page that arrives after the filter changed', async () => {
    let release: (() => void) | null = null;
    const { api } = fakeApi({
      'records.query': async (p) => {
        if ((p.filter.type ?? [])[0] === 'response') await new Promise<void>((r) => (release = r));
        return millionRows(10)(p);
      },
    });
    const s = new RecordsState(api);
    s.archiveId = 'a';
    s.filter.type = 'response';
    const slow = s.reload();
    s.filter.type = '';
    await new Promise((r) => setTimeout(r, 0));
    const fast = s.reload();
    await fast;
    expect(s.count).toBe(10);
    release!();
    await slow;
    expect(s.count).toBe(10);
  });

  it('moves the selection with the keyboard and loads the detail', async () => {
    const { api } = fakeApi({ 'records.query': millionRows(3), 'records.detail': ({ id }) => ({ row: row(id), warcHeaders: [], httpHeaders: [], httpStatusLine: null, bodyPreview: { kind: 'text', text: `body ${id}`, bytes: 6, truncated: false }, siblings: [] }) });
    const s = new RecordsState(api);
    await s.open('a');
    expect(await s.move(1)).toBe(0);
    expect(s.detail?.row.id).toBe(1);
    expect(await s.move(10)).toBe(2);
    expect(s.detail?.bodyPreview.text).toBe('body 3');
  });

  it('turns the filter form into a RecordFilter', () => {
    expect(toRecordFilter(emptyFilter())).toEqual({});
    expect(
      toRecordFilter({ type: 'response', url: 'http://a.org/x*', host: ' a.org ', mime: 'image/', status: '200, 301-302 4xx', from: '2024-03-05', to: '2024-03-06' }),
    ).toMatchObject({ type: ['response'], urlPrefix: 'http://a.org/x', host: 'a.org', mime: 'image/', from: '20240305', to: '20240306235959' });
    expect(toRecordFilter({ ...emptyFilter(), status: '200, 301-302' }).status).toEqual([200, 301, 302]);
  });

  it('renders search snippets without HTML injection', () => {
    expect(snippetParts('a &#60;b&#62; <mark>zebra</mark> c')).toEqual([
      { text: 'a <b> ', mark: false },
      { text: 'zebra', mark: true },
      { text: ' c', mark: false },
    ]);
  });
});

describe('RecordsState filters', () => {
  it('do not carry over to the next archive opened', async () => {
    const { api, calls } = fakeApi({ 'records.query': () => ({ rows: [], next: null, total: 0 }) });
    const s = new RecordsState(api);
    await s.open('a');
    s.filter.mime = 'image/';
    s.filter.status = '404';
    await s.reload();
    expect(calls.at(-1)!.payload).toMatchObject({ archiveId: 'a', filter: { mime: 'image/', status: [404] } });
    await s.open('b');
    expect(s.filter).toEqual(emptyFilter());
    expect(calls.at(-1)!.payload).toMatchObject({ archiveId: 'b', filter: {} });
    expect((calls.at(-1)!.payload as { filter: object }).filter).toEqual({});
  });
});
