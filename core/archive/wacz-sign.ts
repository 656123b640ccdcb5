/**
 * Anonymous WACZ signing (WACZ Signing and Verification 0.1.0): `signedData` in
 * datapackage-digest.json holds the datapackage hash, `created`, `software`, the ECDSA
 * `signature` over the hash string and the signer's `publicKey` (base64 SPKI DER), so anyone can
 * check the package was not changed since it was signed by the holder of that key.
 *
 * What was verified, not guessed:
 * - The message signed is the `hash` string itself (`sha256:<hex>`, ASCII) with ECDSA/SHA-256:
 *   the domain-signed corpus file `wacz/valid_signed_example_1.wacz` verifies that way against its
 *   certificate's key (and only that way, among the candidates tried).
 * - ArchiveWeb.page's anonymous signer (webrecorder/awp-sw keystore.ts) writes exactly
 *   `{hash, signature, publicKey, created, software}`, signing with WebCrypto, whose ECDSA
 *   signatures are IEEE P1363 (r‖s), not DER. So the signature here is P1363, base64.
 * - ReplayWeb.page 2.5.3 (wabac.js 2.27 `verifyWACZSignature`, wacz/certutils.ts) checks an
 *   anonymous signature only when `signedData.hash` equals the digest file's `hash`, then
 *   WebCrypto-imports `publicKey` as SPKI with `namedCurve: "P-384"` fixed, and verifies the
 *   P1363 signature over the hash string with ECDSA/SHA-256 (the same signature DER-encoded is
 *   `matched: false` there). A P-256 key fails that import (DataError), wabac swallows the
 *   error, and the package shows no public key and no signature verdict.
 *   test/e2e/replaywebpage.test.ts reads ReplayWeb.page's own verdict for both curves.
 * So P-384 is the curve to sign with: the key the app makes (createSigningKeyPem) and the one the
 * README's command makes (MAKE_SIGNING_KEY_COMMAND). P-256 is still accepted (the signature is
 * valid, and verifyAnonymousSignature below and `trove check` verify it, reading the curve from
 * the SPKI), with a warning that ReplayWeb.page will not verify it.
 */
import crypto from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { TroveError } from '../errors.ts';

export interface SignedData {
  hash: string;
  signature: string;
  publicKey: string;
  created: string;
  software: string;
}

/** Node's curve names → WebCrypto's. */
const CURVES: Record<string, { webCrypto: string }> = {
  prime256v1: { webCrypto: 'P-256' },
  secp384r1: { webCrypto: 'P-384' },
};

/** The curve ReplayWeb.page imports an anonymous signer's public key as (Node's name for P-384). */
const REPLAYWEBPAGE_CURVE = 'secp384r1';

/** How to make a signing key ReplayWeb.page verifies: P-384, PKCS#8 PEM (the README shows the same command). */
export const MAKE_SIGNING_KEY_COMMAND = 'openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-384 -out trove-sign-key.pem';

/**
 * One line for a signing key ReplayWeb.page will not verify (P-256), saying how to make one it
 * will; undefined for a P-384 key.
 */
export function signingKeyWarning(key: KeyObject): string | undefined {
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (curve === REPLAYWEBPAGE_CURVE) return undefined;
  return `the signing key is ECDSA ${curveName(key)}: the signature is valid, but ReplayWeb.page verifies only P-384 keys and will not show this WACZ as verified; make a P-384 key with: ${MAKE_SIGNING_KEY_COMMAND}`;
}

/** A signing key's curve as WebCrypto names it (`P-384`). */
export function curveName(key: KeyObject): string {
  const curve = key.asymmetricKeyDetails?.namedCurve;
  return curve ? (CURVES[curve]?.webCrypto ?? curve) : '?';
}

/** A new signing key of the curve ReplayWeb.page verifies (P-384), as PKCS#8 PEM: the key the app makes for itself. */
export function createSigningKeyPem(): string {
  return crypto.generateKeyPairSync('ec', { namedCurve: REPLAYWEBPAGE_CURVE }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** A private EC key (P-384, or P-256) from PEM (PKCS#8 or SEC1). */
export function loadSigningKey(pem: string | Buffer): KeyObject {
  let key: KeyObject;
  try {
    key = crypto.createPrivateKey(pem);
  } catch (err) {
    throw new TroveError('EXPORT_SIGN_KEY_INVALID', `cannot read the signing key: ${(err as Error).message}`, {}, { cause: err });
  }
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (key.asymmetricKeyType !== 'ec' || !curve || !CURVES[curve]) {
    throw new TroveError('EXPORT_SIGN_KEY_UNSUPPORTED', `the signing key must be an ECDSA P-384 (or P-256) private key (got ${key.asymmetricKeyType ?? '?'} ${curve ?? ''})`, {
      type: key.asymmetricKeyType,
      curve,
    });
  }
  return key;
}

/** Sign a datapackage hash (`sha256:<hex>`). */
export function signHash(hash: string, key: KeyObject, created: string, software: string): SignedData {
  const signature = crypto.sign('sha256', Buffer.from(hash, 'ascii'), { key, dsaEncoding: 'ieee-p1363' });
  const publicKey = crypto.createPublicKey(key).export({ type: 'spki', format: 'der' });
  return { hash, signature: signature.toString('base64'), publicKey: publicKey.toString('base64'), created, software };
}

/**
 * Verify an anonymous signature the way a browser-based verifier does: WebCrypto, SPKI import,
 * ECDSA/SHA-256 over the hash string, P1363 signature. The curve is read from the key.
 */
export async function verifyAnonymousSignature(s: Pick<SignedData, 'hash' | 'signature' | 'publicKey'>): Promise<boolean> {
  const spki = Buffer.from(s.publicKey, 'base64');
  let curve: string | undefined;
  try {
    curve = crypto.createPublicKey({ key: spki, format: 'der', type: 'spki' }).asymmetricKeyDetails?.namedCurve;
  } catch {
    return false;
  }
  const named = curve ? CURVES[curve]?.webCrypto : undefined;
  if (!named) return false;
  const key = await crypto.subtle.importKey('spki', spki, { name: 'ECDSA', namedCurve: named }, false, ['verify']);
  return crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, Buffer.from(s.signature, 'base64'), new TextEncoder().encode(s.hash));
}
