/**
 * The app's own WACZ signing key: one per library, so every package the app signs shows the same
 * public key. Made at the first signed export as P-384 (the curve ReplayWeb.page verifies, see
 * archive/wacz-sign.ts), PKCS#8 PEM readable only by its owner, in a dot-file of the library
 * folder (never a library entry: ids start with a letter or digit). A key already there is used
 * as it is — a user may put their own in its place — and never overwritten.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createSigningKeyPem } from '../archive/wacz-sign.ts';

export const SIGNING_KEY_FILE = '.trove-signing-key.pem';

/** The library's signing key file, made (P-384) when there is none yet. */
export function appSigningKeyFile(libraryDir: string): string {
  const file = path.join(libraryDir, SIGNING_KEY_FILE);
  try {
    // 'wx': two exports asking at once, or a key put there meanwhile, keep the first key.
    fs.writeFileSync(file, createSigningKeyPem(), { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return file;
}
