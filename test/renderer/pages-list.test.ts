// @vitest-environment happy-dom
// The WARC browser's Pages view: an archive with no HTML page says what it holds instead ("No HTML
// pages yet." for an archive of images), and a page without a screenshot shows its host in the
// thumbnail box rather than an empty grey box.
import { describe, expect, it } from 'vitest';
import { render } from '@testing-library/svelte';
import { flushSync } from 'svelte';
import PagesList from '../../renderer/src/screens/browser/PagesList.svelte';
import { PagesState } from '../../renderer/src/lib/pages-state.svelte.ts';
import { fakeApi, row } from './fake-api.ts';

describe('PagesList', () => {
  it('an archive of images says it has no pages and what it holds', async () => {
    const images = [1, 4, 7].map((id) => ({ ...row(id), type: 'response', mime: id === 7 ? 'image/gif' : 'image/png' }));
    const { api } = fakeApi({
      'records.sortedPages': (p) => ({ rows: [], next: null, total: 0, offset: p.offset ?? 0 }),
      'records.query': () => ({ rows: images, next: null, total: images.length }),
    });
    const pages = new PagesState(api);
    await pages.open('imgs');
    const { getByTestId } = render(PagesList, { pages, onreplay: () => {} });
    flushSync();
    const text = getByTestId('pages-empty').textContent!;
    expect(text).not.toContain('No HTML pages yet');
    expect(text).toBe('No pages: this archive holds no HTML page. It holds 3 captures (2 image/png, 1 image/gif); see them under Records.');
  });

  it('a page without a screenshot shows its host in the thumbnail box', async () => {
    const { api } = fakeApi({
      'records.sortedPages': (p) => ({ rows: [{ id: 1, url: 'http://127.0.0.1:8080/a.html', ts: '20240101000000', title: 'A', mime: 'text/html' }], next: null, total: 1, offset: p.offset ?? 0 }),
      'records.screenshot': () => null,
    });
    const pages = new PagesState(api);
    await pages.open('c');
    const { getAllByTestId } = render(PagesList, { pages, onreplay: () => {} });
    flushSync();
    expect(getAllByTestId('page-thumb-label').map((e) => e.textContent)).toEqual(['127.0.0.1:8080']);
  });
});
