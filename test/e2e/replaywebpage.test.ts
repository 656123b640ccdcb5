/**
 * ReplayWeb.page (the published `replaywebpage` app: index.html, ui.js, sw.js) as an independent
 * client of Trove's WACZ exports, in real Chromium: every variant the export writes — small, many
 * ZipNum blocks, signed, re-exported after an import, and a WARC written by GNU wget imported and
 * exported — must list all its pages and replay the home page with its archived <title>, its
 * stylesheet applied (a rule of style.css itself and one that arrives through its `@import`) and
 * its image decoded. The fixture site is shut before the browser starts, so everything shown comes
 * out of the package, which ReplayWeb.page reads by HTTP ranges from a loopback server. Each
 * package is also read by yauzl, Python's zipfile and unzip (independent-zip-readers.ts) and
 * passes the checks `wacz validate` makes (py-wacz-checks.ts).
 *
 * ReplayWeb.page's UI is Lit elements with open shadow roots: the pages list is `wr-page-entry`
 * elements (the URL in `.page-url keyword-mark[title]`), reached by Playwright's CSS engine,
 * which pierces open shadow roots; the replay is an iframe at `/w/<coll>/<ts>mp_/<url>`.
 *
 * The signed package is signed with a key made by the README's command (P-384), another with the
 * key the app makes for a library (core/app/signing-key.ts), and
 * ReplayWeb.page's own verdict on its signature is read where wabac.js keeps it: loading a WACZ,
 * `verifyWACZSignature` (wacz/certutils.ts) puts `{id, expected, matched}` rows in the
 * collection's IndexedDB (`db:<coll>`, store `verification`), `signature` with `matched` the
 * WebCrypto result, and its API (`/w/api/c/<coll>?all=1`, what the UI's item info shows) sums
 * them up as `verify` with the `publicKey`. That summary counts a `signature` row as valid
 * whether it matched or not, so the row itself is the verdict. `<coll>` is `id-` and the first 12
 * hex digits of the SHA-256 of the source URL (replaywebpage pageutils.ts `sourceToId`).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Frame, Page } from 'playwright-core';
import { databaseOf, openArchive } from '../../core/archive/archive-dir.ts';
import { importFiles } from '../../core/archive/import-warc.ts';
import { exportWacz } from '../../core/export/export-wacz.ts';
import { loadSigningKey, MAKE_SIGNING_KEY_COMMAND } from '../../core/archive/wacz-sign.ts';
import { crawlFixture } from '../export/export-fixture.ts';
import type { CrawledArchive } from '../export/export-fixture.ts';
import { readZipEverywhere } from '../export/independent-zip-readers.ts';
import { appSigningKeyFile } from '../../core/app/signing-key.ts';
import { pyWaczChecks } from '../export/py-wacz-checks.ts';
import { ARTIFACTS, CHROMIUM_ARGS, findChromium, NO_CHROMIUM_MESSAGE } from './harness.ts';
import { serveReplayWebPage } from './replaywebpage-server.ts';
import type { ReplayWebPageServer } from './replaywebpage-server.ts';

const execFileAsync = promisify(execFile);
const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);

/** The packages opened, in the order beforeAll writes them. */
const VARIANTS = ['small', 'ZipNum, blocks of 4 lines', 'signed', 're-exported after import', 'WARC written by GNU wget, imported and exported'];

interface Variant {
  name: string;
  file: string;
  /** Page URLs in the package's pages.jsonl. */
  pages: string[];
}

/** A row of wabac's `verification` store: a hash or signature check, or a fact about the signature. */
interface VerificationRow {
  id: string;
  expected: unknown;
  matched: boolean | null;
}

/** The URLs listed in a package's pages/pages.jsonl (after its header line); the package checked by yauzl, zipfile, unzip and the `wacz validate` checks first. */
async function pagesOf(file: string): Promise<string[]> {
  const entries = await readZipEverywhere(file);
  expect(pyWaczChecks(file).problems, file).toEqual([]);
  const lines = entries.find((e) => e.name === 'pages/pages.jsonl')!.data.toString('utf8').trimEnd().split('\n');
  return lines.slice(1).map((l) => (JSON.parse(l) as { url: string }).url);
}

describe.skipIf(!chromium)('ReplayWeb.page opens Trove WACZ exports (Chromium)', () => {
  let c: CrawledArchive;
  let origin: string;
  let browser: Browser;
  let server: ReplayWebPageServer;
  const variants: Variant[] = [];
  /** The pages the crawl recorded (HTML 200 responses). */
  let crawledPages: string[] = [];
  /** A package signed with a P-256 key. */
  let p256Signed = '';
  /** A package signed with the key the app makes for a library. */
  let appSigned = '';

  beforeAll(async () => {
    c = await crawlFixture('rwp');
    origin = c.site.origin;
    const add = async (name: string, file: string) => variants.push({ name, file, pages: await pagesOf(file) });
    const archive = openArchive(c.dir, { create: false });
    try {
      crawledPages = (databaseOf(archive).prepare('SELECT target_uri FROM records WHERE page = 1').all() as { target_uri: string }[]).map((r) => r.target_uri).sort();
      await exportWacz(archive, path.join(c.out, 'small.wacz'));
      await add('small', path.join(c.out, 'small.wacz'));
      // The layout of a large archive: many ZipNum blocks, found through index.idx.
      await exportWacz(archive, path.join(c.out, 'blocks.wacz'), { zipnumBlockLines: 4 });
      await add('ZipNum, blocks of 4 lines', path.join(c.out, 'blocks.wacz'));
      // Signed with a key made as the README says.
      await execFileAsync('sh', ['-c', MAKE_SIGNING_KEY_COMMAND], { cwd: c.out });
      await exportWacz(archive, path.join(c.out, 'signed.wacz'), { signingKey: loadSigningKey(fs.readFileSync(path.join(c.out, 'trove-sign-key.pem'))) });
      await add('signed', path.join(c.out, 'signed.wacz'));
      // Signed with a P-256 key, which `--sign-key` accepts (with a warning): only its verdict is checked.
      const p256 = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' });
      p256Signed = (await exportWacz(archive, path.join(c.out, 'signed-p256.wacz'), { signingKey: loadSigningKey(p256) })).path;
      // Signed with the key the app makes (for a library folder: here c.out).
      appSigned = (await exportWacz(archive, path.join(c.out, 'signed-app.wacz'), { signingKey: loadSigningKey(fs.readFileSync(appSigningKeyFile(c.out))) })).path;
    } finally {
      archive.close();
    }
    // Imported back into Trove and exported again (WARCs read from inside the first package).
    const reimport = path.join(c.out, 'reimport');
    expect((await importFiles(reimport, [path.join(c.out, 'small.wacz')])).problems).toEqual([]);
    const again = openArchive(reimport, { create: false });
    try {
      await exportWacz(again, path.join(c.out, 'reexport.wacz'));
    } finally {
      again.close();
    }
    await add('re-exported after import', path.join(c.out, 'reexport.wacz'));

    // A WARC from another tool: GNU wget (Debian) crawling the same site.
    const wgetDir = path.join(c.out, 'wget');
    fs.mkdirSync(wgetDir);
    // Asynchronously: the fixture site is served by this very process.
    const w = await execFileAsync(
      'wget',
      ['--recursive', '--level=2', '--page-requisites', '--no-verbose', '--tries=1', '--timeout=10', '--warc-file=' + path.join(wgetDir, 'site'), '--directory-prefix=' + path.join(wgetDir, 'files'), origin + '/'],
      { encoding: 'utf8', timeout: 60_000 },
    ).catch((err: NodeJS.ErrnoException & { stderr?: string }) => {
      // wget exits 8 when some URL answered with an error (the site has a 404 and a 500 on purpose).
      if (err.code === 'ENOENT') throw new Error('GNU wget is needed for this test (Debian: apt-get install wget)');
      return { stderr: err.stderr ?? '' };
    });
    const wgetWarc = path.join(wgetDir, 'site.warc.gz');
    expect(fs.existsSync(wgetWarc), w.stderr).toBe(true);
    const fromWget = path.join(c.out, 'from-wget');
    expect((await importFiles(fromWget, [wgetWarc])).problems).toEqual([]);
    const wa = openArchive(fromWget, { create: false });
    try {
      await exportWacz(wa, path.join(c.out, 'wget.wacz'));
    } finally {
      wa.close();
    }
    await add('WARC written by GNU wget, imported and exported', path.join(c.out, 'wget.wacz'));

    // From here on nothing can come from the live site.
    await c.site.close();
    server = await serveReplayWebPage();
    const { chromium: pw } = await import('playwright-core');
    browser = await pw.launch({ executablePath: chromium!, args: CHROMIUM_ARGS });
    fs.mkdirSync(ARTIFACTS, { recursive: true });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await c?.cleanup().catch(() => undefined); // the site is already closed
  });

  /** Open a package in ReplayWeb.page (its own app page, a fresh profile), on the pages list. */
  async function open(v: Variant): Promise<{ page: Page; errors: string[]; coll: string; close(): Promise<void> }> {
    const context = await browser.newContext({ viewport: { width: 1300, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const name = `${path.basename(v.file)}`;
    const source = server.addWacz(name, v.file);
    await page.goto(`${server.origin}/?source=${encodeURIComponent(source)}#view=pages`);
    const coll = 'id-' + crypto.createHash('sha256').update(source).digest('hex').slice(0, 12);
    return { page, errors, coll, close: () => context.close() };
  }

  /**
   * ReplayWeb.page's verdict on a loaded package: wabac's `verification` rows (IndexedDB
   * `db:<coll>`) and the `verify` summary its API answers the UI with.
   */
  async function verdictOf(page: Page, coll: string): Promise<{ rows: VerificationRow[]; verify: Record<string, unknown> | undefined }> {
    return page.evaluate(async (coll) => {
      const info = (await (await fetch(`/w/api/c/${coll}?all=1`)).json()) as { verify?: Record<string, unknown> };
      const rows = await new Promise<VerificationRow[]>((resolve, reject) => {
        const req = indexedDB.open(`db:${coll}`);
        req.onerror = () => reject(req.error);
        req.onsuccess = () => {
          const db = req.result;
          const all = db.transaction('verification', 'readonly').objectStore('verification').getAll();
          all.onerror = () => reject(all.error);
          all.onsuccess = () => {
            resolve(all.result as VerificationRow[]);
            db.close();
          };
        };
      });
      return { rows, verify: info.verify };
    }, coll);
  }

  async function listedPages(page: Page, expected: number): Promise<string[]> {
    const urls = page.locator('wr-page-entry .page-url keyword-mark');
    await expect.poll(() => urls.count(), { timeout: 30_000 }).toBe(expected);
    return (await urls.evaluateAll((els) => els.map((e) => e.getAttribute('title') ?? ''))).sort();
  }

  /** Click a page in the list; the replay frame once its document and images have loaded. */
  async function replay(page: Page, url: string): Promise<Frame> {
    await page.locator('wr-page-entry').filter({ has: page.locator(`keyword-mark[title="${url}"]`) }).locator('a').first().click();
    let frame: Frame | undefined;
    await expect
      .poll(
        () => {
          frame = page.frames().find((f) => /\/w\/[^/]+\/.*\d{14}mp_\//.test(f.url()) && f.url().endsWith('mp_/' + url));
          return frame !== undefined;
        },
        { timeout: 30_000 },
      )
      .toBe(true);
    await frame!.waitForFunction(() => document.readyState === 'complete' && [...document.images].every((i) => i.complete), undefined, { timeout: 30_000 });
    return frame!;
  }

  it("verifies the signatures made with the README's key and the app's key (P-384); shows none for a P-256 key, whose SPKI it cannot import as P-384", async () => {
    const digestOf = async (file: string) =>
      JSON.parse((await readZipEverywhere(file)).find((e) => e.name === 'datapackage-digest.json')!.data.toString('utf8')) as { hash: string; signedData: Record<string, string> };
    const signed = variants[VARIANTS.indexOf('signed')]!;
    const p256 = await digestOf(p256Signed);

    for (const file of [signed.file, appSigned]) {
      const p384 = await digestOf(file);
      const a = await open({ name: path.basename(file), file, pages: signed.pages });
      try {
        await listedPages(a.page, signed.pages.length);
        const { rows, verify } = await verdictOf(a.page, a.coll);
        const row = (id: string) => rows.find((r) => r.id === id);
        // ReplayWeb.page's own check: WebCrypto ECDSA P-384 / SHA-256 over the hash, and it matched.
        expect(row('signature'), path.basename(file)).toEqual({ id: 'signature', expected: true, matched: true });
        expect(row('publicKey')?.expected).toBe(p384.signedData.publicKey);
        expect(row('datapackageHash')?.expected).toBe(p384.hash);
        expect(row('created')?.expected).toBe(p384.signedData.created);
        expect(row('software')?.expected).toBe(p384.signedData.software);
        // The key and package hash its item info shows. (Its numValid/numInvalid say nothing here:
        // resource rows keep `matched: false` until their file is hashed, which ReplayWeb.page does
        // not do by default — ziprangereader.ts `useHashCheck` — and a signature row counts as
        // valid whatever it matched.)
        expect(verify).toMatchObject({ publicKey: p384.signedData.publicKey, datapackageHash: p384.hash });
      } finally {
        await a.close();
      }
    }

    const b = await open({ name: 'signed with a P-256 key', file: p256Signed, pages: signed.pages });
    try {
      await listedPages(b.page, signed.pages.length);
      const { rows, verify } = await verdictOf(b.page, b.coll);
      // The package itself loads and its hashes check, but no signature verdict and no key.
      expect(rows.find((r) => r.id === 'datapackageHash')?.expected).toBe(p256.hash);
      expect(rows.map((r) => r.id)).not.toContain('signature');
      expect(rows.map((r) => r.id)).not.toContain('publicKey');
      expect(verify?.publicKey).toBeUndefined();
      // Why: wabac imports the key with namedCurve "P-384" fixed, which Chromium refuses for a
      // P-256 SPKI; imported as P-256, the same signature verifies.
      const why = await b.page.evaluate(async (s) => {
        const bytes = (b64: string) => Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
        const subtle = globalThis.crypto.subtle; // the page's WebCrypto (the file's `crypto` is Node's)
        const asP384 = await subtle.importKey('spki', bytes(s.publicKey), { name: 'ECDSA', namedCurve: 'P-384' }, true, ['verify']).then(
          () => 'imported',
          (e: Error) => e.name,
        );
        const key = await subtle.importKey('spki', bytes(s.publicKey), { name: 'ECDSA', namedCurve: 'P-256' }, true, ['verify']);
        const validAsP256 = await subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, bytes(s.signature), new TextEncoder().encode(s.hash));
        return { asP384, validAsP256 };
      }, p256.signedData);
      expect(why).toEqual({ asP384: 'DataError', validAsP256: true });
    } finally {
      await b.close();
    }
  }, 120_000);

  it('exports every variant, each read without complaint by yauzl, Python zipfile and unzip', () => {
    expect(variants.map((v) => v.name)).toEqual(VARIANTS);
    expect(crawledPages.length).toBeGreaterThan(10);
    for (const v of variants.slice(0, 4)) expect([...v.pages].sort(), v.name).toEqual(crawledPages);
    for (const v of variants) {
      expect(v.pages, v.name).toContain(origin + '/');
      expect(v.pages, v.name).toContain(origin + '/a.html');
    }
  });

  for (const [i, name] of VARIANTS.entries()) {
    it(`${name}: lists every page and replays the home page with its title, CSS (with @import) and image`, async () => {
      const v = variants[i]!;
      const { page, errors, close } = await open(v);
      try {
        expect(await listedPages(page, v.pages.length), v.name).toEqual([...v.pages].sort());
        const frame = await replay(page, origin + '/');
        const seen = await frame.evaluate(() => {
          const h1 = document.querySelector('h1');
          const logo = [...document.images].find((img) => img.src.endsWith('/img/logo.png'));
          return {
            title: document.title,
            h1Color: h1 ? getComputedStyle(h1).color : null,
            bodyBackground: getComputedStyle(document.body).backgroundImage,
            logoWidth: logo ? logo.naturalWidth : -1,
          };
        });
        await page.screenshot({ path: path.join(ARTIFACTS, `replaywebpage-${i + 1}.png`) });
        expect(seen.title, v.name).toBe('Fixture home');
        // more.css, reached only through style.css's @import, makes h1 red.
        expect(seen.h1Color, v.name).toBe('rgb(200, 0, 0)');
        // style.css's own rule.
        expect(seen.bodyBackground, v.name).toContain('/img/css-bg.png');
        expect(seen.logoWidth, v.name).toBeGreaterThan(0);
        expect(errors.filter((e) => /Unexpected|not valid JSON|zip/i.test(e)), v.name).toEqual([]);
        // Read by ranges, never downloaded whole.
        const reads = server.requests.filter((r) => r.path === '/' + path.basename(v.file) && r.method === 'GET');
        expect(reads.length).toBeGreaterThan(0);
        expect(reads.every((r) => r.status === 206)).toBe(true);
      } finally {
        await close();
      }
    }, 90_000);
  }
});
