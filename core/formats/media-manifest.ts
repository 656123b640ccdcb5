/**
 * HLS (`.m3u8`) and DASH (`.mpd`) manifests as the URLs a stream is made of: the child
 * playlists of an HLS master playlist, and the init segments, segments, keys and subtitle files
 * of each rendition. The HTTP crawl queues them as embeds (core/extract) and the browser's media
 * fetcher (core/browser/media-completer.ts) fetches those of the renditions a player used, so the
 * two read a manifest the same way, here.
 *
 * Parsed with videojs's m3u8-parser and mpd-parser (Apache-2.0; what video.js plays streams with):
 * DASH's SegmentTemplate / SegmentTimeline / SegmentList arithmetic and HLS's tag grammar are
 * easy to get subtly wrong by hand. They throw on nothing in practice; a manifest they cannot
 * read gives no URLs.
 */
import { createRequire } from 'node:module';
import type { ParsedManifest, ParsedPlaylist } from 'm3u8-parser';

import { dashReplayChoice, hlsReplayChoice } from './replay-rendition-choice.ts';
import type { StreamKind } from './stream-kind.ts';

// The parsers (and xmldom under mpd-parser) load at the first manifest, not with the crawl's
// extractor: few sites have streams, and loading them costs every crawl process ~0.06 s of CPU
// and ~8 MB (issue 40). Both are CommonJS, so a require loads them synchronously where a
// manifest is met.
const requireParser = createRequire(import.meta.url);
let m3u8: typeof import('m3u8-parser') | undefined;
let mpd: typeof import('mpd-parser') | undefined;

export type { StreamKind } from './stream-kind.ts';

/** A child playlist named by an HLS master playlist. */
export interface ChildPlaylist {
  url: string;
  /** `variant` (EXT-X-STREAM-INF), or the EXT-X-MEDIA type it was listed under. */
  type: 'variant' | 'audio' | 'video' | 'subtitles';
  /** For a variant: the playlists of the audio / subtitle groups it names. */
  groups: string[];
  /** For a variant: its `BANDWIDTH` and `RESOLUTION`, when given. */
  bandwidth?: number;
  width?: number;
  height?: number;
}

/** One rendition and every URL it plays from, in order (init segment or key first). */
export interface Rendition {
  /** The media playlist's URL (HLS), or `<kind>:<representation id>` (DASH). */
  id: string;
  type: 'media' | 'video' | 'audio' | 'subtitles';
  urls: string[];
}

export interface StreamManifest {
  kind: StreamKind;
  /** An HLS master playlist's children (empty for a media playlist and for DASH). */
  playlists: ChildPlaylist[];
  /** An HLS media playlist's one rendition, or each DASH representation. */
  renditions: Rendition[];
  /**
   * What ReplayWeb.page and pywb keep of this manifest when they replay it
   * (replay-rendition-choice.ts): the URL of an HLS master's one variant, or the ids of the DASH
   * renditions kept (one per AdaptationSet). Empty for an HLS media playlist.
   */
  replayChoice: string[];
}

/** More URLs than this from one manifest are not followed (a live manifest gone wrong). */
export const MAX_STREAM_URLS = 50_000;

function resolve(uri: string | undefined, base: string): string | null {
  if (!uri) return null;
  try {
    const u = new URL(uri, base);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

function pushOnce(list: string[], seen: Set<string>, url: string | null): void {
  if (url && !seen.has(url) && seen.size < MAX_STREAM_URLS) {
    seen.add(url);
    list.push(url);
  }
}

/** The URLs of one playlist's segments: init section (EXT-X-MAP), key, segment, in order. */
function segmentUrls(p: ParsedPlaylist | ParsedManifest, base: string): string[] {
  const urls: string[] = [];
  const seen = new Set<string>();
  const sidx = (p as ParsedPlaylist).sidx;
  if (sidx) pushOnce(urls, seen, resolve(sidx.resolvedUri ?? sidx.uri, base));
  for (const s of p.segments ?? []) {
    const r = s as { resolvedUri?: string; map?: { resolvedUri?: string; uri?: string } };
    pushOnce(urls, seen, resolve(r.map?.resolvedUri ?? s.map?.uri, base));
    pushOnce(urls, seen, resolve(s.key?.uri, base));
    pushOnce(urls, seen, resolve(r.resolvedUri ?? s.uri, base));
  }
  return urls;
}

function parseHls(text: string, url: string): StreamManifest {
  m3u8 ??= requireParser('m3u8-parser') as typeof import('m3u8-parser');
  const parser = new m3u8.Parser();
  parser.push(text);
  parser.end();
  const m = parser.manifest;
  const out: StreamManifest = { kind: 'hls', playlists: [], renditions: [], replayChoice: [] };
  const groupUrls = (type: string, name: unknown): string[] => {
    if (typeof name !== 'string') return [];
    const group = m.mediaGroups?.[type]?.[name] ?? {};
    return Object.values(group).map((g) => resolve(g.uri, url)).filter((u): u is string => u !== null);
  };
  const seen = new Set<string>();
  for (const [type, key] of [['AUDIO', 'audio'], ['VIDEO', 'video'], ['SUBTITLES', 'subtitles']] as const) {
    for (const group of Object.values(m.mediaGroups?.[type] ?? {})) {
      for (const g of Object.values(group)) {
        const u = resolve(g.uri, url);
        if (u && !seen.has(u)) {
          seen.add(u);
          out.playlists.push({ url: u, type: key, groups: [] });
        }
      }
    }
  }
  for (const p of m.playlists ?? []) {
    const u = resolve(p.uri, url);
    if (!u || seen.has(u)) continue;
    seen.add(u);
    const a = p.attributes ?? {};
    const res = a.RESOLUTION as { width?: number; height?: number } | undefined;
    out.playlists.push({
      url: u,
      type: 'variant',
      groups: [...groupUrls('AUDIO', a.AUDIO), ...groupUrls('SUBTITLES', a.SUBTITLES), ...groupUrls('VIDEO', a.VIDEO)],
      ...(typeof a.BANDWIDTH === 'number' ? { bandwidth: a.BANDWIDTH } : {}),
      ...(typeof res?.width === 'number' && typeof res.height === 'number' ? { width: res.width, height: res.height } : {}),
    });
  }
  const choice = hlsReplayChoice(out.playlists.filter((p) => p.type === 'variant'));
  if (choice) out.replayChoice.push(choice);
  if ((m.segments ?? []).length > 0) out.renditions.push({ id: url, type: 'media', urls: segmentUrls(m, url) });
  return out;
}

/**
 * mpd-parser's XML parser (xmldom) reports a malformed document on the console, where a crawl's
 * progress line is, with no option to stop it: the parse is synchronous, so the console is quiet
 * for its length only. A manifest that does not parse gives no URLs, as said above.
 */
function quietly<T>(parse: () => T): T {
  const { error, warn } = console;
  console.error = console.warn = () => {};
  try {
    return parse();
  } finally {
    console.error = error;
    console.warn = warn;
  }
}

function parseDash(text: string, url: string): StreamManifest {
  mpd ??= requireParser('mpd-parser') as typeof import('mpd-parser');
  const parse = mpd.parse;
  const m = quietly(() => parse(text, { manifestUri: url }));
  const kept = quietly(() => dashReplayChoice(text));
  const out: StreamManifest = { kind: 'dash', playlists: [], renditions: [], replayChoice: [] };
  const add = (p: ParsedPlaylist, type: Rendition['type'], n: number): void => {
    const name = String(p.attributes?.NAME ?? n);
    const id = `${type}:${name}`;
    out.renditions.push({ id, type, urls: segmentUrls(p, url) });
    if (p.attributes?.NAME !== undefined && kept.has(name)) out.replayChoice.push(id);
  };
  (m.playlists ?? []).forEach((p, i) => add(p, 'video', i));
  for (const [type, key] of [['AUDIO', 'audio'], ['SUBTITLES', 'subtitles']] as const) {
    let i = 0;
    for (const group of Object.values(m.mediaGroups?.[type] ?? {})) {
      for (const g of Object.values(group)) for (const p of g.playlists ?? []) add(p, key, i++);
    }
  }
  return out;
}

/** The manifest's child playlists and renditions; an unreadable one has none. */
export function parseStreamManifest(kind: StreamKind, text: string, url: string): StreamManifest {
  try {
    return kind === 'hls' ? parseHls(text, url) : parseDash(text, url);
  } catch {
    return { kind, playlists: [], renditions: [], replayChoice: [] };
  }
}

/** Every URL a manifest names: child playlists, then each rendition's. */
export function allStreamUrls(m: StreamManifest): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const p of m.playlists) pushOnce(out, seen, p.url);
  for (const r of m.renditions) for (const u of r.urls) pushOnce(out, seen, u);
  return out;
}
