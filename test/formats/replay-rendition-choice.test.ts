/**
 * The rendition ReplayWeb.page and pywb keep of a stream manifest (core/formats/replay-rendition-choice.ts),
 * checked against the rule in wabac.js's rewriteVideo.ts on small hand-written manifests: HLS by
 * resolution up to 1280×720, DASH per AdaptationSet (by size, else by bandwidth up to 2 Mbit/s).
 */
import { describe, expect, it } from 'vitest';
import { dashReplayChoice, hlsReplayChoice } from '../../core/formats/replay-rendition-choice.ts';
import { parseStreamManifest } from '../../core/formats/media-manifest.ts';

const master = (variants: [string, number, string | null][]): string =>
  ['#EXTM3U', ...variants.flatMap(([uri, band, res]) => [`#EXT-X-STREAM-INF:BANDWIDTH=${band}${res ? `,RESOLUTION=${res}` : ''}`, uri]), ''].join('\n');

describe('the rendition a replay tool keeps', () => {
  it('HLS: the largest resolution not above 1280×720, the first among equals, else the lowest', () => {
    const choose = (text: string) => parseStreamManifest('hls', text, 'http://127.0.0.1/m.m3u8').replayChoice;
    expect(choose(master([['a.m3u8', 300_000, '640x360'], ['b.m3u8', 3_000_000, '1280x720'], ['c.m3u8', 6_000_000, '1920x1080']]))).toEqual(['http://127.0.0.1/b.m3u8']);
    expect(choose(master([['a.m3u8', 300_000, '640x360'], ['b.m3u8', 400_000, '640x360']]))).toEqual(['http://127.0.0.1/a.m3u8']);
    expect(choose(master([['big.m3u8', 9_000_000, '3840x2160'], ['mid.m3u8', 6_000_000, '1920x1080']]))).toEqual(['http://127.0.0.1/mid.m3u8']);
    // Without RESOLUTION a variant counts as 0 pixels: one with a size up to 720p wins.
    expect(hlsReplayChoice([{ url: 'x' }, { url: 'y', width: 320, height: 180 }])).toBe('y');
    expect(choose('#EXTM3U\n#EXTINF:2,\nseg.ts\n')).toEqual([]);
  });

  it('DASH: one Representation per AdaptationSet, by size up to 1280×720, audio by bandwidth up to 2 Mbit/s', () => {
    const mpd = `<?xml version="1.0"?><MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT4S"><Period>
<AdaptationSet contentType="video" mimeType="video/mp4"><SegmentTemplate media="$RepresentationID$-$Number$.m4s" initialization="$RepresentationID$-init.m4s" duration="2" startNumber="1"/>
<Representation id="v360" bandwidth="500000" width="640" height="360"/><Representation id="v720" bandwidth="2500000" width="1280" height="720"/><Representation id="v1080" bandwidth="5000000" width="1920" height="1080"/></AdaptationSet>
<AdaptationSet contentType="audio" mimeType="audio/mp4" lang="en"><SegmentTemplate media="$RepresentationID$-$Number$.m4s" initialization="$RepresentationID$-init.m4s" duration="2" startNumber="1"/>
<Representation id="a64" bandwidth="64000"/><Representation id="a128" bandwidth="128000"/><Representation id="a3000" bandwidth="3000000"/></AdaptationSet>
</Period></MPD>`;
    expect([...dashReplayChoice(mpd)]).toEqual(['v720', 'a128']);
    const parsed = parseStreamManifest('dash', mpd, 'http://127.0.0.1/d/manifest.mpd');
    expect(parsed.replayChoice.sort()).toEqual(['audio:a128', 'video:v720']);
  });
});
