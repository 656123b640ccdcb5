/**
 * An HTTP-only crawl of the media site (issue 37): the media files a page names in <video>,
 * <audio> and <source> are fetched whole, and each HLS or DASH manifest fetched has every child
 * playlist, init segment, segment and subtitle file of every rendition queued as an E hop and
 * archived (with no player, `--media-renditions` has nothing to go by: all). Read back with warcio.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasFfmpeg } from '../helpers/media-fixtures.ts';
import { startMediaSite, MEDIA_PAGES, type MediaSiteServer } from '../helpers/media-site-server.ts';
import { expectWholeFile, renditionsArchived, wholeRecord } from '../helpers/media-records.ts';
import { runCrawl, type CrawlRun } from '../helpers/run-crawl.ts';
import type { ReadRecord } from '../helpers/read-warcs.ts';

describe.skipIf(!hasFfmpeg())('HTTP-only crawl of media pages', () => {
  let site: MediaSiteServer;
  let run: CrawlRun;
  let records: ReadRecord[];
  beforeAll(async () => {
    site = await startMediaSite();
    run = await runCrawl({ seeds: Object.keys(MEDIA_PAGES).map((p) => site.origin + p), scope: 'host' });
    records = await run.records();
  }, 120_000);
  afterAll(async () => {
    await site?.close();
    run?.cleanup();
  });

  it('finishes, with every media file archived whole', () => {
    expect(run.final.finishReason).toBe('frontier-empty');
    for (const rel of ['clip.mp4', 'clip-nofaststart.mp4', 'clip.webm', 'tone.m4a']) expectWholeFile(records, site.origin, site.fixtures, rel);
  });

  it('HLS: the master, both renditions, every segment, the subtitle playlist and its WebVTT', () => {
    for (const rel of ['hls/master.m3u8', 'hls/low/index.m3u8', 'hls/subs/en.m3u8', 'hls/subs/en.vtt']) expectWholeFile(records, site.origin, site.fixtures, rel);
    // high/index.m3u8 has the same bytes as low's: a revisit (its segments are queued all the same).
    expect(records.some((r) => r.targetUri === `${site.origin}/media/hls/high/index.m3u8` && r.status === 200)).toBe(true);
    for (const r of ['low', 'high']) {
      expect(renditionsArchived(records, site.origin, site.fixtures, 'hls', `hls/${r}/index.m3u8`)).toEqual([{ id: `${site.origin}/media/hls/${r}/index.m3u8`, urls: 5, archived: 5 }]);
      for (const f of site.fixtures.files.filter((f) => f.startsWith(`hls/${r}/seg_`))) expectWholeFile(records, site.origin, site.fixtures, f);
    }
    expect(run.line(`${site.origin}/media/hls/low/seg_000.ts`)?.hopsPath).toBe('EEE');
  });

  it('DASH: every segment of every representation the manifest lists', () => {
    expectWholeFile(records, site.origin, site.fixtures, 'dash/manifest.mpd');
    const got = renditionsArchived(records, site.origin, site.fixtures, 'dash', 'dash/manifest.mpd');
    expect(got).toEqual([
      { id: 'video:0', urls: 6, archived: 6 },
      { id: 'video:1', urls: 6, archived: 6 },
      { id: 'audio:2', urls: 6, archived: 6 },
    ]);
    expect(wholeRecord(records, `${site.origin}/media/dash/init-2.m4s`)).toBeDefined();
  });
});
