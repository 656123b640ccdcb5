/**
 * WARC digests: `sha1:` + RFC 4648 base32, the classic form Heritrix, wget and pywb write in
 * WARC-Block-Digest and WARC-Payload-Digest (and what CDX `digest` columns carry). Here, not in
 * fetch/ or warc/, because the fetcher (payload digests while bytes arrive), the WARC writer and
 * reader, the indexer and the exporters all compute them. node:crypto
 * does the hashing; base32 is written here because Node has no base32 encoder and the
 * encoding is twelve lines.
 */
import { createHash, hash } from 'node:crypto';
import type { Hash } from 'node:crypto';

export type DigestAlgorithm = 'sha1' | 'sha256';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32, upper case, with `=` padding (a sha1 digest is 32 chars and needs none). */
export function base32(buf: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of buf) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1; // keep only the bits not yet written, so `value` never overflows
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  while (out.length % 8 !== 0) out += '=';
  return out;
}

/**
 * RFC 4648 base32 back to bytes, or null unless `text` is exactly what base32() writes for them
 * (upper case, the padding it adds, no stray bits), so decoding and encoding again is lossless.
 */
export function fromBase32(text: string): Buffer | null {
  // Whole 8-character groups without padding (every sha1 digest: 32 characters, 20 bytes) carry
  // no stray bits, so any text of alphabet characters is what base32() writes: decoded without
  // the general path's regex, string iteration and re-encoding (the capture index and dedup ask
  // for a few digests per URI; issue 20).
  if (text.length % 8 === 0 && text.charCodeAt(text.length - 1) !== 0x3d) return fromWholeGroups(text);
  const body = text.replace(/=+$/, '');
  const bytes = Math.floor((body.length * 5) / 8);
  const out = Buffer.alloc(bytes);
  let bits = 0;
  let value = 0;
  let n = 0;
  for (const ch of body) {
    const v = ALPHABET.indexOf(ch);
    if (v < 0) return null;
    value = ((value << 5) | v) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out[n++] = (value >>> (bits - 8)) & 0xff;
      bits -= 8;
    }
  }
  return base32(out) === text ? out : null;
}

/** Each ASCII code's value in ALPHABET, or -1. */
const VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) VALUE[ALPHABET.charCodeAt(i)] = i;

/** fromBase32 for whole 8-character groups, 40 bits (5 bytes) each: null on a foreign character. */
function fromWholeGroups(text: string): Buffer | null {
  const out = Buffer.alloc((text.length / 8) * 5);
  let n = 0;
  for (let i = 0; i < text.length; i += 8) {
    let hi = 0; // the group's first 20 bits, then its last 20: a 40-bit value overflows int32
    let lo = 0;
    for (let k = 0; k < 4; k++) {
      const a = text.charCodeAt(i + k);
      const b = text.charCodeAt(i + 4 + k);
      const va = a < 128 ? VALUE[a]! : -1;
      const vb = b < 128 ? VALUE[b]! : -1;
      if (va < 0 || vb < 0) return null;
      hi = (hi << 5) | va;
      lo = (lo << 5) | vb;
    }
    out[n++] = hi >>> 12;
    out[n++] = (hi >>> 4) & 0xff;
    out[n++] = ((hi & 0xf) << 4) | (lo >>> 16);
    out[n++] = (lo >>> 8) & 0xff;
    out[n++] = lo & 0xff;
  }
  return out;
}

/**
 * How the capture index stores a payload digest (schema version 8): a `sha1:BASE32` digest as
 * base32() writes it (what Trove, Heritrix, wget and warcio write) is its 20 bytes, a BLOB;
 * anything else (another algorithm, hex, lower case) stays the text it was. digestFromKey reads
 * either back as the exact text. The inverse is in JS, not SQL: SQLite has no base32.
 */
export function digestKey(digest: string): string | Buffer;
export function digestKey(digest: string | null): string | Buffer | null;
export function digestKey(digest: string | null): string | Buffer | null {
  if (digest === null || digest.length !== 37 || !digest.startsWith('sha1:')) return digest;
  return fromBase32(digest.slice(5)) ?? digest;
}

/** The digest text of a stored key (the inverse of digestKey). */
export function digestFromKey(key: string | Uint8Array | null): string | null {
  return key === null || typeof key === 'string' ? key : 'sha1:' + base32(key);
}

/** `sha1:` + base32 of the data, as written in WARC digest headers. */
export function sha1Base32(data: Uint8Array): string {
  return labelledDigest(data, 'sha1');
}

/** `sha1:` + base32 of the parts as one block, without concatenating them. */
export function sha1OfParts(parts: readonly Uint8Array[]): string {
  if (parts.length === 1) return labelledDigest(parts[0]!, 'sha1');
  const h = createHash('sha1');
  for (const p of parts) h.update(p);
  return 'sha1:' + base32(h.digest());
}

/**
 * Labelled digest of `data`: `sha1:BASE32` or `sha256:BASE32`. One-shot `crypto.hash` (Node
 * 21.7+) rather than a Hash object: for the few hundred bytes of a request or metadata record,
 * making and finalizing the object cost more than the hashing (issue 20).
 */
export function labelledDigest(data: Uint8Array, algorithm: DigestAlgorithm = 'sha1'): string {
  return `${algorithm}:${base32(hash(algorithm, data, 'buffer'))}`;
}

const EMPTY = new Uint8Array(0);

/**
 * Incremental WARC digest, for bytes that arrive in callbacks (the fetcher: a response's block
 * and payload as they come off the socket). A plain object, not a stream: the fetcher made two
 * per URI and a Transform's constructor chain (Duplex, Readable, Writable state) cost more than
 * the hashing of a small page (issue 20). A digest of one chunk, the common case for a small body,
 * is one `crypto.hash` call with no Hash object; the Hash is made when a second chunk arrives.
 * So the first chunk is held, not hashed, until then: its bytes must not change before digest().
 */
export class RunningDigest {
  readonly algorithm: DigestAlgorithm;
  /** Bytes hashed so far. */
  bytes = 0;
  #first: Uint8Array | null = null;
  #hash: Hash | null = null;
  #result: string | null = null;

  constructor(algorithm: DigestAlgorithm = 'sha1') {
    this.algorithm = algorithm;
  }

  update(chunk: Uint8Array): this {
    if (this.#result !== null) throw new Error('RunningDigest.update() after digest()');
    if (this.#hash !== null) this.#hash.update(chunk);
    else if (this.#first === null) this.#first = chunk;
    else {
      this.#hash = createHash(this.algorithm).update(this.#first).update(chunk);
      this.#first = null;
    }
    this.bytes += chunk.length;
    return this;
  }

  /** The labelled digest (`sha1:BASE32`). Final: later calls return the same string. */
  digest(): string {
    if (this.#result === null) {
      this.#result = this.#hash !== null ? `${this.algorithm}:${base32(this.#hash.digest())}` : labelledDigest(this.#first ?? EMPTY, this.algorithm);
      this.#first = null;
      this.#hash = null;
    }
    return this.#result;
  }
}
