/**
 * WARC digests: `sha1:` + RFC 4648 base32, the classic form Heritrix, wget and pywb write in
 * WARC-Block-Digest and WARC-Payload-Digest (and what CDX `digest` columns carry). Here, not in
 * fetch/ or warc/, because the fetcher (payload digests while bytes arrive), the WARC writer and
 * reader, the indexer and the exporters all compute them. node:crypto
 * does the hashing; base32 is written here because Node has no base32 encoder and the
 * encoding is twelve lines.
 */
import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';

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
  return sha1OfParts([data]);
}

/** `sha1:` + base32 of the parts as one block, without concatenating them. */
export function sha1OfParts(parts: readonly Uint8Array[]): string {
  const h = createHash('sha1');
  for (const p of parts) h.update(p);
  return 'sha1:' + base32(h.digest());
}

/** Labelled digest of `data`: `sha1:BASE32` or `sha256:BASE32`. */
export function labelledDigest(data: Uint8Array, algorithm: DigestAlgorithm = 'sha1'): string {
  return `${algorithm}:${base32(createHash(algorithm).update(data).digest())}`;
}

/**
 * Incremental WARC digest. Use it directly (`update()` then `digest()`) where bytes arrive in
 * callbacks, as in the fetcher, or pipe through it: it passes every chunk on unchanged, so a
 * writer can hash a record block while streaming it to disk.
 */
export class DigestStream extends Transform {
  readonly algorithm: DigestAlgorithm;
  /** Bytes hashed so far. */
  bytes = 0;
  #hash: Hash;
  #result: string | null = null;

  constructor(algorithm: DigestAlgorithm = 'sha1') {
    super();
    this.algorithm = algorithm;
    this.#hash = createHash(algorithm);
  }

  /** Hash a chunk without going through the stream machinery. */
  update(chunk: Uint8Array): this {
    if (this.#result !== null) throw new Error('DigestStream.update() after digest()');
    this.#hash.update(chunk);
    this.bytes += chunk.length;
    return this;
  }

  /** The labelled digest (`sha1:BASE32`). Final: later calls return the same string. */
  digest(): string {
    if (this.#result === null) this.#result = `${this.algorithm}:${base32(this.#hash.digest())}`;
    return this.#result;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.update(chunk);
    callback(null, chunk);
  }
}
