/**
 * Signing from the Export dialog, in Chromium: "Sign with this library's key" makes the library's
 * P-384 key at the first signed export and the saved WACZ carries its signature; with a P-256 key
 * put in its place the dialog shows, under the result, the one line saying ReplayWeb.page will
 * not verify it and how to make a P-384 key. (ReplayWeb.page's own verdict on such packages is in
 * replaywebpage.test.ts.)
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { findChromium, NO_CHROMIUM_MESSAGE, startAppSession, type AppSession, type Harness } from './harness.ts';
import { startPacedSite, type PacedSite } from '../fixtures/paced-site.ts';
import { readZipEverywhere } from '../export/independent-zip-readers.ts';
import { SIGNING_KEY_FILE } from '../../core/app/signing-key.ts';
import { loadSigningKey, signingKeyWarning, verifyAnonymousSignature } from '../../core/archive/wacz-sign.ts';

const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);

describe.skipIf(!chromium)('Signed WACZ from the Export dialog, in Chromium', () => {
  let session: AppSession;
  let site: PacedSite;
  let app: Harness;
  let page: Page;
  let libraryDir: string;
  const byTestId = (tid: string) => page.getByTestId(tid);

  beforeAll(async () => {
    site = await startPacedSite({ pages: 4, delayMs: 0 });
    session = await startAppSession({ chromium: chromium!, viewport: { width: 1024, height: 700 } });
    ({ app, page, libraryDir } = session);
  }, 120_000);

  afterAll(async () => {
    await session?.close();
    await site?.close();
  });

  /** Export from the open dialog, the `n`th WACZ; its datapackage-digest.json once the dialog shows it saved. */
  async function exportSigned(id: string, n: number): Promise<{ signedData: { hash: string; signature: string; publicKey: string } }> {
    const dir = path.join(libraryDir, id, 'exports');
    const waczs = () => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.wacz')) : []);
    const before = new Set(waczs());
    await byTestId('export-run').click();
    // The file is there and the dialog says so (not the previous result: it is cleared when an export starts).
    await expect
      .poll(async () => waczs().length === n && (await byTestId('export-done').isVisible()) && (await byTestId('export-run').isEnabled()) && (await byTestId('export-done').textContent())!.includes(waczs().find((f) => !before.has(f))!), { timeout: 30_000 })
      .toBe(true);
    const file = path.join(dir, waczs().find((f) => !before.has(f))!);
    return JSON.parse((await readZipEverywhere(file)).find((e) => e.name === 'datapackage-digest.json')!.data.toString('utf8'));
  }

  it("signs with the library's P-384 key, and warns under the result when the key is P-256", async () => {
    const { id } = await app.service.handlers['crawl.start']({
      name: 'Signed',
      settings: { seeds: [`${site.origin}/`], politeness: 'fast', delayFactor: 0, minDelayMs: 0, maxDelayMs: 0 },
    });
    await expect.poll(async () => (await app.service.handlers['library.list']({})).find((e) => e.id === id)?.state, { timeout: 30_000 }).toBe('finished');
    await byTestId('nav-library').click();
    await byTestId(`browse-${id}`).click();
    await byTestId('export-button').click();
    await byTestId('export-wacz').click();
    await byTestId('export-sign').check();

    const keyFile = path.join(libraryDir, SIGNING_KEY_FILE);
    expect(fs.existsSync(keyFile)).toBe(false);
    const first = await exportSigned(id, 1);
    const key = loadSigningKey(fs.readFileSync(keyFile));
    expect(key.asymmetricKeyDetails?.namedCurve).toBe('secp384r1');
    expect(first.signedData.publicKey).toBe(crypto.createPublicKey(key).export({ type: 'spki', format: 'der' }).toString('base64'));
    expect(await verifyAnonymousSignature(first.signedData)).toBe(true);
    expect(await page.locator('[data-testid=export-done]').textContent()).toContain('P-384 signature');
    expect(await byTestId('export-warning').count()).toBe(0);

    const p256 = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' });
    fs.writeFileSync(keyFile, p256);
    const second = await exportSigned(id, 2);
    expect(await verifyAnonymousSignature(second.signedData)).toBe(true);
    await expect.poll(() => byTestId('export-warning').textContent()).toBe(signingKeyWarning(loadSigningKey(p256)));
  }, 120_000);
});
