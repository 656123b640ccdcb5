/**
 * Crawling behind a login with the HTTP fetcher only (issue 36), with the real CLI against the
 * login fixture site (test/fixtures/login-site.ts):
 *
 * - `--cookies FILE` (a Netscape cookies.txt with the `#HttpOnly_` prefix) and `--profile NAME`:
 *   every member-only page and resource is archived (read back with warcio);
 * - without a login none is, the crawl says why (the site's login wall) and how to give it one,
 *   and the log-out guard keeps every log-out URL unrequested (the
 *   server's log) in all three crawls;
 * - `--save-profile` keeps the cookies the site set during the crawl.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatCookiesTxt } from '../../core/formats/cookies-txt.ts';
import { ProfileStore, profilesDirOf } from '../../core/storage/profile-store.ts';
import { startLoginSite, MEMBER_TEXT, type LoginSite } from '../fixtures/login-site.ts';
import { readWarcDir, type ReadRecord } from '../helpers/read-warcs.ts';
import { runTrove } from '../helpers/trove-cli.ts';

const fast = ['--delay-factor', '0', '--min-delay-ms', '0', '--max-delay-ms', '0', '--min-free-disk', '0', '--no-progress', '--scope', 'host'];

/** URLs archived with a 200 (identical images are revisits of the first). */
function archived(records: ReadRecord[]): Set<string> {
  return new Set(records.filter((r) => (r.type === 'response' || r.type === 'revisit') && r.status === 200).map((r) => r.targetUri!));
}

function noLogoutRequested(site: LoginSite): void {
  const hits = site.requests.filter((r) => r.path.startsWith('/logout') || r.path.startsWith('/account/sign-out') || /action=logoff/.test(r.path));
  expect(hits.map((r) => `${r.method} ${r.path}`)).toEqual([]);
}

describe('crawling behind a login, HTTP only (real CLI)', () => {
  let site: LoginSite;
  let tmp: string;
  beforeAll(async () => {
    site = await startLoginSite({ memberPages: 3 });
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-login-http-'));
  });
  afterAll(async () => {
    await site.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('without a login, no member-only page is archived and no log-out URL is requested', async () => {
    const dir = path.join(tmp, 'none');
    const r = await runTrove(['crawl', `${site.origin}/members/`, '--out', dir, ...fast]);
    expect(r.code, r.stderr).toBe(0);
    // The crawl says why: the seed answered with a redirect to the login page.
    expect(r.stderr).toMatch(/\/members\/: redirected to the login page \/login; pages behind a login are not archived without one: crawl with --profile NAME/);
    const got = archived(await readWarcDir(path.join(dir, 'warcs')));
    for (const u of site.memberUrls()) expect(got.has(u), u).toBe(false);
    noLogoutRequested(site);
  }, 60_000);

  it('--cookies: every member-only page and resource is archived; log-out URLs are never requested', async () => {
    const sid = await site.login();
    const file = path.join(tmp, 'cookies.txt');
    const host = new URL(site.origin).hostname;
    fs.writeFileSync(file, formatCookiesTxt([{ name: 'sid', value: sid, domain: host, path: '/', expires: -1, secure: false, httpOnly: true }]));
    expect(fs.readFileSync(file, 'utf8')).toContain('#HttpOnly_127.0.0.1');
    site.requests.length = 0;
    const dir = path.join(tmp, 'cookies');
    const r = await runTrove(['crawl', `${site.origin}/members/`, '--out', dir, '--cookies', file, ...fast]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/logged in: 1 cookies from .*cookies\.txt/);
    const records = await readWarcDir(path.join(dir, 'warcs'));
    const got = archived(records);
    for (const u of site.memberUrls()) expect(got.has(u), u).toBe(true);
    const soft = records.find((x) => x.type === 'response' && x.targetUri === `${site.origin}/members/soft.html`)!;
    expect(soft.payload.toString()).toContain(MEMBER_TEXT);
    // The request records hold what was sent: the session cookie (redaction is opt-in).
    const sent = records.filter((x) => x.type === 'request' && x.targetUri === `${site.origin}/members/`).map((x) => x.httpHeaders.find(([k]) => k === 'Cookie')?.[1]);
    expect(sent).toEqual([`sid=${sid}`]);
    noLogoutRequested(site);
    expect(site.sessions()).toContain(sid);
    // The log-out links were seen and refused by the guard, with the rule named in scope.log.
    const scopeLog = fs.readFileSync(path.join(dir, 'logs', 'scope.log'), 'utf8');
    expect(scopeLog).toMatch(/logout-guard .*\/logout/);
    expect(scopeLog).toMatch(/logout-guard .*action=logoff/);
  }, 60_000);

  it('--profile (HTTP only) sends the profile cookies; --save-profile keeps what the site set', async () => {
    const sid = await site.login();
    const library = path.join(tmp, 'library');
    const store = new ProfileStore(profilesDirOf(library));
    store.save('members', { cookies: [{ name: 'sid', value: sid, domain: '127.0.0.1', path: '/', expires: -1, secure: false, httpOnly: true }], origins: [] }, { url: `${site.origin}/login` });
    site.requests.length = 0;
    const dir = path.join(tmp, 'profile');
    // The login page sets a `pre` cookie: the refreshed profile keeps it.
    const r = await runTrove(['crawl', `${site.origin}/members/`, `${site.origin}/login`, '--out', dir, '--profile', 'members', '--save-profile', ...fast], { TROVE_LIBRARY: library });
    expect(r.code, r.stderr).toBe(0);
    const got = archived(await readWarcDir(path.join(dir, 'warcs')));
    for (const u of site.memberUrls()) expect(got.has(u), u).toBe(true);
    noLogoutRequested(site);
    const names = store.state('members').cookies.map((c) => c.name).sort();
    expect(names).toEqual(['pre', 'sid']);
    const mode = (p: string) => fs.statSync(p).mode & 0o777;
    expect(mode(path.join(profilesDirOf(library), 'members'))).toBe(0o700);
    expect(mode(path.join(profilesDirOf(library), 'members', 'state.json'))).toBe(0o600);
  }, 60_000);

  it('an unknown profile or a bad cookies file is refused (exit 2, the reason named)', async () => {
    const r1 = await runTrove(['crawl', `${site.origin}/members/`, '--out', path.join(tmp, 'bad1'), '--profile', 'nobody', ...fast], { TROVE_LIBRARY: path.join(tmp, 'empty-lib') });
    expect(r1.code).toBe(2);
    expect(r1.stderr).toMatch(/no profile named nobody/);
    const bad = path.join(tmp, 'bad.txt');
    fs.writeFileSync(bad, '127.0.0.1\tFALSE\t/\n');
    const r2 = await runTrove(['crawl', `${site.origin}/members/`, '--out', path.join(tmp, 'bad2'), '--cookies', bad, ...fast]);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toMatch(/bad\.txt line 1: 3 fields/);
  }, 60_000);
});
