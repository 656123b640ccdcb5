/**
 * The already-seen fingerprint: a signed 64-bit integer (SQLite INTEGER) laid out as Heritrix's
 * BdbUriUniqFilter lays it out: the top 24 bits hash `scheme://host[:port]`, the low 40 bits hash
 * the whole canonical URL. URIs of one host then sit next to each other in the B-tree, so the
 * seen-check of a page's links touches few pages of the index.
 *
 * The hash is written by hand (two 32-bit multiply-xorshift lanes over UTF-16 code units, with
 * MurmurHash3's finalizer): it runs for every discovered link, so it must not allocate (no
 * TextEncoder, no node:crypto Hash object) and collisions only need to be rare, not unforgeable.
 *
 * STABILITY: fingerprints are stored in crawl databases. Changing anything here makes a resumed
 * crawl re-fetch everything; the test pins known values.
 */

const MASK_40 = (1n << 40n) - 1n;

/** Fingerprint of a canonical URL (the output of `canonicalize`). */
export function fingerprint(canonicalUrl: string): bigint {
  const hostPart = hash64(schemeAndAuthority(canonicalUrl));
  const urlPart = hash64(canonicalUrl);
  // top 24 bits of the host hash, low 40 bits of the URL hash
  const top24 = BigInt(hostPart.hi >>> 8);
  const low40 = ((BigInt(urlPart.hi & 0xff) << 32n) | BigInt(urlPart.lo)) & MASK_40;
  return BigInt.asIntN(64, (top24 << 40n) | low40);
}

/**
 * A 52-bit hash of a string as a plain number (exact in a double, no BigInt): a key for tables
 * that keep URLs by the hundred thousand without keeping their text (the trap detector's records).
 * Two of 100,000 URLs share one with a chance of about 1 in a million; such a table must be one
 * where that costs no more than a merged statistic. Not stored anywhere: free to change.
 */
export function hash52(s: string): number {
  const h = hash64(s);
  return (h.hi & 0xfffff) * 0x100000000 + h.lo;
}

/** The 24-bit host cluster of a fingerprint (for tests and diagnostics). */
export function fingerprintHostBits(fp: bigint): number {
  return Number(BigInt.asUintN(64, fp) >> 40n);
}

/** `http://example.com:8080/a?b` → `http://example.com:8080`. */
export function schemeAndAuthority(url: string): string {
  const sep = url.indexOf('://');
  if (sep < 0) return url;
  let end = url.length;
  for (let i = sep + 3; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 0x2f || c === 0x3f || c === 0x23) {
      end = i;
      break;
    }
  }
  return url.slice(0, end);
}

interface Hash64 {
  hi: number;
  lo: number;
}

/** 64-bit non-cryptographic hash of a string's UTF-16 code units; two independent lanes. */
function hash64(s: string): Hash64 {
  let h1 = 0x9e3779b9 ^ s.length;
  let h2 = 0x85ebca6b ^ s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h1 ^= h1 >>> 15;
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 13;
  }
  // Cross the lanes, then finalize each (MurmurHash3 fmix32) so every input bit reaches every output bit.
  h1 = fmix32(h1 ^ Math.imul(h2, 0xcc9e2d51));
  h2 = fmix32(h2 ^ Math.imul(h1, 0x1b873593));
  return { hi: h2 >>> 0, lo: h1 >>> 0 };
}

function fmix32(x: number): number {
  let h = x;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}
