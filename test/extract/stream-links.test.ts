/**
 * HTTP-only media (issue 37): <video>, <audio>, <source>, <track> URLs are embeds, and an HLS or
 * DASH manifest (the ffmpeg fixtures, media-fixtures.ts) yields every child playlist, init
 * segment and segment of every rendition as an E hop, read the same way whatever names it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractDocument } from '../../core/extract/extract-document.ts';
import { streamKind } from '../../core/formats/stream-kind.ts';
import { parseStreamManifest } from '../../core/formats/media-manifest.ts';
import { hasFfmpeg, mediaFixtures } from '../helpers/media-fixtures.ts';

const BASE = 'http://127.0.0.1:1/media/';

function extract(url: string, body: Buffer | string, mime: string) {
  return extractDocument({ url, status: 200, headers: [['Content-Type', mime]], body: Buffer.from(body), mime, maxLinks: 100_000 });
}

describe('media elements in HTML', () => {
  it('video, audio, source, track and poster URLs are embeds (E)', () => {
    const html = `<video src="/v.mp4" poster="/p.jpg"><source src="/v.webm" type="video/webm"><track kind="subtitles" src="/subs.vtt"></video>
      <audio src="/a.mp3"><source src="/a.ogg"></audio>`;
    const ex = extract('http://127.0.0.1:1/page.html', html, 'text/html');
    const embeds = ex.outlinks.filter((l) => l.hop === 'E').map((l) => new URL(l.url).pathname);
    expect(embeds.sort()).toEqual(['/a.mp3', '/a.ogg', '/p.jpg', '/subs.vtt', '/v.mp4', '/v.webm']);
  });
});

describe('stream manifests', () => {
  it('is told by type, by extension, or by its first bytes', () => {
    expect(streamKind('http://h/x', 'application/vnd.apple.mpegURL')).toBe('hls');
    expect(streamKind('http://h/x', 'application/dash+xml')).toBe('dash');
    expect(streamKind('http://h/a/index.m3u8', 'text/plain')).toBe('hls');
    expect(streamKind('http://h/a/m.mpd', 'application/octet-stream')).toBe('dash');
    expect(streamKind('http://h/a/m', 'text/plain', Buffer.from('#EXTM3U\n'))).toBe('hls');
    expect(streamKind('http://h/a/m', 'application/xml', Buffer.from('<?xml version="1.0"?>\n<MPD xmlns="urn:mpeg:dash:schema:mpd:2011">'))).toBe('dash');
    expect(streamKind('http://h/a/seg.ts', 'video/mp2t')).toBeNull();
    expect(streamKind('http://h/a/page.m3u8', 'text/html')).toBeNull();
    expect(streamKind('http://h/a/x.txt', 'text/plain', Buffer.from('hello'))).toBeNull();
  });

  it('a manifest that does not parse gives no links and no error', () => {
    const ex = extract(BASE + 'broken.mpd', '<MPD><Period><AdaptationSet', 'application/dash+xml');
    expect(ex.kind).toBe('stream');
    expect(ex.outlinks).toEqual([]);
  });

  describe.skipIf(!hasFfmpeg())('the ffmpeg fixtures', () => {
    const fx = hasFfmpeg() ? mediaFixtures() : { dir: '', files: [] };
    const read = (rel: string) => fs.readFileSync(path.join(fx.dir, rel));

    it('an HLS master playlist: its two renditions and its subtitle playlist', () => {
      const ex = extract(BASE + 'hls/master.m3u8', read('hls/master.m3u8'), 'application/vnd.apple.mpegurl');
      expect(ex.kind).toBe('stream');
      expect(ex.outlinks.map((l) => [l.url.slice(BASE.length), l.hop]).sort()).toEqual([
        ['hls/high/index.m3u8', 'E'],
        ['hls/low/index.m3u8', 'E'],
        ['hls/subs/en.m3u8', 'E'],
      ]);
    });

    it('an HLS media playlist: every segment, as the files on disk', () => {
      for (const r of ['low', 'high']) {
        const ex = extract(`${BASE}hls/${r}/index.m3u8`, read(`hls/${r}/index.m3u8`), 'application/vnd.apple.mpegurl');
        const want = fx.files.filter((f) => f.startsWith(`hls/${r}/seg_`));
        expect(want.length).toBe(5);
        expect(ex.outlinks.map((l) => l.url.slice(BASE.length)).sort()).toEqual(want);
      }
    });

    it('a DASH manifest: the init segment and every segment of every representation', () => {
      const ex = extract(BASE + 'dash/manifest.mpd', read('dash/manifest.mpd'), 'application/dash+xml');
      const got = ex.outlinks.map((l) => l.url.slice(BASE.length));
      const m = parseStreamManifest('dash', read('dash/manifest.mpd').toString(), BASE + 'dash/manifest.mpd');
      expect(m.renditions.map((r) => r.id)).toEqual(['video:0', 'video:1', 'audio:2']);
      for (const id of ['0', '1', '2']) {
        expect(got).toContain(`dash/init-${id}.m4s`);
        // The manifest says 10 s in 2 s segments: five each (ffmpeg wrote a sixth audio one past the end).
        for (let n = 1; n <= 5; n++) expect(got).toContain(`dash/chunk-${id}-${String(n).padStart(3, '0')}.m4s`);
      }
      expect(got).toHaveLength(18);
      expect(ex.outlinks.every((l) => l.hop === 'E')).toBe(true);
    });
  });
});
