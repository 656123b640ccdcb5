// @vitest-environment happy-dom
// The Export dialog's "done" line: counts whose nouns agree with them ("1 WARC", never "1 warcs …
// 1 WARCs"), as the export worker reports them for a WACZ; and the "Redact credentials" option
// (issue 36) goes into the request for a WACZ or a WARC.
import { describe, expect, it } from 'vitest';
import { render } from '@testing-library/svelte';
import { flushSync } from 'svelte';
import ExportDialog from '../../renderer/src/screens/browser/ExportDialog.svelte';
import { ExportState } from '../../renderer/src/lib/export-state.svelte.ts';
import { fakeApi } from './fake-api.ts';

describe('ExportDialog done line', () => {
  it('says each count with a noun that agrees with it', async () => {
    const summary = { warcs: 1, captures: 12, pages: 1, index: 'zipnum', 'WARCs with their fixity from capture': 1, 'WARCs hashed now': 0 };
    const { api } = fakeApi({
      'export.list': () => [],
      'export.run': () => ({ exportId: 'e', format: 'wacz', path: '/lib/a/exports/a-20260101000000.wacz', name: 'a-20260101000000.wacz', bytes: 2048, summary }),
    });
    const ex = new ExportState(api);
    await ex.show('a', {}, 'A');
    await ex.run();
    const { getByTestId } = render(ExportDialog, { ex });
    flushSync();
    const text = getByTestId('export-summary').textContent!;
    expect(text).toBe('1 WARC · 12 captures · 1 page · zipnum index · 1 WARC with its fixity from capture · 0 WARCs hashed now');
    expect(text).not.toMatch(/\b1 (warcs|WARCs|pages)\b/);
  });

  it('sends redactCredentials for a WACZ or a WARC when "Redact credentials" is ticked, and offers it for neither a CDXJ nor a mirror', async () => {
    const { api, calls } = fakeApi({
      'export.list': () => [],
      'export.run': () => ({ exportId: 'e', format: 'wacz', path: '/lib/a/exports/a.wacz', name: 'a.wacz', bytes: 1, summary: { 'request records redacted': 3 } }),
    });
    const ex = new ExportState(api);
    await ex.show('a', {}, 'A');
    const { getByTestId, queryByTestId } = render(ExportDialog, { ex });
    flushSync();
    (getByTestId('export-redact') as HTMLInputElement).click();
    flushSync();
    await ex.run();
    expect(calls.find((c) => c.name === 'export.run')!.payload).toMatchObject({ format: 'wacz', redactCredentials: true });
    ex.format = 'cdxj';
    flushSync();
    expect(queryByTestId('export-redact')).toBeNull();
  });
});
