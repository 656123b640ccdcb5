/**
 * `trove profile create` made without a person (issue 36): the real CLI opens its visible
 * Chromium under Xvfb (xvfb-run), and the test drives that window over DevTools
 * (TROVE_PROFILE_CDP_PORT, playwright-core's connectOverCDP) as a person would: fill the login
 * form (with its CSRF token), submit, close the window. Then the saved profile is used by
 * browser crawls (the script-loaded member feed archived) and listed, renamed and deleted; its
 * files are owner-only, and no profile content is in any WARC.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { profilesDirOf, ProfileStore } from '../../core/storage/profile-store.ts';
import { findChromium } from '../e2e/harness.ts';
import { FEED_TEXT, LOGIN_PASSWORD, LOGIN_USER, startLoginSite, type LoginSite } from '../fixtures/login-site.ts';
import { readWarcDir } from '../helpers/read-warcs.ts';
import { runTrove, troveBin } from '../helpers/trove-cli.ts';

const chromium = findChromium();
const xvfb = spawnSync('sh', ['-c', 'command -v xvfb-run']).status === 0;

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** The running `trove profile create`: its exit, and a wait for a line it writes to stderr. */
interface CreateRun {
  exited: Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** Resolves once stderr has a line matching `re`; rejects if the CLI exits first. */
  stderrLine(re: RegExp): Promise<void>;
}

function startCreate(args: string[], port: number): CreateRun {
  const child = spawn('xvfb-run', ['-a', process.execPath, troveBin, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TROVE_PROFILE_CDP_PORT: String(port) },
  });
  let stdout = '';
  let stderr = '';
  let done = false;
  const waiters = new Set<() => void>();
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => {
    stderr += d;
    for (const w of waiters) w();
  });
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => {
      done = true;
      for (const w of waiters) w();
      resolve({ code, stdout, stderr });
    }),
  );
  const stderrLine = (re: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (re.test(stderr)) resolve();
        else if (done) reject(new Error(`trove profile create exited without a line ${re}:\n${stderr}`));
        else return;
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });
  return { exited, stderrLine };
}

/**
 * Log in through the visible window of `trove profile create`, then close it. No time windows:
 * the CLI says when its window is open (DevTools listening, login page loaded), and it says
 * what each reading of the browser holds; the window is closed once a reading has the login's
 * `sid` cookie and the `theme` key set after it.
 */
async function logInThroughWindow(cli: CreateRun, port: number, site: LoginSite): Promise<void> {
  await cli.stderrLine(/^A browser window is open at /m);
  const { chromium: pw } = await import('playwright-core');
  const browser = await pw.connectOverCDP(`http://127.0.0.1:${port}`);
  const page = browser.contexts()[0]!.pages().find((p) => p.url().includes('/login'));
  if (!page) throw new Error(`no login page among ${browser.contexts()[0]!.pages().map((p) => p.url())}`);
  await page.waitForSelector('#username');
  await page.fill('#username', LOGIN_USER);
  await page.fill('#password', LOGIN_PASSWORD);
  await Promise.all([page.waitForURL(`${site.origin}/members/`), page.click('#submit')]);
  await page.evaluate(() => localStorage.setItem('theme', 'dark'));
  await cli.stderrLine(/^read: \d+ cookies? \([^)]*\bsid\b[^)]*\), \d+ storage keys? \([^)]*\btheme\b/m);
  await page.close();
}

describe.skipIf(!chromium || !xvfb)('trove profile create under Xvfb, driven over DevTools', () => {
  let site: LoginSite;
  let tmp: string;
  let library: string;
  beforeAll(async () => {
    site = await startLoginSite({ memberPages: 2 });
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-profile-'));
    library = path.join(tmp, 'library');
  });
  afterAll(async () => {
    await site.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('saves the login as a profile (0700/0600) that list, a browser crawl --profile, rename and delete use', async () => {
    const port = await freePort();
    const cli = startCreate(['profile', 'create', 'members', '--url', `${site.origin}/login`, '--library', library, '--browser-path', chromium!], port);
    await logInThroughWindow(cli, port, site);
    const r = await cli.exited;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/log in, then close the window/);
    expect(r.stdout).toMatch(/saved profile members: \d+ cookies/);

    const store = new ProfileStore(profilesDirOf(library));
    const state = store.state('members');
    const sid = state.cookies.find((c) => c.name === 'sid')!;
    expect(sid.httpOnly).toBe(true);
    expect(site.sessions()).toContain(sid.value);
    expect(r.stderr).not.toContain(sid.value); // the readings it showed name cookies, never their values
    expect(state.origins.find((o) => o.origin === site.origin)?.localStorage).toContainEqual(['theme', 'dark']);
    const dir = profilesDirOf(library);
    const modes: string[] = [];
    for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
      const p = path.join(e.parentPath, e.name);
      const m = fs.lstatSync(p).mode & 0o777;
      if (e.isDirectory() ? m !== 0o700 : e.isFile() && m !== 0o600) modes.push(`${p} ${m.toString(8)}`);
    }
    expect(modes).toEqual([]);

    const list = await runTrove(['profile', 'list', '--library', library]);
    expect(list.stdout).toMatch(/^members\t\d+ cookies\t127\.0\.0\.1\tsaved .*\tbrowser data\t/m);
    expect(list.stdout).not.toContain(sid.value);

    // A browser crawl whose tabs start from the profile: the script-loaded member feed is archived.
    const crawlDir = path.join(tmp, 'browser-crawl');
    site.requests.length = 0;
    const c = await runTrove(
      ['crawl', `${site.origin}/members/`, '--out', crawlDir, '--profile', 'members', '--browser', '--browser-path', chromium!, '--scope', 'host', '--delay-factor', '0', '--min-delay-ms', '0', '--max-delay-ms', '0', '--min-free-disk', '0', '--no-progress'],
      { TROVE_LIBRARY: library },
    );
    expect(c.code, c.stderr).toBe(0);
    const records = await readWarcDir(path.join(crawlDir, 'warcs'));
    const ok = new Set(records.filter((x) => (x.type === 'response' || x.type === 'revisit') && x.status === 200).map((x) => x.targetUri));
    for (const u of [...site.memberUrls(), `${site.origin}/members/api/feed.json`]) expect(ok.has(u), u).toBe(true);
    const feed = records.find((x) => x.type === 'response' && x.targetUri === `${site.origin}/members/api/feed.json`)!;
    expect(feed.payload.toString()).toContain(FEED_TEXT);
    expect(site.requests.filter((q) => /logout|sign-out|logoff/.test(q.path))).toEqual([]);
    // No profile file's content (the user-data-dir's state, the exported JSON) is in the WARCs.
    const warcBytes = Buffer.concat(fs.readdirSync(path.join(crawlDir, 'warcs')).map((n) => fs.readFileSync(path.join(crawlDir, 'warcs', n))));
    expect(warcBytes.includes(Buffer.from('"cookies":'))).toBe(false);

    expect((await runTrove(['profile', 'rename', 'members', 'club', '--library', library])).code).toBe(0);
    expect(store.list().map((p) => p.name)).toEqual(['club']);
    expect((await runTrove(['profile', 'delete', 'club', '--library', library])).code).toBe(0);
    expect(store.list()).toEqual([]);
    const gone = await runTrove(['profile', 'delete', 'club', '--library', library]);
    expect(gone.code).toBe(2);
    expect(gone.stderr).toMatch(/no profile named club/);
  }, 240_000);
});
