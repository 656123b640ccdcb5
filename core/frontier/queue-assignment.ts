/**
 * Which queue a URI goes to. Heritrix's default is one queue per host (its authority), so http
 * and https of one host share a queue and a host gets one connection at a time. The `elfhash:N`
 * policy is the seed paper's: spread a site over N queues by ELFHash of the URL, trading
 * politeness for throughput (docs/FORMATS.md, "Queue assignment").
 */
import { TroveError } from '../errors.ts';

export type QueuePolicy = { kind: 'host' } | { kind: 'elfhash'; buckets: number };

/** Parse `host` or `elfhash:N` (N a positive integer). Throws QUEUE_POLICY_INVALID. */
export function parseQueuePolicy(policy: string): QueuePolicy {
  if (policy === 'host' || policy === '') return { kind: 'host' };
  const m = /^elfhash:(\d+)$/.exec(policy);
  if (m) {
    const buckets = Number(m[1]);
    if (Number.isSafeInteger(buckets) && buckets > 0) return { kind: 'elfhash', buckets };
  }
  throw new TroveError('QUEUE_POLICY_INVALID', `queue policy must be "host" or "elfhash:N" with N >= 1, not "${policy}"`, { policy });
}

/**
 * The ELF hash (Unix System V object files), over the string's UTF-16 code units as Java's
 * `charAt` gives them, in 32-bit arithmetic as a Java `int`:
 * `h = (h << 4) + c; x = h & 0xF0000000; if (x) h ^= x >> 24; h &= ~x;` then `h & 0x7FFFFFFF`.
 * For ASCII (every canonical URL) this equals the C version over bytes. The hash is reduced to a
 * queue by `elfQueue`, never by a plain `% N`: see there.
 */
export function elfHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) {
    h = ((h << 4) + s.charCodeAt(i)) >>> 0;
    const x = (h & 0xf0000000) >>> 0;
    if (x !== 0) h = (h ^ (x >>> 24)) >>> 0;
    h = (h & ~x) >>> 0;
  }
  return h & 0x7fffffff;
}

/**
 * The queue (0 … n-1) of `url` among n: ELFHash, its full 32 bits mixed, then reduced modulo n.
 *
 * Why not `elfHash(url) % n`: ELFHash shifts left 4 bits per character, so its low 4 bits are the
 * last character's low 4 bits (plus a folded high nibble, 4 bits higher up), and the next bits
 * only the last two or three characters'. A modulus by a power of two keeps just those bits: with
 * `elfhash:8` every URL ending in `.html` ('l') went to one queue, every `/`-ending URL to another.
 * Other N fare better only by accident of their factors (the paper's 50 = 2 · 25 still halves the
 * queues for `.html`). MurmurHash3's 32-bit finaliser (fmix32, a published avalanche mixer: each
 * input bit flips each output bit with probability ≈ ½) spreads every bit of the hash over all
 * bits before the modulus, so the queues are even for any URL shape and any N. The mixing is a
 * bijection, so two URLs share a queue after it no more often than ELFHash itself collides.
 */
export function elfQueue(url: string, n: number): number {
  let h = elfHash(url);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) % n;
}

/**
 * The queue key for `url` under `policy`: 'host' gives the host, plus `:port` when the port is
 * not the scheme's default; 'elfhash:N' gives `${host}#${elfQueue(url, N)}`.
 *
 * The key is stored with each URI in the frontier (its queue row), so a resumed crawl keeps every
 * already-queued URI in the queue it was given; only URIs discovered later are keyed afresh.
 */
export function queueKeyFor(url: string, policy: string): string {
  return queueAssigner(policy)(url);
}

/**
 * A key function with the policy parsed once, for the hot path. `parsed`, when given, is `url`
 * parsed already (WHATWG, same href): the host is read from it rather than parsing again.
 */
export function queueAssigner(policy: string): (url: string, parsed?: URL) => string {
  const p = parseQueuePolicy(policy);
  if (p.kind === 'host') return hostKey;
  const n = p.buckets;
  return (url, parsed) => `${hostKey(url, parsed)}#${elfQueue(url, n)}`;
}

function hostKey(url: string, parsed?: URL): string {
  let u: URL;
  if (parsed) u = parsed;
  else {
    try {
      u = new URL(url);
    } catch (err) {
      throw new TroveError('URL_INVALID', `not a URL: ${url}`, { url }, { cause: err });
    }
  }
  if (u.hostname === '') throw new TroveError('URL_INVALID', `URL has no host: ${url}`, { url });
  // WHATWG URL lowercases the host and drops a port that is the scheme's default.
  return u.port === '' ? u.hostname : `${u.hostname}:${u.port}`;
}
