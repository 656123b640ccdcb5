/**
 * Archiving behind a login from the app (issue 36), in Chromium through the harness: the
 * archivist logs in to the login fixture site in the Record window, saves that session as a
 * profile ("Save this session as a profile"), then starts a crawl of the member pages from the
 * New crawl form with that profile chosen in the Login card. The profile's files are owner-only,
 * and every member page is archived (warcio) with no log-out URL requested.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { findChromium, NO_CHROMIUM_MESSAGE, startAppSession, type AppSession, type Harness } from './harness.ts';
import { recordTabs, type RecordTabs } from './record-tab.ts';
import { LOGIN_PASSWORD, LOGIN_USER, startLoginSite, type LoginSite } from '../fixtures/login-site.ts';
import { ProfileStore, profilesDirOf } from '../../core/storage/profile-store.ts';
import { readWarcDir } from '../helpers/read-warcs.ts';

const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);

describe.skipIf(!chromium)('a login saved from the Record window, used by a crawl from the New crawl form', () => {
  let session: AppSession;
  let tabs: RecordTabs;
  let site: LoginSite;
  let app: Harness;
  let page: Page;
  let libraryDir: string;
  const byTestId = (tid: string) => page.getByTestId(tid);

  beforeAll(async () => {
    site = await startLoginSite({ memberPages: 2 });
    tabs = recordTabs(chromium!);
    session = await startAppSession({ chromium: chromium!, viewport: { width: 1280, height: 800 }, openRecordTab: () => tabs.open() });
    ({ app, page, libraryDir } = session);
  }, 120_000);

  afterAll(async () => {
    await Promise.resolve(app?.service.handlers['record.stop']({})).catch(() => {});
    await session?.close();
    await tabs?.close();
    await site?.close();
  });

  it('saves the Record window session as a profile, and a crawl started with it archives the member pages', async () => {
    await byTestId('nav-record').click();
    await byTestId('record-name').fill('Login visit');
    await byTestId('record-url').fill(`${site.origin}/login`);
    await byTestId('record-start').click();
    await expect.poll(async () => ((await byTestId('record-error').count()) ? await byTestId('record-error').textContent() : await byTestId('recording-indicator').count()), { timeout: 60_000 }).toBe(1);
    const tab = tabs.page()!;
    await tab.waitForSelector('#username', { timeout: 30_000 });
    await tab.fill('#username', LOGIN_USER);
    await tab.fill('#password', LOGIN_PASSWORD);
    await Promise.all([tab.waitForURL(`${site.origin}/members/`, { timeout: 30_000 }), tab.click('#submit')]);

    await byTestId('record-profile-name').fill('members');
    await byTestId('record-save-profile').click();
    await expect.poll(() => byTestId('record-profile-saved').textContent(), { timeout: 10_000 }).toMatch(/Saved profile members: \d+ cookies for 127\.0\.0\.1/);
    await byTestId('record-stop').click();

    const store = new ProfileStore(profilesDirOf(libraryDir));
    const sid = store.state('members').cookies.find((c) => c.name === 'sid')!;
    expect(sid.httpOnly).toBe(true);
    expect(site.sessions()).toContain(sid.value);
    expect(fs.statSync(path.join(profilesDirOf(libraryDir), 'members', 'state.json')).mode & 0o777).toBe(0o600);

    await byTestId('nav-new-crawl').click();
    await byTestId('crawl-name').fill('Members');
    await byTestId('seeds-input').fill(`${site.origin}/members/`);
    await expect.poll(() => byTestId('login-profile').locator('option').allTextContents(), { timeout: 10_000 }).toContainEqual(expect.stringMatching(/^members · \d+ cookies/));
    await byTestId('login-profile').selectOption('members');
    await byTestId('login-check').fill('Signed in as archivist');
    await expect.poll(() => byTestId('start-crawl').isEnabled(), { timeout: 10_000 }).toBe(true);
    site.requests.length = 0;
    await byTestId('start-crawl').click();
    await expect.poll(() => byTestId('crawl-state').getAttribute('data-state'), { timeout: 60_000 }).toBe('finished');

    const dir = path.join(libraryDir, 'Members');
    const records = await readWarcDir(path.join(dir, 'warcs'));
    const ok = new Set(records.filter((r) => (r.type === 'response' || r.type === 'revisit') && r.status === 200).map((r) => r.targetUri));
    for (const u of site.memberUrls()) expect(ok.has(u), u).toBe(true);
    expect(site.requests.filter((r) => /logout|sign-out|logoff/.test(r.path))).toEqual([]);
  }, 300_000);
});
