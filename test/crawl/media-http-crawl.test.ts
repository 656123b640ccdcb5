/**
 * An HTTP-only crawl of the media site (issue 37): the media files a page names in <video>,
 * <audio> and <source> are fetched whole, and each HLS or DASH manifest fetched has every child
 * playlist, init segment, segment and subtitle file of every rendition queued as an E hop and
 * archived (with no player, `--media-renditions` has nothing to go by: all). Read back with warcio.
 * With a small `--max-media-bytes`, a media file over it (named by <video src>, or a seed whose
 * head says video/*) is cut at the limit, marked `WARC-Truncated: length`, its crawl.log line
 * annotated, and the crawl goes on.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha1OfParts } from '../../core/formats/digest.ts';
import { hasFfmpeg } from '../helpers/media-fixtures.ts';
import { startMediaSite, MEDIA_PAGES, type MediaSiteServer } from '../helpers/media-site-server.ts';
import { expectWholeFile, renditionsArchived, wholeRecord } from '../helpers/media-records.ts';
import { runCrawl, type CrawlRun } from '../helpers/run-crawl.ts';
import type { ReadRecord } from '../helpers/read-warcs.ts';

/** Between the audio file (~42 kB) and the video files (~110 kB). */
const SMALL_LIMIT = 60_000;

describe.skipIf(!hasFfmpeg())('HTTP-only crawl of media pages', () => {
  let site: MediaSiteServer;
  let run: CrawlRun;
  let records: ReadRecord[];
  let limited: CrawlRun;
  let limitedRecords: ReadRecord[];
  beforeAll(async () => {
    site = await startMediaSite();
    [run, limited] = await Promise.all([
      runCrawl({ seeds: Object.keys(MEDIA_PAGES).map((p) => site.origin + p), scope: 'host' }),
      // The clip is ~110 kB, the audio file ~42 kB; the WebM is a seed (no page names it).
      runCrawl({ seeds: [`${site.origin}/click.html`, `${site.origin}/audio.html`, `${site.origin}/media/clip.webm`], scope: 'page', maxMediaBytes: SMALL_LIMIT }),
    ]);
    [records, limitedRecords] = await Promise.all([run.records(), limited.records()]);
  }, 120_000);
  afterAll(async () => {
    await site?.close();
    run?.cleanup();
    limited?.cleanup();
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

  it('--max-media-bytes: a larger media file is cut at the limit and marked, by its <video src> or by its type; the crawl goes on', () => {
    expect(limited.final.finishReason).toBe('frontier-empty');
    for (const rel of ['clip.mp4', 'clip.webm']) {
      const url = `${site.origin}/media/${rel}`;
      const file = fs.readFileSync(path.join(site.fixtures.dir, rel));
      expect(file.length, rel).toBeGreaterThan(SMALL_LIMIT);
      const cut = limitedRecords.filter((r) => r.targetUri === url && r.type === 'response');
      expect(cut, rel).toHaveLength(1);
      expect(cut[0]!.status, rel).toBe(200);
      expect(cut[0]!.warcHeaders['WARC-Truncated'], rel).toBe('length');
      expect(cut[0]!.payload.length, rel).toBe(SMALL_LIMIT);
      expect(cut[0]!.payload.equals(file.subarray(0, SMALL_LIMIT)), rel).toBe(true);
      // The digest is of what is stored, not of the file.
      expect(cut[0]!.warcHeaders['WARC-Payload-Digest'], rel).toBe(sha1OfParts([file.subarray(0, SMALL_LIMIT)]));
      const line = limited.line(url);
      expect(line?.status, rel).toBe(200);
      expect(line?.annotations, rel).toEqual(expect.arrayContaining(['truncated:length', 'media-limit:resource']));
    }
    expect(limited.line(`${site.origin}/media/clip.mp4`)?.hopsPath).toBe('E');
    // The smaller file and the pages are whole, their lines not annotated.
    expectWholeFile(limitedRecords, site.origin, site.fixtures, 'tone.m4a');
    expect(limited.line(`${site.origin}/media/tone.m4a`)?.annotations).not.toContain('media-limit:resource');
    for (const p of ['/click.html', '/audio.html']) expect(wholeRecord(limitedRecords, site.origin + p), p).toBeDefined();
  });
});
