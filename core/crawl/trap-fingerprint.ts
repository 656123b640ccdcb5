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
/**
 * Words are runs of letters (Unicode \p{L}, by code point): digits are left out, so pages that
 * differ only in numbers agree. Found by a scan rather than `match(/\p{L}+/gu)`: the same words,
 * but the regex took about twice as long on a documentation page's 8 KiB (bench/js-hot-bench.ts).
 * ASCII is decided by range; other code points by the regex, once each.
 */
const LETTER = /^\p{L}$/u;
const nonAsciiLetter = new Map<number, boolean>();

/** Whether a non-ASCII code point is a letter. */
function isLetter(cp: number): boolean {
  let yes = nonAsciiLetter.get(cp);
  if (yes === undefined) {
    yes = LETTER.test(String.fromCodePoint(cp));
    if (nonAsciiLetter.size < 65_536) nonAsciiLetter.set(cp, yes);
  }
  return yes;
}

/** Each distinct word of `text` (runs of letters), once. */
function distinctWords(text: string): Set<string> {
  const words = new Set<string>();
  let start = -1;
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    let letter: boolean;
    let width = 1;
    if (c < 0x80) letter = (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a;
    else {
      const cp = text.codePointAt(i)!;
      if (cp > 0xffff) width = 2;
      letter = isLetter(cp);
    }
    if (letter) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      words.add(text.slice(start, i));
      start = -1;
    }
    i += width;
  }
  if (start >= 0) words.add(text.slice(start));
  return words;
}

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
  const words = distinctWords(text.slice(0, MAX_CHARS).toLowerCase());
  if (words.size === 0) return null;
  // Per bit, the words that have it set: the bit is set in the fingerprint when more than half
  // do (SimHash's sum of ±1 above zero, counted without the ±).
  const ones = new Int32Array(64);
  for (const w of words) {
    const hi = fnv(w, 0x811c9dc5);
    const lo = fnv(w, 0x9747b28c);
    for (let b = 0; b < 32; b++) {
      ones[b]! += (hi >>> b) & 1;
      ones[32 + b]! += (lo >>> b) & 1;
    }
  }
  const n = words.size;
  let hi = 0;
  let lo = 0;
  for (let b = 0; b < 32; b++) {
    if (2 * ones[b]! > n) hi |= 1 << b;
    if (2 * ones[32 + b]! > n) lo |= 1 << b;
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
