/**
 * DASH in Trove's replay, as hls-archived-variants.ts does for HLS: a manifest is served with only
 * the Representations whose every init segment and segment is archived, so a player's bandwidth
 * estimate (high at once on a loopback replay) cannot move it to one the capture did not take.
 * An AdaptationSet none of whose Representations is whole is left as stored (the player fails
 * there as it would have), and so is a manifest with nothing to leave out.
 *
 * The manifest is read with mpd-parser (formats/media-manifest.ts) for each Representation's
 * URLs; the Representations are then cut out of the text by hand, element by element: a
 * Representation does not nest, and an XML round trip through a DOM would change bytes the player
 * does not need changed (namespaces, attribute order, comments). The stored record never changes.
 */
import { parseStreamManifest } from '../formats/media-manifest.ts';

const SET = /<AdaptationSet\b[\s\S]*?<\/AdaptationSet>/g;
const REPRESENTATION = /<Representation\b[^>]*?(?:\/>|>[\s\S]*?<\/Representation>)/g;

function attr(tag: string, name: string): string | null {
  return new RegExp(`\\s${name}\\s*=\\s*("([^"]*)"|'([^']*)')`).exec(tag.slice(0, tag.indexOf('>') + 1))?.slice(2).find((v) => v !== undefined) ?? null;
}

/**
 * The manifest `body` (of `url`) with the Representations `playable` refuses left out, or null
 * when it is served as is. `playable(urls)` says whether every URL is archived.
 */
export async function archivedRepresentationsOnly(body: Buffer, url: string, playable: (urls: string[]) => Promise<boolean>): Promise<Buffer | null> {
  const text = body.toString('utf8');
  const m = parseStreamManifest('dash', text, url);
  const ok = new Map<string, boolean>();
  for (const r of m.renditions) {
    const id = r.id.slice(r.id.indexOf(':') + 1);
    ok.set(id, (ok.get(id) ?? true) && r.urls.length > 0 && (await playable(r.urls)));
  }
  if (ok.size === 0 || [...ok.values()].every(Boolean)) return null;

  let changed = false;
  const out = text.replace(SET, (set) => {
    const reps = set.match(REPRESENTATION) ?? [];
    const kept = reps.filter((rep) => ok.get(attr(rep, 'id') ?? '') !== false);
    if (kept.length === 0 || kept.length === reps.length) return set;
    changed = true;
    return set.replace(REPRESENTATION, (rep) => (ok.get(attr(rep, 'id') ?? '') === false ? '' : rep));
  });
  return changed ? Buffer.from(out, 'utf8') : null;
}
