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
 * For ASCII (every canonical URL) this equals the C version over bytes. Note the lowest bit of
 * the result is the last character's lowest bit, so with an even N, URLs that all end in the
 * same character (`.html`) reach only half of the N queues; an odd N avoids that.
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
 * The queue key for `url` under `policy`: 'host' gives the host, plus `:port` when the port is
 * not the scheme's default; 'elfhash:N' gives `${host}#${elfHash(url) % N}`.
 */
export function queueKeyFor(url: string, policy: string): string {
  return queueAssigner(policy)(url);
}

/** A key function with the policy parsed once, for the hot path. */
export function queueAssigner(policy: string): (url: string) => string {
  const p = parseQueuePolicy(policy);
  if (p.kind === 'host') return hostKey;
  const n = p.buckets;
  return (url) => `${hostKey(url)}#${elfHash(url) % n}`;
}

function hostKey(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch (err) {
    throw new TroveError('URL_INVALID', `not a URL: ${url}`, { url }, { cause: err });
  }
  if (u.hostname === '') throw new TroveError('URL_INVALID', `URL has no host: ${url}`, { url });
  // WHATWG URL lowercases the host and drops a port that is the scheme's default.
  return u.port === '' ? u.hostname : `${u.hostname}:${u.port}`;
}
