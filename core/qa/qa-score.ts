/**
 * The scores of one replayed page, as Browsertrix's assisted QA computes them so both tools read
 * the same: a screenshot match (pixelmatch over the viewport at threshold 0.1, decoded and
 * encoded with pngjs: the reference implementations, small and pure JS, so no native image
 * library), a text match (1 − Levenshtein distance / the longer text's length, with
 * fastest-levenshtein: Myers' bit-parallel algorithm, the fastest in JS on page-sized texts),
 * the share of requests replay answered well, and one band from them.
 */
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import { distance } from 'fastest-levenshtein';
import type { QaBand, QaReference, QaResources } from '../api/qa-types.ts';
import type { PageReference } from './qa-reference.ts';
import type { PageView } from './qa-replay-tab.ts';

/** Browsertrix's bands: below 0.5 severe, 0.5 up to 0.9 moderate, 0.9 and above good. */
export const SEVERE_BELOW = 0.5;
export const GOOD_FROM = 0.9;

/** Texts longer than this are compared on their first this-many characters (Levenshtein is O(n·m/32)). */
export const TEXT_MAX_CHARS = 40_000;

export function bandOf(score: number): QaBand {
  return score < SEVERE_BELOW ? 'severe' : score < GOOD_FROM ? 'moderate' : 'good';
}

const ORDER: QaBand[] = ['severe', 'moderate', 'good'];
function worse(a: QaBand, b: QaBand): QaBand {
  return ORDER.indexOf(a) <= ORDER.indexOf(b) ? a : b;
}

/**
 * The share of pixels that match, and pixelmatch's diff image. Screenshots of different sizes
 * are compared over their common area, and the rest of the larger counts as mismatched.
 */
export function screenshotMatch(reference: Buffer, replayed: Buffer): { score: number; diff: Buffer } {
  const a = PNG.sync.read(reference);
  const b = PNG.sync.read(replayed);
  const width = Math.min(a.width, b.width);
  const height = Math.min(a.height, b.height);
  const crop = (img: PNG): Buffer => {
    if (img.width === width && img.height === height) return img.data;
    const out = Buffer.alloc(width * height * 4);
    for (let y = 0; y < height; y++) img.data.copy(out, y * width * 4, y * img.width * 4, y * img.width * 4 + width * 4);
    return out;
  };
  const diff = new PNG({ width, height });
  const mismatched = pixelmatch(crop(a), crop(b), diff.data, width, height, { threshold: 0.1 });
  const total = Math.max(a.width * a.height, b.width * b.height);
  const score = total === 0 ? 1 : 1 - (mismatched + (total - width * height)) / total;
  return { score, diff: PNG.sync.write(diff) };
}

/** 1 − Levenshtein distance / longer length, over whitespace-normalized text; 1 for two empty texts. */
export function textMatch(reference: string, replayed: string): number {
  const a = normalizeText(reference);
  const b = normalizeText(replayed);
  const longer = Math.max(a.length, b.length);
  return longer === 0 ? 1 : 1 - distance(a, b) / longer;
}

function normalizeText(t: string): string {
  return t.replace(/\s+/g, ' ').trim().slice(0, TEXT_MAX_CHARS);
}

/** Share of requests answered well: captured / all; 1 when the page made none. */
export function resourceScore(r: QaResources): number {
  const all = r.captured + r.missing + r.errors;
  return all === 0 ? 1 : r.captured / all;
}

/** True when a PNG is one colour throughout (a blank page). */
export function isBlank(png: Buffer): boolean {
  const img = PNG.sync.read(png);
  const d = img.data;
  for (let i = 4; i < d.length; i += 4) if (d[i] !== d[0] || d[i + 1] !== d[1] || d[i + 2] !== d[2]) return false;
  return true;
}

export interface BandInput {
  reference: QaReference;
  screenshotScore: number | null;
  textScore: number | null;
  resourceScore: number;
  resources: QaResources;
  /** The page document itself was not in the archive, or was answered 4xx/5xx. */
  pageFailed: boolean;
  /** No text and a one-colour screenshot. */
  empty: boolean;
  scriptErrors: number;
}

/**
 * One band per page.
 *
 * Against a reference (capture-time or live): the band of the lowest of the screenshot, text and
 * resource scores (Browsertrix shows them apart; one band must not hide the worst of them).
 *
 * Replay alone, with nothing to compare with, the band says what replay itself shows:
 * - severe: the page document is not in the archive or answers 4xx/5xx, the page is empty (no
 *   text and a one-colour screenshot), or fewer than half its requests were answered well
 *   (resource score < 0.5);
 * - moderate: any request replay could not answer, any 4xx/5xx answer, any script error, or a
 *   resource score below 0.9;
 * - good: otherwise.
 *
 * Either way, a page with a request replay could not answer (a stylesheet, script, font or image
 * the archive lacks) is never good: a missing image can change too few pixels to move a score,
 * and the archive is still incomplete. A failed or empty page is always severe.
 */
export function pageBand(x: BandInput): QaBand {
  if (x.pageFailed || x.empty) return 'severe';
  let band: QaBand;
  if (x.reference === 'replay-only') {
    band = bandOf(x.resourceScore);
    if (x.resources.errors > 0 || x.scriptErrors > 0) band = worse(band, 'moderate');
  } else {
    band = bandOf(Math.min(x.resourceScore, x.screenshotScore ?? 1, x.textScore ?? 1));
  }
  if (x.resources.missing > 0) band = worse(band, 'moderate');
  return band;
}

export interface ViewScores {
  screenshotScore: number | null;
  textScore: number | null;
  /** pixelmatch's picture of the differences, when both screenshots exist. */
  diff: Buffer | null;
  resources: QaResources;
  resourceScore: number;
  band: QaBand;
}

/** Score what a replayed page showed (`seen`) against its reference (`ref`, none with replay-only). */
export function scoreView(reference: QaReference, ref: PageReference | null, seen: PageView): ViewScores {
  let screenshotScore: number | null = null;
  let diff: Buffer | null = null;
  if (ref?.screenshot && seen.screenshot) {
    const m = screenshotMatch(ref.screenshot, seen.screenshot);
    screenshotScore = m.score;
    diff = m.diff;
  } else if (ref?.screenshot) screenshotScore = 0;
  const textScore = ref?.text != null ? textMatch(ref.text, seen.text) : null;
  const resources = { captured: seen.captured, missing: seen.missingUrls.length, errors: seen.errorUrls.length };
  const rScore = resourceScore(resources);
  const empty = seen.text.trim() === '' && (!seen.screenshot || isBlank(seen.screenshot));
  const band = pageBand({ reference, screenshotScore, textScore, resourceScore: rScore, resources, pageFailed: seen.pageFailed, empty, scriptErrors: seen.scriptErrors.length });
  return { screenshotScore, textScore, diff, resources, resourceScore: rScore, band };
}

/**
 * Whether a page scored not good may only have been read too early, and is worth a second,
 * patient read: replay answered every request it made (a missing or failed resource is not good
 * however late the page is read) and its document was there. What is left (a screenshot or text
 * unlike the reference, an empty page, a script error) can be a page read before its own work
 * was done on a loaded machine. Good pages, the common case, are read once.
 */
export function worthRereading(seen: PageView, band: QaBand): boolean {
  return band !== 'good' && !seen.pageFailed && seen.missingUrls.length === 0 && seen.errorUrls.length === 0;
}
