// @vitest-environment happy-dom
// The Pages view's state (sort, search, live refresh of a running crawl) and the export dialog's
// "earlier exports" (never the file just saved), over the real TroveApi with faked handlers.
import { describe, expect, it, vi } from 'vitest';
import { PAGES_LIVE_MS, PagesState } from '../../renderer/src/lib/pages-state.svelte.ts';
import { ExportState } from '../../renderer/src/lib/export-state.svelte.ts';
import type { SortedPagesRequest } from '../../core/api/app-types.ts';
import { fakeApi } from './fake-api.ts';

const page = (id: number, title: string) => ({ id, url: `http://x/${id}`, ts: '20240101000000', title, mime: 'text/html' });

describe('PagesState', () => {
  it('sorts by a column (again flips the direction), searches, and follows the crawl shown', async () => {
    vi.useFakeTimers();
    try {
      let rows = [page(1, 'b'), page(2, 'a')];
      const { api, calls } = fakeApi({ 'records.sortedPages': (p) => ({ rows, next: null, total: rows.length, offset: p.offset ?? 0 }) });
      const s = new PagesState(api);
      await s.open('c');
      const last = () => calls.filter((c) => c.name === 'records.sortedPages').at(-1)!.payload as SortedPagesRequest;
      expect(last()).toMatchObject({ archiveId: 'c', sort: 'title', desc: false, q: '' });
      await s.sortBy('title');
      expect(last()).toMatchObject({ sort: 'title', desc: true });
      await s.sortBy('ts');
      expect(last()).toMatchObject({ sort: 'ts', desc: true });
      s.q = 'abc';
      await s.load();
      expect(last()).toMatchObject({ q: 'abc' });

      rows = [...rows, page(3, 'c')];
      // Each load also asks for the pages' QA reviews: count the page list's calls.
      const listCalls = () => calls.filter((c) => c.name === 'records.sortedPages').length;
      const n = listCalls();
      s.onCrawlSnapshot('other');
      s.onCrawlSnapshot('c');
      s.onCrawlSnapshot('c');
      await vi.advanceTimersByTimeAsync(PAGES_LIVE_MS);
      await vi.waitFor(() => expect(s.total).toBe(3));
      expect(listCalls()).toBe(n + 1);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('ExportState', () => {
  it('the file just saved is the result, not one of the earlier exports', async () => {
    const files = [{ name: 'old.wacz', kind: 'file' as const, bytes: 1, modifiedAt: 1 }];
    const { api } = fakeApi({
      'export.list': () => files,
      'export.run': () => {
        files.push({ name: 'new.wacz', kind: 'file', bytes: 2, modifiedAt: 2 });
        return { exportId: 'e', format: 'wacz', path: '/x/exports/new.wacz', name: 'new.wacz', bytes: 2, summary: {} };
      },
    });
    const ex = new ExportState(api);
    await ex.show('a', {}, 'A');
    expect(ex.earlier.map((f) => f.name)).toEqual(['old.wacz']);
    await ex.run();
    expect(ex.files).toHaveLength(2);
    expect(ex.earlier.map((f) => f.name)).toEqual(['old.wacz']);
  });
});

describe('ExportState title', () => {
  it('a second archive exports under its own title, not the previous archive\'s', async () => {
    const { api, calls } = fakeApi({
      'export.list': () => [],
      'export.run': () => ({ exportId: 'e', format: 'wacz', path: '/x/exports/a.wacz', name: 'a.wacz', bytes: 1, summary: {} }),
    });
    const ex = new ExportState(api);
    await ex.show('docs', {}, 'Python 3.11 docs');
    await ex.run();
    ex.close();
    await ex.show('traps', {}, 'Synthetic site (traps)');
    expect(ex.title).toBe('Synthetic site (traps)');
    await ex.run();
    expect(calls.filter((c) => c.name === 'export.run').map((c) => (c.payload as { title?: string }).title)).toEqual(['Python 3.11 docs', 'Synthetic site (traps)']);
    // A title typed for an archive stays while its dialog is reopened.
    ex.title = 'My traps';
    ex.close();
    await ex.show('traps', {}, 'Synthetic site (traps)');
    expect(ex.title).toBe('My traps');
  });
});
