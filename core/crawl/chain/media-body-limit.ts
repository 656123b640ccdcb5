/**
 * `--max-media-bytes` in an HTTP-only crawl (issue 37): a media file is cut at the limit, its
 * record marked `WARC-Truncated: length`, and the crawl goes on, as the browser's whole-media
 * fetches are (browser/media-completer.ts). A response is a media file when its page named it
 * as one (`<video src>`, `<audio src>`, `<source src>`, or a stream manifest's segment: the
 * extractor's context, known before the request) or when its head says `audio/*` or `video/*`
 * (known only once the head is read, so the fetcher is given the rule, not a number). Manifests,
 * subtitle tracks and posters are not media files here: they are read whole or are images.
 */
import { headMediaType } from '../../formats/media-type.ts';
import type { FetchRequest, FetchResult } from '../../fetch/fetch-types.ts';

/** Extractor contexts (extract/html-links.ts, extract/stream-links.ts) that name a media file. */
const MEDIA_CONTEXTS = new Set(['video/@src', 'audio/@src', 'source/@src', 'hls/segment', 'dash/segment']);

function isMediaType(headers: [string, string][]): boolean {
  const type = headMediaType(headers) ?? '';
  return type.startsWith('video/') || type.startsWith('audio/');
}

/** The fetch request's cut for a URI found in `viaContext`, under a `limit` of bytes. */
export function mediaBodyLimit(viaContext: string | null, limit: number): Pick<FetchRequest, 'maxBodyBytes' | 'bodyLimitForHead'> {
  if (viaContext !== null && MEDIA_CONTEXTS.has(viaContext)) return { maxBodyBytes: limit };
  return { bodyLimitForHead: (head) => (isMediaType(head.headers) ? limit : null) };
}

/** Whether this fetch was cut by the media limit (not by `--max-body-bytes` alone). */
export function cutAtMediaLimit(f: FetchResult, viaContext: string | null, limit: number, maxBodyBytes: number): boolean {
  if (f.truncated !== 'length' || !f.responseHead || limit >= maxBodyBytes) return false;
  return (viaContext !== null && MEDIA_CONTEXTS.has(viaContext)) || isMediaType(f.headers);
}
