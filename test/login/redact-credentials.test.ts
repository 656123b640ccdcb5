/**
 * `--redact-credentials` (issue 36), with the real CLI against the login fixture site: the
 * crawl sends the session cookie (every member page is archived) but its request records hold
 * a fixed marker instead; a byte search for the session token in the decompressed WARCs and in
 * the WACZ finds nothing; warcio reads every record, `trove check` passes on the WARCs and the
 * WACZ and says they hold no credentials (and says so of an unredacted crawl); `trove get`
 * still replays the member-only page. `export --warc/--wacz --redact-credentials` do the same for
 * an unredacted crawl after the fact, as does the app's export (`export.run` with
 * `redactCredentials`, through the gate and the export worker).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREDENTIALS_MARKER, credentialHeaders, redactCredentials } from '../../core/formats/redact-credentials.ts';
import { formatCookiesTxt } from '../../core/formats/cookies-txt.ts';
import { MEMBER_TEXT, startLoginSite, type LoginSite } from '../fixtures/login-site.ts';
import { readWarcDir } from '../helpers/read-warcs.ts';
import { runTrove } from '../helpers/trove-cli.ts';
import { createAppService } from '../../core/app/app-service.ts';
import { dispatch } from '../../core/app/gate.ts';
import type { ExportResult } from '../../core/api/app-types.ts';

const fast = ['--delay-factor', '0', '--min-delay-ms', '0', '--max-delay-ms', '0', '--min-free-disk', '0', '--no-progress', '--scope', 'host'];

/** Every byte of a crawl's WARCs, gzip members inflated. */
function warcBytes(dir: string): Buffer {
  const w = path.join(dir, 'warcs');
  return Buffer.concat(fs.readdirSync(w).map((n) => (n.endsWith('.gz') ? zlib.gunzipSync(fs.readFileSync(path.join(w, n))) : fs.readFileSync(path.join(w, n)))));
}

/** Every entry of a WACZ (unzip), gzip members inflated, and as stored: a byte search must look at both. */
function waczEntries(wacz: string): [string, Buffer][] {
  const listing = spawnSync('unzip', ['-Z1', wacz], { encoding: 'utf8' }).stdout.trim().split('\n');
  return listing.map((entry) => {
    const raw = spawnSync('unzip', ['-p', wacz, entry], { maxBuffer: 1 << 28 }).stdout as Buffer;
    return [entry, entry.endsWith('.gz') ? Buffer.concat([raw, zlib.gunzipSync(raw)]) : raw];
  });
}

describe('redactCredentials (formats)', () => {
  it('puts the marker in place of Cookie, Authorization and Proxy-Authorization values only, body kept', () => {
    const head = Buffer.from('POST /x HTTP/1.1\r\nHost: a\r\nCookie: sid=1;\r\n  more=2\r\nauthorization: Basic Zm9v\r\nProxy-Authorization: x\r\nAccept: */*\r\n\r\nCookie: body');
    const out = redactCredentials(head).toString('latin1');
    expect(out).toBe(`POST /x HTTP/1.1\r\nHost: a\r\nCookie: ${CREDENTIALS_MARKER}\r\nauthorization: ${CREDENTIALS_MARKER}\r\nProxy-Authorization: ${CREDENTIALS_MARKER}\r\nAccept: */*\r\n\r\nCookie: body`);
    expect(credentialHeaders(head)).toEqual(['Cookie', 'authorization', 'Proxy-Authorization']);
    expect(credentialHeaders(Buffer.from(out, 'latin1'))).toEqual([]);
    const plain = Buffer.from('GET / HTTP/1.1\r\nHost: a\r\n\r\n');
    expect(redactCredentials(plain)).toBe(plain);
  });
});

describe('--redact-credentials (real CLI)', () => {
  let site: LoginSite;
  let tmp: string;
  let cookies: string;
  let sid: string;
  beforeAll(async () => {
    site = await startLoginSite({ memberPages: 2 });
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-redact-'));
    sid = await site.login();
    cookies = path.join(tmp, 'cookies.txt');
    fs.writeFileSync(cookies, formatCookiesTxt([{ name: 'sid', value: sid, domain: '127.0.0.1', path: '/', expires: -1, secure: false, httpOnly: true }]));
  });
  afterAll(async () => {
    await site.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('an unredacted crawl holds the session, and trove check says so', async () => {
    const dir = path.join(tmp, 'plain');
    expect((await runTrove(['crawl', `${site.origin}/members/`, '--out', dir, '--cookies', cookies, ...fast])).code).toBe(0);
    expect(warcBytes(dir).includes(Buffer.from(sid))).toBe(true);
    const warcs = fs.readdirSync(path.join(dir, 'warcs')).map((n) => path.join(dir, 'warcs', n));
    const check = await runTrove(['check', ...warcs]);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stderr).toMatch(/credentials \(Cookie\/Authorization values\) in \d+ request records/);
  }, 60_000);

  it('export --warc --redact-credentials: a subset of an unredacted crawl without the token; check and warcio pass', async () => {
    const dir = path.join(tmp, 'plain');
    const out = path.join(tmp, 'members.warc.gz');
    const r = await runTrove(['export', dir, '--warc', out, '--url-prefix', `${site.origin}/members/`, '--redact-credentials']);
    expect(r.code, r.stderr).toBe(0);
    const bytes = zlib.gunzipSync(fs.readFileSync(out));
    expect(bytes.includes(Buffer.from(sid))).toBe(false);
    expect(bytes.includes(Buffer.from(`Cookie: ${CREDENTIALS_MARKER}`))).toBe(true);
    const check = await runTrove(['check', out]);
    expect(check.code, check.stderr + check.stdout).toBe(0);
    expect(check.stderr).toMatch(/0 errors.*no credentials in request records/);
    const records = await readWarcDir(tmp).then((all) => all.filter((x) => x.file === 'members.warc.gz'));
    // Each redacted request still names its response, which is there.
    const ids = new Set(records.map((x) => x.recordId));
    const requests = records.filter((x) => x.type === 'request');
    expect(requests.length).toBeGreaterThan(0);
    for (const q of requests) expect(ids.has(q.concurrentTo[0]!)).toBe(true);
  }, 60_000);

  it('export --wacz --redact-credentials: no token in any entry; check, warcio and replay of the package pass', async () => {
    const wacz = path.join(tmp, 'members.wacz');
    const ex = await runTrove(['export', path.join(tmp, 'plain'), '--wacz', wacz, '--redact-credentials']);
    expect(ex.code, ex.stderr).toBe(0);
    expect(ex.stdout).toMatch(/[1-9]\d* request records? redacted/);
    const entries = waczEntries(wacz);
    for (const [entry, bytes] of entries) expect(bytes.includes(Buffer.from(sid)), entry).toBe(false);
    // index, pages and datapackage digests are checked against the rewritten bytes; every CDXJ line against its record.
    const check = await runTrove(['check', wacz]);
    expect(check.code, check.stderr + check.stdout).toBe(0);
    expect(check.stderr).toMatch(/no credentials in request records/);
    const unzipped = path.join(tmp, 'wacz-warcs');
    fs.mkdirSync(unzipped);
    for (const [entry] of entries) if (entry.startsWith('archive/')) fs.writeFileSync(path.join(unzipped, path.basename(entry)), spawnSync('unzip', ['-p', wacz, entry], { maxBuffer: 1 << 28 }).stdout as Buffer);
    const records = await readWarcDir(unzipped);
    expect(records.some((x) => x.type === 'request')).toBe(true);
    // Trove's replay of the package: imported, the member page served.
    const lib = path.join(tmp, 'wacz-import');
    expect((await runTrove(['import', wacz, '--archive', lib, '--no-progress'])).code).toBe(0);
    const get = await runTrove(['get', lib, `${site.origin}/members/page-1.html`]);
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).toContain(MEMBER_TEXT);
  }, 60_000);

  it("the app's export (gate and export worker) redacts a WACZ and a WARC subset when asked", async () => {
    const library = path.join(tmp, 'app-library');
    const service = createAppService({ libraryDir: library, emit: () => undefined });
    try {
      const call = <T>(name: string, payload: unknown) => dispatch(service.handlers, name, payload) as Promise<{ ok: boolean; value: T; error?: unknown }>;
      const warcs = path.join(tmp, 'plain', 'warcs');
      const imported = await call<{ id: string }>('library.import', { files: fs.readdirSync(warcs).map((n) => path.join(warcs, n)), copy: true, name: 'Members' });
      expect(imported.ok, JSON.stringify(imported.error)).toBe(true);
      for (const format of ['wacz', 'warc'] as const) {
        const r = await call<ExportResult>('export.run', { archiveId: imported.value.id, format, redactCredentials: true });
        expect(r.ok, JSON.stringify(r.error)).toBe(true);
        expect(Number(r.value.summary['request records redacted'])).toBeGreaterThan(0);
        const files: [string, Buffer][] = format === 'wacz' ? waczEntries(r.value.path) : [[r.value.name, zlib.gunzipSync(fs.readFileSync(r.value.path))]];
        for (const [entry, bytes] of files) expect(bytes.includes(Buffer.from(sid)), entry).toBe(false);
      }
    } finally {
      await service.close();
    }
  }, 60_000);

  it('no session token anywhere in the WARCs or the WACZ; check, warcio and replay pass', async () => {
    const dir = path.join(tmp, 'redacted');
    const r = await runTrove(['crawl', `${site.origin}/members/`, '--out', dir, '--cookies', cookies, '--redact-credentials', ...fast]);
    expect(r.code, r.stderr).toBe(0);
    const bytes = warcBytes(dir);
    expect(bytes.includes(Buffer.from(sid))).toBe(false);
    expect(bytes.includes(Buffer.from(`Cookie: ${CREDENTIALS_MARKER}`))).toBe(true);
    // The crawl was logged in all the same: every member page archived (warcio reads them all).
    const records = await readWarcDir(path.join(dir, 'warcs'));
    const ok = new Set(records.filter((x) => (x.type === 'response' || x.type === 'revisit') && x.status === 200).map((x) => x.targetUri));
    for (const u of site.memberUrls()) expect(ok.has(u), u).toBe(true);
    const warcs = fs.readdirSync(path.join(dir, 'warcs')).map((n) => path.join(dir, 'warcs', n));
    const check = await runTrove(['check', ...warcs]);
    expect(check.code, check.stderr + check.stdout).toBe(0);
    expect(check.stderr).toMatch(/0 errors.*; no credentials in request records/);

    const wacz = path.join(tmp, 'redacted.wacz');
    const ex = await runTrove(['export', dir, '--wacz', wacz]);
    expect(ex.code, ex.stderr).toBe(0);
    const waczCheck = await runTrove(['check', wacz]);
    expect(waczCheck.code, waczCheck.stderr + waczCheck.stdout).toBe(0);
    expect(waczCheck.stderr).toMatch(/no credentials in request records/);
    for (const [entry, bytes] of waczEntries(wacz)) expect(bytes.includes(Buffer.from(sid)), entry).toBe(false);

    const get = await runTrove(['get', dir, `${site.origin}/members/page-1.html`]);
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).toContain(MEMBER_TEXT);
  }, 90_000);
});
