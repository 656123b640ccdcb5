/**
 * Media fixtures made at test time with Debian's ffmpeg (issue 37), never committed as binaries:
 * a short test pattern with a tone as MP4 (faststart and not), WebM, an audio-only M4A, an HLS
 * stream in two renditions with a WebVTT subtitle track, and a DASH stream. Small and quick to
 * make (10 s, 160×90 and 320×180, 10 fps, 2 s segments): a few seconds of ffmpeg on a loaded
 * machine. Made once per machine boot into a temp folder keyed by this generator's version, so
 * the test files of one run share them; a half-made folder is never seen (made aside, renamed).
 *
 * The HLS master playlist is written by hand (ffmpeg makes each rendition's playlist and
 * segments): its subtitle group is simpler to state than to coax out of ffmpeg's var_stream_map.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Bump when the outputs change, so a stale cache is not reused. */
const VERSION = 'v1';
export const MEDIA_SECONDS = 10;
export const HLS_RENDITIONS = ['low', 'high'] as const;

export interface MediaFixtures {
  dir: string;
  /** Plain files, path under `dir` (served as /media/<path>). */
  files: string[];
}

function ff(args: string[], cwd: string): void {
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** The test pattern and the tone, `size` pixels, 10 fps, a keyframe every 2 s. */
function sources(size: string): string[] {
  return [
    '-f', 'lavfi', '-i', `testsrc=size=${size}:rate=10:duration=${MEDIA_SECONDS}`,
    '-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=22050:duration=${MEDIA_SECONDS}`,
  ];
}
const H264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-g', '20', '-keyint_min', '20', '-sc_threshold', '0', '-c:a', 'aac', '-b:a', '32k'];

const VTT = `WEBVTT

00:00:00.000 --> 00:00:04.000
Trove test pattern

00:00:04.000 --> 00:00:10.000
A tone at 440 Hz
`;

function make(dir: string): void {
  ff([...sources('160x90'), ...H264, '-movflags', '+faststart', 'clip.mp4'], dir);
  ff([...sources('160x90'), ...H264, 'clip-nofaststart.mp4'], dir);
  ff([...sources('160x90'), '-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '100k', '-g', '20', '-c:a', 'libopus', '-b:a', '32k', 'clip.webm'], dir);
  ff(['-f', 'lavfi', '-i', `sine=frequency=330:sample_rate=22050:duration=${MEDIA_SECONDS}`, '-c:a', 'aac', '-b:a', '32k', '-movflags', '+faststart', 'tone.m4a'], dir);

  // HLS: one playlist and MPEG-TS segments per rendition, a subtitle playlist, a master by hand.
  for (const [name, size, rate] of [['low', '160x90', '80k'], ['high', '320x180', '200k']] as const) {
    fs.mkdirSync(path.join(dir, 'hls', name), { recursive: true });
    ff([...sources(size), ...H264, '-b:v', rate, '-f', 'hls', '-hls_time', '2', '-hls_list_size', '0', '-hls_playlist_type', 'vod', '-hls_segment_filename', `hls/${name}/seg_%03d.ts`, `hls/${name}/index.m3u8`], dir);
  }
  fs.mkdirSync(path.join(dir, 'hls', 'subs'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'hls', 'subs', 'en.vtt'), VTT);
  fs.writeFileSync(path.join(dir, 'hls', 'subs', 'en.m3u8'), `#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:${MEDIA_SECONDS}\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:${MEDIA_SECONDS}.0,\nen.vtt\n#EXT-X-ENDLIST\n`);
  fs.writeFileSync(
    path.join(dir, 'hls', 'master.m3u8'),
    [
      '#EXTM3U',
      '#EXT-X-VERSION:3',
      '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="subs/en.m3u8"',
      '#EXT-X-STREAM-INF:BANDWIDTH=150000,RESOLUTION=160x90,CODECS="avc1.42c00c,mp4a.40.2",SUBTITLES="subs"',
      'low/index.m3u8',
      '#EXT-X-STREAM-INF:BANDWIDTH=400000,RESOLUTION=320x180,CODECS="avc1.42c00d,mp4a.40.2",SUBTITLES="subs"',
      'high/index.m3u8',
      '',
    ].join('\n'),
  );

  // DASH: two video representations and one audio, SegmentTemplate with $Number$.
  fs.mkdirSync(path.join(dir, 'dash'), { recursive: true });
  ff(
    [
      ...sources('320x180'),
      '-map', '0:v', '-map', '0:v', '-map', '1:a',
      ...H264,
      '-s:v:0', '160x90', '-b:v:0', '80k', '-s:v:1', '320x180', '-b:v:1', '200k',
      '-f', 'dash', '-seg_duration', '2', '-use_template', '1', '-use_timeline', '0',
      '-init_seg_name', 'init-$RepresentationID$.m4s', '-media_seg_name', 'chunk-$RepresentationID$-$Number%03d$.m4s',
      'dash/manifest.mpd',
    ],
    dir,
  );
}

function listFiles(dir: string, under = ''): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(dir, under), { withFileTypes: true })) {
    const rel = under ? `${under}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...listFiles(dir, rel));
    else out.push(rel);
  }
  return out.sort();
}

/** The fixtures, made now or taken from this machine's cache. Throws when ffmpeg is missing. */
export function mediaFixtures(): MediaFixtures {
  const dir = path.join(os.tmpdir(), `trove-media-fixtures-${VERSION}`);
  if (!fs.existsSync(path.join(dir, '.done'))) {
    const aside = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-media-making-'));
    make(aside);
    fs.writeFileSync(path.join(aside, '.done'), '');
    try {
      fs.renameSync(aside, dir);
    } catch {
      // Another test file made them meanwhile: theirs are as good.
      fs.rmSync(aside, { recursive: true, force: true });
    }
  }
  return { dir, files: listFiles(dir).filter((f) => f !== '.done') };
}

/** Whether ffmpeg can be run here (the tests skip with a message otherwise). */
export function hasFfmpeg(): boolean {
  try {
    execFileSync('ffmpeg', ['-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
