/**
 * A signed WACZ from the app (`export.run` with `sign`, through the gate and the export worker):
 * the app makes its own key at the first signed export — P-384, the curve ReplayWeb.page
 * verifies (test/e2e/replaywebpage.test.ts reads ReplayWeb.page's verdict on it) — keeps it
 * private in the library folder and signs every later package with it; a P-256 key put in its
 * place still signs, and the export result carries the one-line warning that ReplayWeb.page will
 * not verify it.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppService, type AppService } from '../../core/app/app-service.ts';
import { dispatch } from '../../core/app/gate.ts';
import { SIGNING_KEY_FILE } from '../../core/app/signing-key.ts';
import type { ExportResult } from '../../core/api/app-types.ts';
import { loadSigningKey, MAKE_SIGNING_KEY_COMMAND, signingKeyWarning, verifyAnonymousSignature } from '../../core/archive/wacz-sign.ts';
import { crawlFixture, type CrawledArchive } from '../export/export-fixture.ts';
import { readZip } from '../export/independent-zip-readers.ts';

let c: CrawledArchive;
let libraryDir: string;
let service: AppService;
let id: string;

const call = <T = unknown>(name: string, payload?: unknown) => dispatch(service.handlers, name, payload) as Promise<{ ok: boolean; value: T; error: { code: string; message: string } }>;

beforeAll(async () => {
  c = await crawlFixture('app-sign');
  libraryDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-lib-sign-'));
  service = createAppService({ libraryDir, emit: () => undefined });
  const warcs = path.join(c.dir, 'warcs');
  const r = await call<{ id: string }>('library.import', { files: fs.readdirSync(warcs).map((n) => path.join(warcs, n)), copy: true, name: 'Signed' });
  expect(r.ok, JSON.stringify(r.error)).toBe(true);
  id = r.value.id;
}, 60_000);

afterAll(async () => {
  await service?.close();
  await c?.cleanup();
  if (libraryDir) fs.rmSync(libraryDir, { recursive: true, force: true });
});

async function signedData(file: string): Promise<{ hash: string; signature: string; publicKey: string; created: string; software: string }> {
  const digest = JSON.parse((await readZip(file)).find((e) => e.name === 'datapackage-digest.json')!.data.toString('utf8'));
  return digest.signedData;
}

describe('signed WACZ exports from the app', () => {
  const keyFile = () => path.join(libraryDir, SIGNING_KEY_FILE);

  it('makes a P-384 key at the first signed export, private to its owner, and signs with it (no warning)', async () => {
    const unsigned = await call<ExportResult>('export.run', { archiveId: id, format: 'wacz' });
    expect(unsigned.ok, JSON.stringify(unsigned.error)).toBe(true);
    expect(fs.existsSync(keyFile())).toBe(false);
    expect(await signedData(unsigned.value.path)).toBeUndefined();

    const r = await call<ExportResult>('export.run', { archiveId: id, format: 'wacz', sign: true });
    expect(r.ok, JSON.stringify(r.error)).toBe(true);
    const key = loadSigningKey(fs.readFileSync(keyFile()));
    expect(key.asymmetricKeyDetails?.namedCurve).toBe('secp384r1');
    expect(fs.statSync(keyFile()).mode & 0o777).toBe(0o600);
    expect(r.value.warning).toBeUndefined();
    expect(r.value.summary.signature).toBe('P-384');
    const s = await signedData(r.value.path);
    expect(s.publicKey).toBe(crypto.createPublicKey(key).export({ type: 'spki', format: 'der' }).toString('base64'));
    // P1363 r‖s, 48 bytes each, as WebCrypto (and so ReplayWeb.page) verifies.
    expect(Buffer.from(s.signature, 'base64')).toHaveLength(96);
    expect(await verifyAnonymousSignature(s)).toBe(true);
    // The key is the library's, not an entry.
    expect((await call<{ id: string }[]>('library.list')).value.map((e) => e.id)).toEqual([id]);
  });

  it('signs every later export with the same key', async () => {
    const before = fs.readFileSync(keyFile(), 'utf8');
    const r = await call<ExportResult>('export.run', { archiveId: id, format: 'wacz', sign: true });
    expect(r.ok, JSON.stringify(r.error)).toBe(true);
    expect(fs.readFileSync(keyFile(), 'utf8')).toBe(before);
    expect((await signedData(r.value.path)).publicKey).toBe(crypto.createPublicKey(before).export({ type: 'spki', format: 'der' }).toString('base64'));
  });

  it('signs with a P-256 key put in its place, and the result warns that ReplayWeb.page will not verify it', async () => {
    const p256 = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' });
    fs.writeFileSync(keyFile(), p256);
    const r = await call<ExportResult>('export.run', { archiveId: id, format: 'wacz', sign: true });
    expect(r.ok, JSON.stringify(r.error)).toBe(true);
    expect(r.value.summary.signature).toBe('P-256');
    expect(r.value.warning).toBe(signingKeyWarning(loadSigningKey(p256)));
    expect(r.value.warning).toMatch(/^the signing key is ECDSA P-256: .*ReplayWeb\.page verifies only P-384 keys/);
    expect(r.value.warning).toContain(MAKE_SIGNING_KEY_COMMAND);
    expect(r.value.warning).not.toContain('\n');
    expect(await verifyAnonymousSignature(await signedData(r.value.path))).toBe(true);
  });

  it('refuses a key file that is not a key, with its code', async () => {
    fs.writeFileSync(keyFile(), 'not a key');
    const r = await call<ExportResult>('export.run', { archiveId: id, format: 'wacz', sign: true });
    expect(r.ok).toBe(false);
    expect(r.error.code).toBe('EXPORT_SIGN_KEY_INVALID');
  });
});
