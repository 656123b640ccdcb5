/**
 * A throwaway self-signed certificate for https tests, made at test time with the openssl CLI
 * (so no private key is ever committed). Test-only: never use it for anything else.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TestCert {
  key: Buffer;
  cert: Buffer;
}

export function makeSelfSignedCert(): TestCert {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-cert-'));
  try {
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=localhost'],
      { stdio: 'ignore', timeout: 20_000 },
    );
    return { key: fs.readFileSync(key), cert: fs.readFileSync(cert) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
