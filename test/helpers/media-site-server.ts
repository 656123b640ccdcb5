/**
 * A site of media pages for issue 37's tests, on 127.0.0.1 port 0: the ffmpeg fixtures
 * (media-fixtures.ts) under /media/, hls.js from node_modules at /js/hls.min.js, and one page per
 * case:
 *   /click.html        an MP4 (faststart) with preload="none", played only on a click
 *   /native-mp4.html   an MP4 whose index is at the end (not faststart), native playback
 *   /webm.html         a WebM, native playback
 *   /audio.html        an M4A in <audio>
 *   /hls-js.html       the HLS stream through hls.js (a small buffer, so a short play leaves
 *                      most segments unfetched), with its subtitle track
 *   /hls-native.html   the HLS stream in <video src=master.m3u8> (Chromium's own HLS player)
 *   /dash.html         the DASH stream through a minimal MSE player written here (dash.js is not
 *                      a dependency): the first video representation, a segment at a time as
 *                      the buffer runs low
 * Range requests are honoured (single ranges; 416 past the end) and every request is logged,
 * with its Range header, in `hits`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHttpServer } from './local-server.ts';
import { mediaFixtures, type MediaFixtures } from './media-fixtures.ts';

const HLS_JS = fileURLToPath(new URL('../../node_modules/hls.js/dist/hls.min.js', import.meta.url));

const TYPES: Record<string, string> = {
  '.mp4': 'video/mp4',
  '.m4a': 'audio/mp4',
  '.webm': 'video/webm',
  '.m3u8': 'application/vnd.apple.mpegurl',
  '.ts': 'video/mp2t',
  '.vtt': 'text/vtt',
  '.mpd': 'application/dash+xml',
  '.m4s': 'video/iso.segment',
  '.js': 'text/javascript',
  '.html': 'text/html; charset=utf-8',
};

const page = (title: string, body: string): string =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`;

const DASH_PLAYER = `<video id="v" muted playsinline width="320"></video>
<script>
(async () => {
  const v = document.getElementById('v');
  const base = '/media/dash/';
  const mpd = new DOMParser().parseFromString(await (await fetch(base + 'manifest.mpd')).text(), 'application/xml');
  const rep = mpd.querySelector('AdaptationSet[contentType="video"] Representation');
  const tpl = rep.querySelector('SegmentTemplate');
  const id = rep.getAttribute('id');
  const count = Math.ceil(10 / (Number(tpl.getAttribute('duration')) / Number(tpl.getAttribute('timescale'))));
  const name = (t, n) => t.replace('$RepresentationID$', id).replace(/\\$Number%03d\\$/, String(n).padStart(3, '0'));
  const ms = new MediaSource();
  v.src = URL.createObjectURL(ms);
  await new Promise((r) => ms.addEventListener('sourceopen', r, { once: true }));
  const sb = ms.addSourceBuffer('video/mp4; codecs="' + rep.getAttribute('codecs') + '"');
  const append = (buf) => new Promise((r) => { sb.addEventListener('updateend', r, { once: true }); sb.appendBuffer(buf); });
  await append(await (await fetch(base + name(tpl.getAttribute('initialization'), 0))).arrayBuffer());
  let next = Number(tpl.getAttribute('startNumber') || 1);
  const last = next + count - 1;
  let busy = false;
  const feed = async () => {
    if (busy || next > last) return;
    const ahead = sb.buffered.length ? sb.buffered.end(sb.buffered.length - 1) - v.currentTime : 0;
    if (ahead > 2) return;
    busy = true;
    await append(await (await fetch(base + name(tpl.getAttribute('media'), next++))).arrayBuffer());
    busy = false;
    if (next > last) ms.endOfStream(); else feed();
  };
  v.addEventListener('timeupdate', feed);
  v.addEventListener('seeking', feed);
  window.dashReady = true;
  feed();
})();
</script>`;

export const MEDIA_PAGES: Record<string, string> = {
  '/click.html': page('Click to play', `<video id="v" preload="none" width="320" src="/media/clip.mp4" onclick="this.play()"></video>`),
  '/native-mp4.html': page('Native MP4', `<video id="v" controls width="320" src="/media/clip-nofaststart.mp4"></video>`),
  '/webm.html': page('WebM', `<video id="v" controls width="320"><source src="/media/clip.webm" type="video/webm"></video>`),
  '/audio.html': page('Audio', `<audio id="v" controls src="/media/tone.m4a"></audio>`),
  '/hls-js.html': page(
    'HLS with hls.js',
    `<video id="v" controls muted width="320"></video>
<script src="/js/hls.min.js"></script>
<script>
  const v = document.getElementById('v');
  const hls = new Hls({ maxBufferLength: 2, maxMaxBufferLength: 2, startLevel: 0, capLevelToPlayerSize: false, subtitleDisplay: true });
  hls.loadSource('/media/hls/master.m3u8');
  hls.attachMedia(v);
  window.hls = hls;
</script>`,
  ),
  '/hls-native.html': page('HLS native', `<video id="v" controls muted width="320" src="/media/hls/master.m3u8"></video>`),
  // The hidden <source> names the manifest for a crawl without a browser (no player reads it).
  '/dash.html': page('DASH with a minimal MSE player', DASH_PLAYER + `<video preload="none" hidden><source src="/media/dash/manifest.mpd" type="application/dash+xml"></video>`),
};

export interface MediaSiteServer {
  origin: string;
  fixtures: MediaFixtures;
  /** Every request: method, path, and its Range, Cookie, User-Agent and Accept-Encoding headers (or null). */
  hits: { method: string; url: string; range: string | null; cookie: string | null; userAgent: string | null; acceptEncoding: string | null }[];
  close(): Promise<void>;
}

export async function startMediaSite(): Promise<MediaSiteServer> {
  const fixtures = mediaFixtures();
  const hits: MediaSiteServer['hits'] = [];
  const server = await startHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const range = req.headers.range ?? null;
    hits.push({ method: req.method ?? 'GET', url: url.pathname, range, cookie: req.headers.cookie ?? null, userAgent: req.headers['user-agent'] ?? null, acceptEncoding: req.headers['accept-encoding'] ?? null });
    const html = MEDIA_PAGES[url.pathname];
    if (html) {
      res.writeHead(200, { 'content-type': TYPES['.html']! });
      res.end(html);
      return;
    }
    let file: string | null = null;
    if (url.pathname === '/js/hls.min.js') file = HLS_JS;
    else if (url.pathname.startsWith('/media/')) {
      const rel = path.posix.normalize(decodeURIComponent(url.pathname.slice('/media/'.length)));
      if (!rel.startsWith('..') && fixtures.files.includes(rel)) file = path.join(fixtures.dir, rel);
    }
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    const body = fs.readFileSync(file);
    const type = TYPES[path.extname(file)] ?? 'application/octet-stream';
    const m = range ? /^bytes=(\d*)-(\d*)$/.exec(range.trim()) : null;
    if (m && (m[1] || m[2])) {
      let start = m[1] ? Number(m[1]) : body.length - Number(m[2]);
      let end = m[1] && m[2] ? Math.min(Number(m[2]), body.length - 1) : body.length - 1;
      if (start < 0) start = 0;
      if (start >= body.length || start > end) {
        res.writeHead(416, { 'content-range': `bytes */${body.length}` });
        res.end();
        return;
      }
      res.writeHead(206, { 'content-type': type, 'accept-ranges': 'bytes', 'content-range': `bytes ${start}-${end}/${body.length}`, 'content-length': end - start + 1 });
      res.end(req.method === 'HEAD' ? undefined : body.subarray(start, end + 1));
      return;
    }
    res.writeHead(200, { 'content-type': type, 'accept-ranges': 'bytes', 'content-length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  return { origin: server.origin, fixtures, hits, close: () => server.close() };
}
