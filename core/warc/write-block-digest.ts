/**
 * A running check of a caller's precomputed block digest while a spooled block streams past
 * the writer, so a spool file that changed after it was digested never reaches the WARC under a
 * lying WARC-Block-Digest.
 */
import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import { base32 } from '../formats/digest.ts';

/** Incremental check of a block against the digest the caller declared for it. */
export interface BlockDigestCheck {
  update(chunk: Uint8Array): void;
  /** True when the bytes seen hash to the declared digest. Call once, after the last chunk. */
  matches(): boolean;
}

/**
 * A check for `declared` (`sha1:` or `sha256:`, base32 or hex, any case), or null when the
 * algorithm or encoding is one we do not know: such a digest is written as given, unchecked.
 */
export function blockDigestCheck(declared: string): BlockDigestCheck | null {
  const colon = declared.indexOf(':');
  if (colon < 0) return null;
  const algo = declared.slice(0, colon).toLowerCase().replace('-', '');
  const value = declared.slice(colon + 1).replace(/=+$/, '').toUpperCase();
  // Encoded lengths: [base32 without padding, hex].
  const lengths: Record<string, [number, number]> = { sha1: [32, 40], sha256: [52, 64] };
  const known = lengths[algo];
  if (!known) return null;
  const [b32Len, hexLen] = known;
  let encode: (d: Buffer) => string;
  if (value.length === b32Len && /^[A-Z2-7]+$/.test(value)) encode = (d) => base32(d).replace(/=+$/, '');
  else if (value.length === hexLen && /^[0-9A-F]+$/.test(value)) encode = (d) => d.toString('hex').toUpperCase();
  else return null;
  const hash: Hash = createHash(algo);
  return {
    update: (chunk) => void hash.update(chunk),
    matches: () => encode(hash.digest()) === value,
  };
}
