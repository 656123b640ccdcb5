/**
 * Revisit → original: the record whose payload a revisit stands for. Tried in the order that is
 * most certain first, as pywb and wabac do:
 *
 * 1. `WARC-Refers-To` (the original's record id);
 * 2. `WARC-Refers-To-Target-URI` + `WARC-Refers-To-Date` (the capture of that URL at that time);
 * 3. the payload digest (the earliest response with the same digest; this is also how
 *    URL-agnostic revisits from ia-web-commons find their original).
 *
 * An original that is itself a revisit is followed again, a few steps at most (no loops). A
 * recrawl's revisits may point into the earlier crawls it repeats: resolveRevisitInChain looks there.
 */
import { surtKey } from '../scope/surt.ts';
import type { Archive } from './archive-dir.ts';
import type { CaptureIndex, CaptureRow } from './capture-index.ts';
import { timestampSeconds } from './capture-timestamp.ts';
import { timestamp14 } from './archive-warc-date.ts';

const MAX_HOPS = 4;

/** True for a record that holds a payload a browser can be given. */
function hasPayload(r: CaptureRow): boolean {
  return r.recordType === 'response' || r.recordType === 'resource';
}

function step(index: CaptureIndex, revisit: CaptureRow): CaptureRow | null {
  if (revisit.refersTo) {
    const byId = index.byRecordId(revisit.refersTo);
    if (byId && byId.id !== revisit.id && (hasPayload(byId) || byId.recordType === 'revisit')) return byId;
  }
  if (revisit.refersToUri) {
    const ts = timestamp14(revisit.refersToDate);
    const key = surtKey(revisit.refersToUri);
    const found = ts ? index.closest(key, ts) : null;
    if (found && found.id !== revisit.id && found.ts === ts && hasPayload(found)) return found;
    // The date may be missing or written differently: any payload capture of that URL with the digest.
    if (revisit.payloadDigest) {
      const same = index.findCaptures(key).filter((c) => hasPayload(c) && c.payloadDigest === revisit.payloadDigest);
      if (same.length > 0) return ts ? nearest(same, ts) : same[0]!;
    }
  }
  if (revisit.payloadDigest) {
    const byDigest = index.byDigest(revisit.payloadDigest);
    if (byDigest && byDigest.id !== revisit.id) return byDigest;
  }
  return null;
}

function nearest(rows: CaptureRow[], ts: string): CaptureRow {
  const t = timestampSeconds(ts);
  const d = (r: CaptureRow) => (r.ts ? Math.abs(timestampSeconds(r.ts) - t) : Infinity);
  let best = rows[0]!;
  for (const r of rows) if (d(r) < d(best)) best = r;
  return best;
}

/** The original record of a revisit, or null when the archive does not hold it. */
export function resolveRevisit(index: CaptureIndex, revisit: CaptureRow): CaptureRow | null {
  let current = revisit;
  const seen = new Set<number>([revisit.id]);
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    const next = step(index, current);
    if (!next || seen.has(next.id)) return null;
    if (hasPayload(next)) return next;
    seen.add(next.id);
    current = next;
  }
  return null;
}

/**
 * A revisit's original in this archive or, for a recrawl, in the earlier crawls of its chain
 * (Archive.earlier), nearest first. An original found in an earlier crawl comes back with its
 * file as an absolute path (so `archive.resolveFile` reads it where it is) and a negative id (so
 * it is never taken for a row of this archive).
 */
export function resolveRevisitInChain(archive: Archive, revisit: CaptureRow): CaptureRow | null {
  const own = resolveRevisit(archive.index, revisit);
  if (own) return own;
  const earlier = archive.earlier();
  for (let i = 0; i < earlier.length; i++) {
    const e = earlier[i]!;
    const found = resolveRevisit(e.index, { ...revisit, id: -1 });
    if (found) return { ...found, filePath: e.resolveFile(found), id: -(i + 1) * 2 ** 40 - found.id };
  }
  return null;
}
