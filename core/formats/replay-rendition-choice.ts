/**
 * Which rendition of a stream the Webrecorder replay tools will ask for, so a capture can hold it
 * (issue 37). ReplayWeb.page's service worker (wabac.js, `src/rewrite/rewriteVideo.ts`, read at
 * 2.27.3 as bundled with replaywebpage 2.5.3) and pywb rewrite every HLS master playlist and DASH
 * manifest they replay down to one rendition, whatever the page's player would have chosen:
 *
 * - HLS: of the `#EXT-X-STREAM-INF` variants, the one with the largest `RESOLUTION` (width ×
 *   height) not above 1280×720, the first in the file among equals; the lowest when all are
 *   above; a variant without `RESOLUTION` counts as 0 pixels. (Bandwidth decides only when the
 *   resolution limit is unset, which it never is in replay.)
 * - DASH: in each AdaptationSet, the Representation with the largest width × height not above
 *   1280×720; one without a size (audio), or above that size, competes by `bandwidth`, kept
 *   when its bandwidth is at most 2 Mbit/s and above the best so far. A set with no such
 *   Representation is left whole.
 *
 * The limits are the replay defaults (pywb's, wabac's for a non-live archive); a WARC record's
 * `WARC-JSON-Metadata` may name others (`adaptive_max_resolution`, `adaptive_max_bandwidth`), which
 * Trove never writes. The rule is copied, not imported: wabac is a service-worker bundle, not a
 * library to call from Node.
 */
import { createRequire } from 'node:module';
import type * as MpdParser from 'mpd-parser';

// mpd-parser (and xmldom under it) loads at the first DASH manifest, as in media-manifest.ts:
// a crawl without streams does not pay for it (issue 40).
const requireParser = createRequire(import.meta.url);
let mpdParser: typeof MpdParser | undefined;

export const REPLAY_MAX_PIXELS = 1280 * 720;
export const REPLAY_MAX_BANDWIDTH = 2_000_000;

export interface VariantInfo {
  url: string;
  bandwidth?: number;
  width?: number;
  height?: number;
}

/** The HLS variant (its URL) the replay tools keep of a master playlist; null when it has none. */
export function hlsReplayChoice(variants: VariantInfo[]): string | null {
  const entries = variants.map((v, i) => ({ url: v.url, value: (v.width ?? 0) * (v.height ?? 0), i }));
  entries.sort((a, b) => a.value - b.value || a.i - b.i);
  let best: string | null = null;
  let bestValue: number | null = null;
  for (const e of entries) {
    if (e.value > REPLAY_MAX_PIXELS) break;
    if (bestValue !== e.value) {
      bestValue = e.value;
      best = e.url;
    }
  }
  return best ?? entries[0]?.url ?? null;
}

interface XmlElement {
  getElementsByTagName(name: string): ArrayLike<XmlElement>;
  getAttribute(name: string): string | null;
}

/**
 * The DASH Representation ids the replay tools keep: one per AdaptationSet (every one of a set
 * they would leave whole). Read with mpd-parser's own XML parse: its playlists do not say which
 * AdaptationSet a Representation belongs to, and the choice is per set.
 */
export function dashReplayChoice(text: string): Set<string> {
  const out = new Set<string>();
  mpdParser ??= requireParser('mpd-parser') as typeof MpdParser;
  const mpd = mpdParser.stringToMpdXml(text) as XmlElement;
  const sets = mpd.getElementsByTagName('AdaptationSet');
  for (let s = 0; s < sets.length; s++) {
    const reps = sets[s]!.getElementsByTagName('Representation');
    let best: string | null = null;
    let bestRes = 0;
    let bestBand = 0;
    for (let r = 0; r < reps.length; r++) {
      const rep = reps[r]!;
      const res = Number(rep.getAttribute('width') || '0') * Number(rep.getAttribute('height') || '0');
      const band = Number(rep.getAttribute('bandwidth') || '0');
      if (res && res <= REPLAY_MAX_PIXELS) {
        if (res > bestRes) [best, bestRes, bestBand] = [rep.getAttribute('id') ?? '', res, band];
      } else if (band <= REPLAY_MAX_BANDWIDTH && band > bestBand) {
        [best, bestRes, bestBand] = [rep.getAttribute('id') ?? '', res, band];
      }
    }
    if (best !== null) out.add(best);
    else for (let r = 0; r < reps.length; r++) out.add(reps[r]!.getAttribute('id') ?? '');
  }
  return out;
}
