/**
 * `--logged-in-check` (issue 36), with the real CLI: the fixture's session ends after a few
 * requests in the middle of an HTTP crawl made with a profile. The crawl pauses (the CLI stops,
 * exit 1, saying how to go on) within the next page, the logged-out responses are in crawl.log
 * with their own outcome (−7002) and nothing of them is archived; after the profile is refreshed
 * (a new login saved over it), `trove resume` finishes with every member page archived exactly
 * once. The check's selector form is tested on its own.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Outcome } from '../../core/api/outcome-codes.ts';
import { parseSelector } from '../../core/crawl/logged-in-check.ts';
import { ProfileStore, profilesDirOf } from '../../core/storage/profile-store.ts';
import { SIGNED_IN_TEXT, startLoginSite, type LoginSite } from '../fixtures/login-site.ts';
import { readWarcDir } from '../helpers/read-warcs.ts';
import { runTrove } from '../helpers/trove-cli.ts';

const fast = ['--delay-factor', '0', '--min-delay-ms', '0', '--max-delay-ms', '0', '--min-free-disk', '0', '--no-progress', '--scope', 'host', '--concurrency', '1'];

describe('parseSelector', () => {
  it('reads compound selectors, and plain words as text', () => {
    expect(parseSelector('#account-menu')).toEqual({ tag: null, id: 'account-menu', classes: [], attrs: [] });
    expect(parseSelector('div.user.on[data-x="1"]')).toEqual({ tag: 'div', id: null, classes: ['user', 'on'], attrs: [{ name: 'data-x', value: '1' }] });
    expect(parseSelector('Signed in as archivist')).toBeNull();
    expect(parseSelector('Logout')).toBeNull();
  });
});

describe('--logged-in-check: a session that ends mid-crawl (real CLI)', () => {
  let site: LoginSite;
  let tmp: string;
  beforeAll(async () => {
    site = await startLoginSite({ memberPages: 5, sessionRequests: 4 });
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-logged-in-'));
  });
  afterAll(async () => {
    await site.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('pauses within the next page, logs the logged-out pages, and resume after a refresh archives every page once', async () => {
    const library = path.join(tmp, 'library');
    const store = new ProfileStore(profilesDirOf(library));
    const save = async () => store.save('members', { cookies: [{ name: 'sid', value: await site.login(), domain: '127.0.0.1', path: '/', expires: -1, secure: false, httpOnly: true }], origins: [] }, { url: `${site.origin}/login` });
    await save();
    const dir = path.join(tmp, 'crawl');
    const env = { TROVE_LIBRARY: library };
    const first = await runTrove(['crawl', `${site.origin}/members/`, '--out', dir, '--profile', 'members', '--logged-in-check', SIGNED_IN_TEXT, ...fast], env);
    expect(first.code, first.stderr).toBe(1);
    expect(first.stderr).toMatch(/paused: logged out \(http:\/\/127\.0\.0\.1:\d+\/\S+: /);
    expect(first.stderr).toMatch(/then: trove resume /);
    // Within the next page: one request was made with the ended session, and no other after it.
    const stale = site.requests.filter((r) => r.sid !== null && !r.loggedIn);
    expect(stale.length).toBe(1);
    const log = fs.readFileSync(path.join(dir, 'logs', 'crawl.log'), 'utf8').trim().split('\n');
    const out = log.filter((l) => l.split(/\s+/)[1] === String(Outcome.LOGGED_OUT));
    expect(out.length).toBe(1);
    expect(out[0]).toContain(stale[0]!.path.split('?')[0]);
    const before = await readWarcDir(path.join(dir, 'warcs'));
    expect(before.filter((r) => r.type === 'response' && (r.status === 401 || r.status === 302)).map((r) => r.targetUri)).toEqual([]);

    // The archivist logs in again (the profile refreshed); the session now lasts.
    site.setSessionRequests(0);
    await save();
    const resumed = await runTrove(['resume', dir, '--no-progress'], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const records = await readWarcDir(path.join(dir, 'warcs'));
    const count = new Map<string, number>();
    for (const r of records) if ((r.type === 'response' || r.type === 'revisit') && r.status === 200) count.set(r.targetUri!, (count.get(r.targetUri!) ?? 0) + 1);
    for (const u of site.memberUrls()) expect(count.get(u), u).toBe(1);
    // Nothing logged-out was archived, and no log-out URL was ever asked for.
    expect(records.filter((r) => r.type === 'response' && r.status !== 200 && r.targetUri!.includes('/members/')).map((r) => `${r.status} ${r.targetUri}`)).toEqual([]);
    expect(site.requests.filter((r) => /logout|sign-out|logoff/.test(r.path))).toEqual([]);
  }, 120_000);
});
