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
import { loadSigningKey } from '../../core/archive/wacz-sign.ts';
import { crawlFixture } from '../export/export-fixture.ts';
import type { CrawledArchive } from '../export/export-fixture.ts';
import { readZipEverywhere } from '../export/independent-zip-readers.ts';
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
      const { privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-384' });
      await exportWacz(archive, path.join(c.out, 'signed.wacz'), { signingKey: loadSigningKey(privateKey.export({ type: 'pkcs8', format: 'pem' })) });
      await add('signed', path.join(c.out, 'signed.wacz'));
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
  async function open(v: Variant): Promise<{ page: Page; errors: string[]; close(): Promise<void> }> {
    const context = await browser.newContext({ viewport: { width: 1300, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const name = `${path.basename(v.file)}`;
    const source = server.addWacz(name, v.file);
    await page.goto(`${server.origin}/?source=${encodeURIComponent(source)}#view=pages`);
    return { page, errors, close: () => context.close() };
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
