/**
 * Whether a response is an HLS or a DASH manifest, without loading a manifest parser: the HTTP
 * crawl asks this of every response it extracts, and the parsers (media-manifest.ts) load only
 * once one is found.
 */

export type StreamKind = 'hls' | 'dash';

const HLS_TYPES = new Set(['application/vnd.apple.mpegurl', 'application/x-mpegurl', 'audio/mpegurl', 'audio/x-mpegurl', 'application/mpegurl']);
const DASH_TYPES = new Set(['application/dash+xml']);

/** Which manifest a response is, from its bare media type, else its URL's extension, else its first bytes. */
export function streamKind(url: string, mime: string | null, head?: Buffer): StreamKind | null {
  const m = (mime ?? '').toLowerCase();
  if (HLS_TYPES.has(m)) return 'hls';
  if (DASH_TYPES.has(m)) return 'dash';
  let path = '';
  try {
    path = new URL(url).pathname.toLowerCase();
  } catch {
    return null;
  }
  // A typed media file or page is not a manifest whatever its name says.
  if (/^(video|image|text\/html)/.test(m)) return null;
  if (path.endsWith('.m3u8')) return 'hls';
  if (path.endsWith('.mpd')) return 'dash';
  if (head) {
    const start = head.toString('latin1', 0, Math.min(head.length, 512)).replace(/^\uFEFF|^\xEF\xBB\xBF/, '').trimStart();
    if (start.startsWith('#EXTM3U')) return 'hls';
    if (/^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<MPD[\s>]/.test(start)) return 'dash';
  }
  return null;
}

