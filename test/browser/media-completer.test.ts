/**
 * The whole-media fetcher of a browser page (core/browser/media-completer.ts) against the ffmpeg
 * media site, given the exchanges a page's recorder would hand it (what Chromium's player asked
 * for by Range, the playlists hls.js read) and the real HTTP fetcher: which URLs it fetches, with
 * which headers, and how the per-file and per-page limits cut and skip. The browser side is
 * tested end to end in test/e2e/media-capture.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MediaCompleter, type MediaCaptureOptions } from '../../core/browser/media-completer.ts';
import type { RecordedExchange } from '../../core/browser/recorded-exchange.ts';
import { createFetcher } from '../../core/fetch/fetcher.ts';
import type { Fetcher } from '../../core/fetch/fetch-types.ts';
import { Outcome } from '../../core/api/outcome-codes.ts';
import { hasFfmpeg } from '../helpers/media-fixtures.ts';
import { startMediaSite, type MediaSiteServer } from '../helpers/media-site-server.ts';

function seen(url: string, status: number, type: string, body: Buffer = Buffer.alloc(0), resourceType = 'Media'): RecordedExchange {
  return {
    url,
    method: 'GET',
    requestHeaders: [['Host', 'x'], ['Range', 'bytes=0-'], ['Cookie', 'session=abc'], ['User-Agent', 'TestAgent/1'], ['Accept-Encoding', 'gzip']],
    status,
    statusText: '',
    httpVersion: 'HTTP/1.1',
    responseHeaders: [['Content-Type', type]],
    body,
    date: new Date(),
    resourceType,
    isPageDocument: false,
  };
}

describe.skipIf(!hasFfmpeg())('media completer', () => {
  let site: MediaSiteServer;
  let fetcher: Fetcher;
  let spoolDir: string;
  beforeAll(async () => {
    site = await startMediaSite();
    spoolDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-media-spool-'));
    fetcher = createFetcher({ connectTimeoutMs: 5000, headersTimeoutMs: 5000, idleTimeoutMs: 5000, fetchTimeoutMs: 30_000, maxBodyBytes: 1 << 30, maxHeaderBytes: 65536, spoolDir });
  });
  afterAll(async () => {
    await fetcher?.close();
    await site?.close();
    fs.rmSync(spoolDir, { recursive: true, force: true });
  });

  async function complete(exchanges: RecordedExchange[], o: Partial<MediaCaptureOptions> = {}) {
    const written: RecordedExchange[] = [];
    const c = new MediaCompleter({ exchange: async (x) => void written.push(x) }, { fetcher, renditions: 'used', maxResourceBytes: 1 << 30, maxPageBytes: 1 << 30, ...o });
    for (const x of exchanges) c.observe(x);
    const before = site.hits.length;
    const report = await c.finish();
    const sizes = written.map((x) => [x.url.replace(site.origin, ''), x.status, x.fetched?.entity?.size ?? -1, x.fetched?.truncated ?? null] as const);
    for (const x of written) await Promise.all([x.fetched?.body?.dispose(), x.fetched?.entity?.dispose()]);
    return { report, sizes, hits: site.hits.slice(before) };
  }

  it('a 206 of a video: one GET of the whole file, with the page\'s cookie and agent, no Range, identity coding', async () => {
    const clip = fs.statSync(path.join(site.fixtures.dir, 'clip.mp4')).size;
    const { sizes, hits, report } = await complete([seen(`${site.origin}/media/clip.mp4`, 206, 'video/mp4'), seen(`${site.origin}/media/clip.mp4`, 206, 'video/mp4')]);
    expect(sizes).toEqual([['/media/clip.mp4', 200, clip, null]]);
    expect(hits).toEqual([{ method: 'GET', url: '/media/clip.mp4', range: null, cookie: 'session=abc', userAgent: 'TestAgent/1', acceptEncoding: 'identity' }]);
    expect(report.fetched).toEqual([`${site.origin}/media/clip.mp4`]);
    // A file the page already got whole is not fetched again.
    const again = await complete([seen(`${site.origin}/media/tone.m4a`, 206, 'audio/mp4'), seen(`${site.origin}/media/tone.m4a`, 200, 'audio/mp4')]);
    expect(again.hits).toEqual([]);
  });

  it('HLS: the media playlist the player read gives all its segments; the rendition the replay tools keep too; subtitles always', async () => {
    const read = (rel: string) => fs.readFileSync(path.join(site.fixtures.dir, rel));
    const { sizes } = await complete([
      seen(`${site.origin}/media/hls/master.m3u8`, 200, 'application/vnd.apple.mpegurl', read('hls/master.m3u8'), 'XHR'),
      seen(`${site.origin}/media/hls/low/index.m3u8`, 200, 'application/vnd.apple.mpegurl', read('hls/low/index.m3u8'), 'XHR'),
      seen(`${site.origin}/media/hls/low/seg_000.ts`, 200, 'video/mp2t', read('hls/low/seg_000.ts'), 'XHR'),
    ]);
    // high (320×180) is what ReplayWeb.page keeps of the master: the largest not above 1280×720.
    expect(sizes.map((s) => s[0])).toEqual([
      '/media/hls/subs/en.m3u8',
      '/media/hls/high/index.m3u8',
      '/media/hls/low/seg_001.ts',
      '/media/hls/low/seg_002.ts',
      '/media/hls/low/seg_003.ts',
      '/media/hls/low/seg_004.ts',
      '/media/hls/subs/en.vtt',
      '/media/hls/high/seg_000.ts',
      '/media/hls/high/seg_001.ts',
      '/media/hls/high/seg_002.ts',
      '/media/hls/high/seg_003.ts',
      '/media/hls/high/seg_004.ts',
    ]);
  });

  it('per-file limit: cut and reported −51; per-page limit: the file that crosses it cut, the rest not fetched', async () => {
    const urls = ['clip.mp4', 'clip.webm', 'tone.m4a'].map((f) => `${site.origin}/media/${f}`);
    const one = await complete([seen(urls[0]!, 206, 'video/mp4'), seen(urls[2]!, 206, 'audio/mp4')], { maxResourceBytes: 50_000 });
    expect(one.sizes).toEqual([['/media/clip.mp4', 200, 50_000, 'length'], ['/media/tone.m4a', 200, fs.statSync(path.join(site.fixtures.dir, 'tone.m4a')).size, null]]);
    expect(one.report.limited).toEqual([{ url: urls[0], limit: 'resource', code: Outcome.OVER_SIZE_LIMIT, stored: 50_000 }]);

    const page = await complete(urls.map((u) => seen(u, 206, 'video/mp4')), { maxPageBytes: 150_000 });
    const clip = fs.statSync(path.join(site.fixtures.dir, 'clip.mp4')).size;
    expect(page.sizes).toEqual([['/media/clip.mp4', 200, clip, null], ['/media/clip.webm', 200, 150_000 - clip, 'length']]);
    expect(page.report.limited).toEqual([
      { url: urls[1], limit: 'page', code: Outcome.OVER_SIZE_LIMIT, stored: 150_000 - clip },
      { url: urls[2], limit: 'page', code: Outcome.OVER_SIZE_LIMIT, stored: 0 },
    ]);
    expect(page.hits.map((h) => h.url)).toEqual(['/media/clip.mp4', '/media/clip.webm']);
  });
});
