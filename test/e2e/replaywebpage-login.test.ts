/**
 * ReplayWeb.page shows what a crawl behind a login archived (issue 36): the login fixture crawled
 * with a profile (HTTP fetcher), exported as a WACZ with `redactCredentials` (the shared form of
 * such an archive: the session token is in none of its bytes), the site shut, and the package
 * opened in ReplayWeb.page in Chromium (as replaywebpage.test.ts drives it): a member-only page
 * is listed and replays with its member-only text and its member-only image decoded.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import { openArchive } from '../../core/archive/archive-dir.ts';
import { exportWacz } from '../../core/export/export-wacz.ts';
import { ProfileStore, profilesDirOf } from '../../core/storage/profile-store.ts';
import { MEMBER_TEXT, startLoginSite, type LoginSite } from '../fixtures/login-site.ts';
import { CHROMIUM_ARGS, findChromium, NO_CHROMIUM_MESSAGE } from './harness.ts';
import { serveReplayWebPage, type ReplayWebPageServer } from './replaywebpage-server.ts';

const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);

describe.skipIf(!chromium)('ReplayWeb.page replays a WACZ of a crawl made with a profile (Chromium)', () => {
  let site: LoginSite;
  let root: string;
  let wacz: string;
  let sid: string;
  let page1: string;
  let browser: Browser;
  let server: ReplayWebPageServer;

  beforeAll(async () => {
    site = await startLoginSite({ memberPages: 1 });
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-rwp-login-'));
    const profiles = profilesDirOf(path.join(root, 'library'));
    sid = await site.login();
    new ProfileStore(profiles).save('members', { cookies: [{ name: 'sid', value: sid, domain: '127.0.0.1', path: '/', expires: -1, secure: false, httpOnly: true }], origins: [] });
    const dir = path.join(root, 'crawl');
    const settings = { seeds: [`${site.origin}/members/`], scope: 'host' as const, profile: 'members', delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0 };
    await (await startCrawl({ dir, settings, profilesDir: profiles })).finished();
    page1 = `${site.origin}/members/page-1.html`;
    wacz = path.join(root, 'members.wacz');
    const a = openArchive(dir, { create: false });
    try {
      expect((await exportWacz(a, wacz, { redactCredentials: true })).redacted).toBeGreaterThan(0);
    } finally {
      a.close();
    }
    await site.close();
    server = await serveReplayWebPage();
    const { chromium: pw } = await import('playwright-core');
    browser = await pw.launch({ executablePath: chromium!, args: CHROMIUM_ARGS });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('lists the member pages and replays one with its member-only text and image', async () => {
    // The session token is in none of the package's entries (WARC members inflated).
    for (const entry of spawnSync('unzip', ['-Z1', wacz], { encoding: 'utf8' }).stdout.trim().split('\n')) {
      const raw = spawnSync('unzip', ['-p', wacz, entry], { maxBuffer: 1 << 28 }).stdout as Buffer;
      expect((entry.endsWith('.gz') ? zlib.gunzipSync(raw) : raw).includes(Buffer.from(sid)), entry).toBe(false);
    }
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    try {
      const page = await context.newPage();
      await page.goto(`${server.origin}/?source=${encodeURIComponent(server.addWacz('members.wacz', wacz))}#view=pages`);
      const entry = page.locator('wr-page-entry').filter({ has: page.locator(`keyword-mark[title="${page1}"]`) });
      await expect.poll(() => entry.count(), { timeout: 30_000 }).toBe(1);
      await entry.locator('a').first().click();
      let frame = page.frames().find(() => false);
      await expect.poll(() => (frame = page.frames().find((f) => f.url().endsWith('mp_/' + page1))) !== undefined, { timeout: 30_000 }).toBe(true);
      await frame!.waitForFunction(() => document.readyState === 'complete' && [...document.images].every((i) => i.complete), undefined, { timeout: 30_000 });
      expect(await frame!.locator('body').innerText()).toContain(MEMBER_TEXT);
      // The member-only image came out of the package (decoded, not the 401 a logged-out visitor gets).
      expect(await frame!.evaluate(() => [...document.images].map((i) => i.naturalWidth))).toEqual([1]);
    } finally {
      await context.close();
    }
  }, 90_000);
});
