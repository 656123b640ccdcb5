/**
 * WARC-Block-Digest and WARC-Payload-Digest values as producers actually write them:
 * `algorithm:value` with the algorithm spelled `sha1`, `SHA-1`, `sha-256`, `md5` … and the value
 * in base32 (Heritrix, wget, warcio), hex (warcprox, py-wacz), base64 or base64url (older
 * Webrecorder). Rather than guess the encoding from the value, the computed digest is encoded
 * every way and compared, so `a1b2…` that happens to be valid base32 and hex still matches
 * whichever it really is.
 */
import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import { base32 } from '../formats/digest.ts';

export type DigestEncoding = 'base32' | 'hex' | 'base64' | 'base64url';

export interface LabelledDigest {
  /** The label as written (`sha1`, `sha-256` …). */
  label: string;
  /** node:crypto's name for it, or null when Node has no such hash. */
  algorithm: string | null;
  value: string;
}

const LABEL = /^([A-Za-z0-9][A-Za-z0-9._-]*):(\S+)$/;

/** Node's hash name for a WARC digest label: `SHA-1` → `sha1`, `sha-256` → `sha256`. */
function nodeAlgorithm(label: string): string | null {
  const l = label.toLowerCase().replace(/[-_]/g, '');
  return ['sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'md5'].includes(l) ? l : null;
}

/** Split `algorithm:value`; null when the text has no such shape (`sharif-1; omar`). */
export function parseLabelledDigest(text: string): LabelledDigest | null {
  const m = LABEL.exec(text.trim());
  if (!m) return null;
  return { label: m[1]!, algorithm: nodeAlgorithm(m[1]!), value: m[2]! };
}

/** The encoding in which `value` spells `digest`, or null when it does not. */
export function digestEncodingOf(value: string, digest: Buffer): DigestEncoding | null {
  const v = value.replace(/=+$/, '');
  if (v.toLowerCase() === digest.toString('hex')) return 'hex';
  if (v.toUpperCase() === base32(digest).replace(/=+$/, '')) return 'base32';
  if (v === digest.toString('base64').replace(/=+$/, '')) return 'base64';
  if (v === digest.toString('base64url')) return 'base64url';
  return null;
}

/** A hash for a WARC digest label, or null when Node cannot compute it. */
export function hashFor(label: string): Hash | null {
  const algorithm = nodeAlgorithm(label);
  return algorithm ? createHash(algorithm) : null;
}
