/**
 * HLS in Trove's replay: a master playlist is served with only the variants the archive can
 * play whole (issue 37). A player picks its variant by its own bandwidth estimate, and on
 * loopback replay that estimate is high: hls.js and Chromium's own HLS player start low and move
 * up at once, to a variant a default capture (the renditions the player used when crawling, and
 * the one ReplayWeb.page keeps) may not hold, and then stall on segments that are not archived.
 * Capturing every rendition would answer that too (`--media-renditions all`), at several times
 * the bytes; steering the player to what is there costs nothing at capture and works on any
 * archive, as ReplayWeb.page and pywb steer theirs (they keep one variant by resolution).
 *
 * A variant is playable when its media playlist is archived and every segment, init section and
 * key it names is. When all are, or none is, the playlist is served as stored; otherwise the
 * `#EXT-X-STREAM-INF` lines of the others and their URI lines are left out. The stored record is
 * never changed: this is the served body only, as a JSONP callback's renaming is.
 */
import { parseStreamManifest } from '../formats/media-manifest.ts';

const STREAM_INF = '#EXT-X-STREAM-INF';

/**
 * The master playlist `body` (of `url`) with the variants `playable` refuses left out, or null
 * when it is served as is (not a master playlist, every variant playable, or none).
 * `playable(variantUrl)` says whether a media playlist and all its parts are archived.
 */
export async function archivedVariantsOnly(body: Buffer, url: string, playable: (url: string) => Promise<boolean>): Promise<Buffer | null> {
  const text = body.toString('utf8');
  if (!text.includes(STREAM_INF)) return null;
  const variants = parseStreamManifest('hls', text, url).playlists.filter((p) => p.type === 'variant');
  const ok = new Map<string, boolean>();
  for (const v of variants) ok.set(v.url, await playable(v.url));
  const kept = [...ok.values()].filter(Boolean).length;
  if (kept === 0 || kept === ok.size) return null;

  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.startsWith(STREAM_INF)) {
      out.push(line);
      continue;
    }
    // The variant's URI is the next line that is neither blank nor a tag or comment.
    let j = i + 1;
    while (j < lines.length && (lines[j]!.trim() === '' || lines[j]!.startsWith('#'))) j++;
    let uri: string | null = null;
    try {
      uri = j < lines.length ? new URL(lines[j]!.trim(), url).href : null;
    } catch {
      uri = null;
    }
    if (uri !== null && ok.get(uri) === false) {
      i = j;
      continue;
    }
    out.push(line);
  }
  return Buffer.from(out.join('\n'), 'utf8');
}

/** Every URL a media playlist names (segments, init sections, keys), to check for `playable`. */
export function mediaPlaylistUrls(body: Buffer, url: string): string[] {
  return parseStreamManifest('hls', body.toString('utf8'), url).renditions.flatMap((r) => r.urls);
}
