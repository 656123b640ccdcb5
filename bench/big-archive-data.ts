/**
 * What the big-archive bench writes and then asks for: one home for the synthetic archive's URL
 * scheme and words, shared by the writer (big-archive-bench.ts) and the queries
 * (big-archive-queries.ts), and by the search bench (search-bench.ts). Every fourth capture is an image; the others are HTML pages.
 */
export const BIG_ARCHIVE_WORDS =
  'archive web crawl page record capture index replay search text news report city council meeting budget school library museum river bridge station market festival weather season history science music film theatre sport'.split(
    ' ',
  );

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'te', 'vo', 'zu', 'pi', 'da', 'fe', 'go', 'hu', 'ji', 'ba', 'co', 'di', 'fa', 'ge'];
/** Words of page text besides the common ones: made-up words, one per rank. */
export const VOCABULARY = 20_000;

/** The made-up word of this rank (its digits in base 20 as syllables). */
export function vocabularyWord(rank: number): string {
  let w = '';
  let n = rank;
  do {
    w += SYLLABLES[n % 20];
    n = Math.floor(n / 20);
  } while (n > 0);
  return w;
}

/** A deterministic pseudo-random source (xorshift), so every run writes the same bytes. */
export function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

/**
 * A word of page text: a fifth of them common words, the rest drawn from VOCABULARY with a
 * rank log-uniform in 1..VOCABULARY, so word frequency falls off as in real text (Zipf) and a
 * search for a rare word matches few pages, a frequent one many.
 */
export function textWord(rand: () => number): string {
  if (rand() < 0.2) return BIG_ARCHIVE_WORDS[Math.floor(rand() * BIG_ARCHIVE_WORDS.length)]!;
  return vocabularyWord(Math.floor(VOCABULARY ** rand()) - 1);
}

// The same words as bytes, each with its trailing space, for writePageWords.
const COMMON_BYTES = BIG_ARCHIVE_WORDS.map((w) => Buffer.from(`${w} `));
const VOCABULARY_BYTES = Array.from({ length: VOCABULARY }, (_, rank) => Buffer.from(`${vocabularyWord(rank)} `));

/**
 * `count` words drawn as textWord draws them, written into `buf` (room for 12 bytes a word)
 * each followed by a space, byte by byte: a page's text without a string per word. Returns the
 * end, and where the 6th and 8th words end (the page's title and heading).
 */
export function writePageWords(buf: Buffer, count: number, rand: () => number): { end: number; after6: number; after8: number } {
  let pos = 0;
  let after6 = 0;
  let after8 = 0;
  for (let n = 0; n < count; n++) {
    const w = rand() < 0.2 ? COMMON_BYTES[Math.floor(rand() * COMMON_BYTES.length)]! : VOCABULARY_BYTES[Math.floor(VOCABULARY ** rand()) - 1]!;
    for (let k = 0; k < w.length; k++) buf[pos++] = w[k]!;
    if (n === 5) after6 = pos;
    if (n === 7) after8 = pos;
  }
  return { end: pos, after6: after6 || pos, after8: after8 || pos };
}

/** The searches the bench times: made-up words from frequent to rare, alone and in pairs. */
export function benchQueries(): string[] {
  const ranks = [3, 10, 30, 100, 300, 1000, 3000, 10000];
  return [...ranks.map(vocabularyWord), ...ranks.slice(0, 6).map((r, i) => `${vocabularyWord(r)} ${vocabularyWord(ranks[i + 2]!)}`), 'council meeting', 'museum'];
}

export function isImageCapture(i: number): boolean {
  return i % 4 === 3;
}

export function bigArchiveUrl(i: number): string {
  return isImageCapture(i) ? `http://site${i % 50}.example.org/img/${i}.jpg` : `http://site${i % 50}.example.org/p/${i}.html`;
}
