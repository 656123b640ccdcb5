/**
 * The embeds of an HLS or DASH manifest fetched over HTTP: its child playlists (variants, audio
 * and subtitle renditions) and every rendition's init segments, keys and segments, as E hops, so
 * a crawl without a browser archives the whole stream and any player can replay it. With no
 * player to say which renditions were used, every rendition is queued (`--media-renditions`
 * means `all` here). The manifest is read by core/formats/media-manifest.ts, as the browser's
 * media fetcher reads it.
 */
import { parseStreamManifest, type StreamKind } from '../formats/media-manifest.ts';
import type { Outlink } from './outlink.ts';

export function extractStream(kind: StreamKind, body: Buffer, url: string, maxLinks: number): { outlinks: Outlink[]; truncated: boolean } {
  const m = parseStreamManifest(kind, body.toString('utf8'), url);
  const outlinks: Outlink[] = [];
  const seen = new Set<string>();
  const add = (u: string, context: string): void => {
    if (seen.has(u)) return;
    seen.add(u);
    outlinks.push({ url: u, hop: 'E', context });
  };
  for (const p of m.playlists) add(p.url, `${kind}/playlist`);
  for (const r of m.renditions) for (const u of r.urls) add(u, `${kind}/segment`);
  const truncated = outlinks.length > maxLinks;
  return { outlinks: truncated ? outlinks.slice(0, maxLinks) : outlinks, truncated };
}
