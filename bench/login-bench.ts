/**
 * Issue 36's line in the bench: the login fixture (test/fixtures/login-site.ts) with `--pages`
 * member pages (default 200), crawled by the real CLI (bin/trove.js, HTTP only, 4 connections, no
 * delays) without a login and with a profile. Printed for each: member pages and member
 * resources archived (read back with warcio), log-out URLs the server saw requested (must be 0),
 * HTML pages archived per second of the whole process's wall time, and the load average. What a
 * login costs per page is the cookie jar's lookup and keep per request (fetch-http.ts).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ProfileStore, profilesDirOf } from '../core/storage/profile-store.ts';
import { startLoginSite, type LoginSite } from '../test/fixtures/login-site.ts';
import { readWarcDir } from '../test/helpers/read-warcs.ts';
import { troveBin } from '../test/helpers/trove-cli.ts';

const arg = (name: string, dflt: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? dflt);
const PAGES = arg('pages', 200);

function trove(args: string[], env: Record<string, string>): Promise<{ code: number | null; ms: number; stderr: string }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [troveBin, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, ms: performance.now() - t0, stderr }));
  });
}

async function crawl(site: LoginSite, tmp: string, name: string, login: string[], env: Record<string, string>): Promise<string> {
  const dir = path.join(tmp, name);
  site.requests.length = 0;
  const r = await trove(
    ['crawl', `${site.origin}/members/`, '--out', dir, ...login, '--scope', 'host', '--concurrency', '4', '--delay-factor', '0', '--min-delay-ms', '0', '--max-delay-ms', '0', '--min-free-disk', '0', '--no-progress'],
    env,
  );
  if (r.code !== 0) throw new Error(`${name} crawl failed (${r.code}): ${r.stderr}`);
  const records = await readWarcDir(path.join(dir, 'warcs'));
  const ok = new Set(records.filter((x) => (x.type === 'response' || x.type === 'revisit') && x.status === 200).map((x) => x.targetUri!));
  const member = site.memberUrls();
  const memberPages = member.filter((u) => /\.html$|\/$/.test(u));
  const pagesArchived = records.filter((x) => x.type === 'response' && x.status === 200 && x.httpHeaders.some(([k, v]) => k.toLowerCase() === 'content-type' && v.startsWith('text/html'))).length;
  const logouts = site.requests.filter((q) => q.path.startsWith('/logout') || q.path.startsWith('/account/sign-out') || /action=logoff/.test(q.path)).length;
  const cols = [
    name.padEnd(12),
    `${memberPages.filter((u) => ok.has(u)).length}/${memberPages.length}`.padStart(9),
    `${member.filter((u) => !memberPages.includes(u) && ok.has(u)).length}/${member.length - memberPages.length}`.padStart(9),
    String(logouts).padStart(8),
    String(pagesArchived).padStart(6),
    (pagesArchived / (r.ms / 1000)).toFixed(1).padStart(8),
    `${(r.ms / 1000).toFixed(2)} s`.padStart(9),
  ];
  return cols.join('  ');
}

const site = await startLoginSite({ memberPages: PAGES });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-login-bench-'));
try {
  const library = path.join(tmp, 'library');
  new ProfileStore(profilesDirOf(library)).save('members', { cookies: [{ name: 'sid', value: await site.login(), domain: '127.0.0.1', path: '/', expires: -1, secure: false, httpOnly: true }], origins: [] });
  const env = { TROVE_LIBRARY: library };
  console.log(`login bench: ${PAGES} member pages, HTTP only, 4 connections, no delays; load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`${'crawl'.padEnd(12)}  ${'m. pages'.padStart(9)}  ${'m. res.'.padStart(9)}  ${'log-outs'.padStart(8)}  ${'pages'.padStart(6)}  ${'pages/s'.padStart(8)}  ${'wall'.padStart(9)}`);
  console.log(await crawl(site, tmp, 'no login', [], env));
  console.log(await crawl(site, tmp, '--profile', ['--profile', 'members'], env));
  console.log(`load after ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
} finally {
  await site.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}
