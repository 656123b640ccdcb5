// The thumbnails' cache over the real TroveApi with faked handlers: each page asked of core
// once, at most `size` kept (the least recently used goes), a failure shown as no thumbnail.
import { describe, expect, it } from 'vitest';
import { ScreenshotCache } from '../../renderer/src/lib/screenshot-cache.ts';
import type { PageScreenshot } from '../../core/api/app-types.ts';
import { fakeApi } from './fake-api.ts';

const shot = (pageId: number): PageScreenshot => ({ recordId: pageId + 100, url: `http://x/${pageId}`, ts: '20240101000000', mime: 'image/png', bytes: 1, dataUrl: 'data:image/png;base64,AA==' });

describe('ScreenshotCache', () => {
  it('asks once per page, keeps the most recently used, and answers null when core fails', async () => {
    const { api, calls } = fakeApi({
      'records.screenshot': ({ pageId }) => {
        if (pageId === 9) throw Object.assign(new Error('no such record'), { code: 'QUERY_NO_RECORD' });
        return pageId === 5 ? null : shot(pageId!);
      },
    });
    const cache = new ScreenshotCache(api, 2);
    const asked = () => calls.filter((c) => c.name === 'records.screenshot').map((c) => (c.payload as { pageId: number }).pageId);

    expect((await cache.get('a', 1))?.recordId).toBe(101);
    expect((await cache.get('a', 1))?.recordId).toBe(101);
    expect(await cache.get('a', 5)).toBeNull();
    expect(asked()).toEqual([1, 5]);
    // 1 used again, so 5 is the one dropped when 2 comes in.
    await cache.get('a', 1);
    await cache.get('a', 2);
    await cache.get('a', 1);
    await cache.get('a', 5);
    expect(asked()).toEqual([1, 5, 2, 5]);
    // Another archive's page 1 is another page.
    await cache.get('b', 1);
    expect(asked()).toEqual([1, 5, 2, 5, 1]);
    expect(await cache.get('a', 9)).toBeNull();
  });
});
