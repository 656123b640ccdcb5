/**
 * `--logged-in-check` and `--save-profile` for pages captured in Chromium (issue 36), with the
 * real CLI in browser mode against the login fixture: the session ends after a few requests in
 * the middle of the crawl. The check looks at the rendered page (a CSS selector the page shows
 * only when logged in) and at the page's loads (a 401 mid-page), so the crawl pauses (exit 1, the
 * reason, how to go on) within the next page, whose documents are not archived; crawl.log has its LOGGED_OUT line. After the profile
 * is refreshed (a new login saved over it), `trove resume` finishes with every member page
 * archived exactly once, and `--save-profile` leaves the profile holding what the tabs held: the
 * live session and the cookie and localStorage key the member script set (state the HTTP
 * fetcher never sees), still owner-only; with `--redact-credentials` neither session is in the
 * WARCs. Without a login no member page is archived and the crawl says why. In one process (the
 * app's way: paused, then resumed), the hard case (a 200 login form) fails the rendered check,
 * and after the refresh the tab already open is primed with the new session.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Outcome } from '../../core/api/outcome-codes.ts';
import { ProfileStore, profilesDirOf } from '../../core/storage/profile-store.ts';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import { findChromium } from '../e2e/harness.ts';
import { MEMBER_TEXT, SCRIPT_COOKIE, SIGNED_IN_SELECTOR, startLoginSite, type LoginSite } from '../fixtures/login-site.ts';
import { readWarcDir } from '../helpers/read-warcs.ts';
import { runTrove } from '../helpers/trove-cli.ts';

const chromium = findChromium();
const fast = ['--delay-factor', '0', '--min-delay-ms', '0', '--max-delay-ms', '0', '--min-free-disk', '0', '--no-progress', '--scope', 'host', '--concurrency', '1', '--browser-tabs', '1'];

describe.skipIf(!chromium)('--logged-in-check and --save-profile in browser capture (real CLI)', () => {
  let site: LoginSite;
  let tmp: string;
  beforeAll(async () => {
    site = await startLoginSite({ memberPages: 4, sessionRequests: 9 });
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-browser-login-'));
  });
  afterAll(async () => {
    await site.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('without a login, no member page is archived, the crawl says why, and no log-out URL is requested', async () => {
    const dir = path.join(tmp, 'none');
    const r = await runTrove(['crawl', `${site.origin}/members/`, '--out', dir, '--browser', '--browser-path', chromium!, ...fast]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/\/members\/: redirected to the login page \/login; pages behind a login are not archived without one/);
    const records = await readWarcDir(path.join(dir, 'warcs'));
    const ok = new Set(records.filter((x) => (x.type === 'response' || x.type === 'revisit') && x.status === 200).map((x) => x.targetUri));
    for (const u of site.memberUrls()) expect(ok.has(u), u).toBe(false);
    expect(site.requests.filter((q) => /logout|sign-out|logoff/.test(q.path))).toEqual([]);
  }, 60_000);

  it('pauses on the next rendered page without the marker; resume after a refresh archives every page once and saves the tabs\' state', async () => {
    const library = path.join(tmp, 'library');
    const store = new ProfileStore(profilesDirOf(library));
    const sids: string[] = [];
    const save = async () => store.save('members', { cookies: [{ name: 'sid', value: sids[sids.push(await site.login()) - 1]!, domain: '127.0.0.1', path: '/', expires: -1, secure: false, httpOnly: true }], origins: [] }, { url: `${site.origin}/login` });
    await save();
    const dir = path.join(tmp, 'crawl');
    const env = { TROVE_LIBRARY: library };
    const args = ['crawl', `${site.origin}/members/`, '--out', dir, '--browser', '--browser-path', chromium!, '--profile', 'members', '--logged-in-check', SIGNED_IN_SELECTOR, '--save-profile', '--redact-credentials', ...fast];
    const first = await runTrove(args, env);
    expect(first.code, first.stderr).toBe(1);
    // Where the session ends decides the reason: the page's own navigation (redirected to the login
    // form, so the rendered page lacks the marker) or one of its loads (a 401 mid-page).
    expect(first.stderr).toMatch(/paused: logged out \(http:\/\/127\.0\.0\.1:\d+\/members\/\S*: (no element matches #account-menu in the rendered page|\S+ \(loaded by the page\): the server answered 401)/);
    // Within the next page: after the first request with the ended session, at most one member page was asked for.
    const firstStale = site.requests.findIndex((r) => r.sid !== null && !r.loggedIn);
    expect(firstStale).toBeGreaterThan(0);
    const isPage = (p: string) => p.startsWith('/members/') && /\.html$|\/$/.test(p.split('?')[0]!);
    expect(new Set(site.requests.slice(firstStale).filter((r) => isPage(r.path)).map((r) => r.path)).size).toBeLessThanOrEqual(1);
    const log = fs.readFileSync(path.join(dir, 'logs', 'crawl.log'), 'utf8').trim().split('\n');
    const out = log.filter((l) => l.split(/\s+/)[1] === String(Outcome.LOGGED_OUT));
    expect(out.length).toBe(1);
    // The logged-out page left no document in the WARCs (no redirect to the login page, no login form).
    const before = await readWarcDir(path.join(dir, 'warcs'));
    // The pages before it showed the marker as rendered, and were archived.
    expect(before.some((r) => r.type === 'response' && r.status === 200 && r.targetUri === `${site.origin}/members/`)).toBe(true);
    expect(before.filter((r) => r.type === 'response' && (r.status === 302 || r.targetUri!.includes('/login'))).map((r) => `${r.status} ${r.targetUri}`)).toEqual([]);

    site.setSessionRequests(0);
    await save();
    const resumed = await runTrove(['resume', dir, '--no-progress'], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const records = await readWarcDir(path.join(dir, 'warcs'));
    const count = new Map<string, number>();
    for (const r of records) if ((r.type === 'response' || r.type === 'revisit') && r.status === 200) count.set(r.targetUri!, (count.get(r.targetUri!) ?? 0) + 1);
    const pages = site.memberUrls().filter((u) => /\.html$|\/$/.test(u));
    for (const u of pages) expect(count.get(u), u).toBe(1);
    for (const u of site.memberUrls()) expect(count.get(u) ?? 0, u).toBeGreaterThan(0);
    expect(records.filter((r) => r.type === 'response' && r.status !== 200 && /\.html$|\/$/.test(r.targetUri!)).map((r) => `${r.status} ${r.targetUri}`)).toEqual([]);
    expect(site.requests.filter((r) => /logout|sign-out|logoff/.test(r.path))).toEqual([]);

    // --redact-credentials in the browser's request records too: neither session is in the WARCs' bytes.
    const bytes = Buffer.concat(fs.readdirSync(path.join(dir, 'warcs')).map((n) => zlib.gunzipSync(fs.readFileSync(path.join(dir, 'warcs', n)))));
    for (const sid of sids) expect(bytes.includes(Buffer.from(sid))).toBe(false);

    // --save-profile: the tabs' state, the script's cookie and localStorage key with the live session.
    const state = store.state('members');
    const names = state.cookies.map((c) => c.name);
    expect(names).toContain(SCRIPT_COOKIE);
    expect(site.sessions()).toContain(state.cookies.find((c) => c.name === 'sid')!.value);
    const origin = state.origins.find((o) => o.origin === site.origin);
    expect(origin?.localStorage.map(([k]) => k)).toContain(SCRIPT_COOKIE);
    expect(fs.statSync(path.join(profilesDirOf(library), 'members', 'state.json')).mode & 0o777).toBe(0o600);
  }, 180_000);

  it('in one process (as the app runs it): a 200 login form fails the rendered check; resumed after the refresh, the open tab carries the new session', async () => {
    const profilesDir = profilesDirOf(path.join(tmp, 'library-app'));
    const store = new ProfileStore(profilesDir);
    const save = async () => store.save('members', { cookies: [{ name: 'sid', value: await site.login(), domain: '127.0.0.1', path: '/', expires: -1, secure: false, httpOnly: true }], origins: [] }, { url: `${site.origin}/login` });
    await save();
    // The profile's session has ended before the crawl: the hard case answers its login form with a 200.
    site.expireAll();
    const dir = path.join(tmp, 'app-crawl');
    const settings = { seeds: [`${site.origin}/members/soft.html`], scope: 'host' as const, profile: 'members', loggedInCheck: SIGNED_IN_SELECTOR, concurrency: 1, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, browser: { enabled: true, tabs: 1, path: chromium! } };
    const crawl = await startCrawl({ dir, settings, profilesDir });
    await new Promise<void>((resolve) => {
      if (crawl.state === 'paused') return resolve();
      const off = crawl.on((e) => {
        if (e.type === 'snapshot' && e.snapshot.state === 'paused') {
          off();
          resolve();
        }
      });
    });
    expect(crawl.snapshot().message).toMatch(/logged out \(\S+\/members\/soft\.html: no element matches #account-menu in the rendered page\)/);
    await save();
    crawl.resume();
    // A tab still on the ended session would pause the crawl again at once: fail then, not at the timeout.
    const pausedAgain = new Promise<never>((_, reject) => {
      const off = crawl.on((e) => {
        if (e.type === 'snapshot' && e.snapshot.state === 'paused') {
          off();
          crawl.stop({ now: true });
          reject(new Error(`paused again after the refresh: ${e.snapshot.message}`));
        }
      });
    });
    const final = await Promise.race([crawl.finished(), pausedAgain]);
    expect(final.state).toBe('finished');
    const records = await readWarcDir(path.join(dir, 'warcs'));
    const count = new Map<string, number>();
    for (const r of records) if ((r.type === 'response' || r.type === 'revisit') && r.status === 200) count.set(r.targetUri!, (count.get(r.targetUri!) ?? 0) + 1);
    expect(count.get(`${site.origin}/members/soft.html`)).toBe(1);
    const soft = records.find((r) => r.type === 'response' && r.targetUri === `${site.origin}/members/soft.html`)!;
    expect(soft.payload.toString()).toContain(MEMBER_TEXT);
  }, 120_000);
});
