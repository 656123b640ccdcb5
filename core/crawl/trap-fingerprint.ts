/**
 * A cheap near-duplicate fingerprint of a page's extracted text, for the trap detector: SimHash
 * (Charikar 2002; Manku, Jain & Das Sarma, "Detecting near-duplicates for web crawling", WWW 2007)
 * over the distinct words of the first 8 KiB of text, digits left out, in 64 bits. Pages of a calendar trap differ in a month name
 * and the numbers; their fingerprints then differ in a few bits, while pages with different
 * content differ in about half of them.
 *
 * Hand-written: the algorithm is some 30 lines, it runs on the crawl's hot path (two integer
 * hashes per distinct word, no allocation per bit), and what matters here is the token rule (digits
 * left out), which a general SimHash package would not have.
 */

/** Two 32-bit halves: [high, low]. Both 0 for an empty text (no fingerprint). */
export type Fingerprint = readonly [number, number];

/** Enough text to tell pages apart; a trap's pages are alike from their first words. */
const MAX_CHARS = 8 * 1024;
/** Words are runs of letters: digits are left out, so pages that differ only in numbers agree. */
const WORD = /\p{L}+/gu;

/** FNV-1a over the token, 32 bits, from `seed`. */
function fnv(s: string, seed: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  // fmix32: FNV's low bits are weak on short tokens.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

export function textFingerprint(text: string): Fingerprint | null {
  // Each distinct word once (a set, not counts): half the words of a page are repeats, and a
  // calendar month differs from the next in the words it has, not in how often.
  const words = new Set(text.slice(0, MAX_CHARS).toLowerCase().match(WORD));
  if (words.size === 0) return null;
  const v = new Int32Array(64);
  for (const w of words) {
    const hi = fnv(w, 0x811c9dc5);
    const lo = fnv(w, 0x9747b28c);
    for (let b = 0; b < 32; b++) {
      v[b]! += ((hi >>> b) & 1) * 2 - 1;
      v[32 + b]! += ((lo >>> b) & 1) * 2 - 1;
    }
  }
  let hi = 0;
  let lo = 0;
  for (let b = 0; b < 32; b++) {
    if (v[b]! > 0) hi |= 1 << b;
    if (v[32 + b]! > 0) lo |= 1 << b;
  }
  return [hi >>> 0, lo >>> 0];
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}

/** Bits that differ: 0 for the same words, about 32 for unrelated texts. */
export function distance(a: Fingerprint, b: Fingerprint): number {
  return popcount((a[0] ^ b[0]) >>> 0) + popcount((a[1] ^ b[1]) >>> 0);
}

/** Near-identical: at most 6 of 64 bits apart (Manku et al. use 3 for whole web pages; trap pages are short). */
export function nearIdentical(a: Fingerprint | null, b: Fingerprint | null): boolean {
  return a !== null && b !== null && distance(a, b) <= 6;
}
