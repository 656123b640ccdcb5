/**
 * QA finds what an archive lost (issue 34, "Measured: detection"): the 64-page fixture site
 * (test/helpers/qa-site.ts) is crawled with Trove, then a damaged copy of the crawl loses the
 * records of a stylesheet, of ten pages' images, of a script that builds content and of a web
 * font (test/helpers/qa-damage.ts). `trove qa` (real Chromium, Trove's replay) must flag at least
 * 95% of the damaged pages as moderate or severe and at most 2% of the others; precision and
 * recall are printed. The CLI's JSON, its exit status and the kept results are checked on the way.
 * Then ("Measured: patch"), with the site still up, the patch crawl fetches what was lost, every
 * damaged page turns good, a second `trove qa` agrees (exit 0), and warcio reads the new records;
 * the same for a WACZ export of the damaged crawl imported into an archive of its own, patched
 * by a crawl made beside it, whose captures the import then serves (get, qa, its WACZ export).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQa } from '../../core/qa/qa-run.ts';
import { listQaPages, listQaRuns, qaShotPath, setReview, qaPage } from '../../core/archive/qa-store.ts';
import { runCli } from '../../core/cli/main.ts';
import { runCrawl, type CrawlRun } from '../helpers/run-crawl.ts';
import { ALT_CSS_PAGES, FONT_PAGES, QA_SITE_PAGES, SCRIPT_PAGES, startQaSite, type QaSite } from '../helpers/qa-site.ts';
import { damagedCopy } from '../helpers/qa-damage.ts';
import { patchFromQa } from '../../core/qa/qa-patch.ts';
import { readWarcDir } from '../helpers/read-warcs.ts';
import { readZip } from '../export/independent-zip-readers.ts';
import { execFileSync } from 'node:child_process';
import { findChromium, NO_CHROMIUM_MESSAGE } from '../e2e/harness.ts';

const chromium = findChromium();
const TROVE_BIN = path.join(import.meta.dirname, '../../bin/trove.js');
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);

/** Pages whose own image is dropped. */
const IMAGE_PAGES = Array.from({ length: 10 }, (_, i) => 14 + i);

describe.skipIf(!chromium)('trove qa finds the pages a damaged archive lost', () => {
  let site: QaSite;
  let crawl: CrawlRun;
  let tmp: string;
  let damaged: string;
  const damagedPages = new Set<string>();

  beforeAll(async () => {
    site = await startQaSite();
    crawl = await runCrawl({ seeds: [site.origin + '/'] });
    expect(crawl.final.finishReason).toBe('frontier-empty');
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-qa-'));
    damaged = path.join(tmp, 'damaged');
    const drop = new Set([
      `${site.origin}/css/alt.css`,
      `${site.origin}/fonts/fixture-mono.ttf`,
      `${site.origin}/js/build.js`,
      ...IMAGE_PAGES.map((n) => `${site.origin}/img/${n}.png`),
    ]);
    const { dropped } = await damagedCopy(crawl.dir, damaged, drop);
    expect(dropped).toBeGreaterThanOrEqual(drop.size);
    for (const n of [...ALT_CSS_PAGES, ...FONT_PAGES, ...IMAGE_PAGES, ...SCRIPT_PAGES]) damagedPages.add(site.pageUrl(n));
  }, 120_000);

  afterAll(async () => {
    await site?.close();
    crawl?.cleanup();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('flags >= 95% of the damaged pages and <= 2% of the whole ones', async () => {
    const progress: number[] = [];
    const run = await runQa(damaged, { tabs: 2, chromiumPath: chromium! }, { onProgress: (p) => progress.push(p.done) });
    const pages = listQaPages(damaged);
    expect(pages).toHaveLength(QA_SITE_PAGES + 1);
    expect(run.pages).toBe(QA_SITE_PAGES + 1);
    expect(progress.at(-1)).toBe(QA_SITE_PAGES + 1);
    const flagged = new Set(pages.filter((p) => p.band !== 'good').map((p) => p.url));
    const whole = pages.filter((p) => !damagedPages.has(p.url));
    const truePos = [...damagedPages].filter((u) => flagged.has(u)).length;
    const falsePos = whole.filter((p) => flagged.has(p.url)).length;
    const recall = truePos / damagedPages.size;
    const precision = flagged.size === 0 ? 1 : truePos / flagged.size;
    console.log(
      `QA detection: ${damagedPages.size} damaged pages, ${whole.length} whole; flagged ${flagged.size}: ` +
        `recall ${(recall * 100).toFixed(1)}%, precision ${(precision * 100).toFixed(1)}%, whole pages flagged ${falsePos} (${((falsePos / whole.length) * 100).toFixed(1)}%); ` +
        `bands severe ${run.bands.severe} moderate ${run.bands.moderate} good ${run.bands.good}`,
    );
    for (const p of pages.filter((x) => x.band !== 'good' && !damagedPages.has(x.url))) console.log('  flagged but whole:', p.url, p.band, p.missingUrls, p.errorUrls, p.scriptErrors);
    for (const u of [...damagedPages].filter((x) => !flagged.has(x))) console.log('  damaged but good:', u);
    expect(recall).toBeGreaterThanOrEqual(0.95);
    expect(falsePos / whole.length).toBeLessThanOrEqual(0.02);

    // Worst first, with what was missing named; the replay screenshot kept.
    expect(pages[0]!.band).not.toBe('good');
    const alt = pages.find((p) => p.url === site.pageUrl(ALT_CSS_PAGES[0]!))!;
    expect(alt.missingUrls).toContain(`${site.origin}/css/alt.css`);
    expect(alt.reference).toBe('replay-only');
    expect(qaShotPath(damaged, alt.url, alt.ts, 'replay')).not.toBeNull();
    const built = pages.find((p) => p.url === site.pageUrl(SCRIPT_PAGES[0]!))!;
    expect(built.missingUrls).toContain(`${site.origin}/js/build.js`);
    const font = pages.find((p) => p.url === site.pageUrl(FONT_PAGES[0]!))!;
    expect(font.missingUrls).toContain(`${site.origin}/fonts/fixture-mono.ttf`);
  }, 600_000);

  it('trove qa --json: exit 1 with damaged pages, a review survives a re-run, runs are kept', async () => {
    const page = site.pageUrl(ALT_CSS_PAGES[0]!);
    const before = qaPage(damaged, page, listQaPages(damaged, { urlContains: '/p/0.html' })[0]!.ts)!;
    setReview(damaged, before.url, before.ts, 'rejected', 'stylesheet lost');
    let out = '';
    const io = { stdout: { write: (s: string) => ((out += s), true) }, stderr: { write: () => true } };
    const status = await runCli(['qa', damaged, '--url-prefix', `${site.origin}/p/0.html`, '--json', '--browser-path', chromium!], io as never);
    expect(status).toBe(1);
    const json = JSON.parse(out) as { run: { id: number; pages: number }; pages: { url: string; band: string; verdict: string | null; note: string | null }[] };
    expect(json.run.pages).toBe(1);
    expect(json.pages).toHaveLength(1);
    expect(json.pages[0]).toMatchObject({ url: page, verdict: 'rejected', note: 'stylesheet lost' });
    expect(json.pages[0]!.band).not.toBe('good');
    expect(listQaRuns(damaged).map((r) => r.id)).toEqual([json.run.id, json.run.id - 1]);
    // A whole page alone: exit 0.
    const ok = await runCli(['qa', damaged, '--url-prefix', site.pageUrl(40), '--csv', '--browser-path', chromium!], io as never);
    expect(ok).toBe(0);
    expect(out).toContain('url,ts,band,reference');
  }, 120_000);

  it('an imported WACZ with damage: trove qa --patch makes a crawl beside it, the import serves what it fetched (get, a second qa, its WACZ export)', async () => {
    const io = { stdout: { write: () => true }, stderr: { write: () => true } };
    const wacz = path.join(tmp, 'damaged.wacz');
    expect(await runCli(['export', damaged, '--wacz', wacz], io as never)).toBe(0);
    const imported = path.join(tmp, 'imported');
    expect(await runCli(['import', '--archive', imported, wacz], io as never)).toBe(0);
    // Pages 3 and 30–39: one that lost its stylesheet, two the script that builds their list, eight whole.
    const prefix = `${site.origin}/p/3`;
    const lost = ['/css/alt.css', '/js/build.js'];
    const hitsBefore = new Map(site.hits);
    let out = '';
    const json = { stdout: { write: (s: string) => ((out += s), true) }, stderr: { write: () => true } };
    const args = ['--url-prefix', prefix, '--tabs', '2', '--browser-path', chromium!];
    expect(await runCli(['qa', imported, ...args, '--patch', '--politeness', 'fast', '--json'], json as never)).toBe(0);
    const r = JSON.parse(out) as { run: { pages: number; references: object; bands: { good: number } }; patch: { crawlDir: string; requested: string[]; pages: { url: string; before: string; after: string }[] } };
    expect(r.run.pages).toBe(11);
    expect(r.run.references).toEqual({ 'replay-only': 11 });
    expect(r.run.bands.good).toBe(8);
    expect(r.patch.requested.map((u) => new URL(u).pathname).sort()).toEqual([...lost].sort());
    expect(r.patch.pages.map((p) => p.url).sort()).toEqual([3, 30, 31].map((n) => site.pageUrl(n)).sort());
    for (const p of r.patch.pages) expect(`${p.url} ${p.before} → ${p.after}`).toBe(`${p.url} ${p.before} → good`);
    const fetched = [...site.hits].filter(([p, n]) => n > (hitsBefore.get(p) ?? 0)).map(([p]) => p);
    // Exactly what was lost, and what a new crawl asks of a host first (robots.txt, the favicon).
    expect(fetched.filter((p) => p !== '/robots.txt' && p !== '/favicon.ico').sort()).toEqual([...lost].sort());
    // The patch crawl is a crawl of its own beside the import (the library lists it).
    expect(r.patch.crawlDir).toBe(`${imported}-patch`);
    expect(fs.existsSync(path.join(`${imported}-patch`, 'crawl.sqlite'))).toBe(true);

    // The import serves the patched captures: trove get, a second trove qa (exit 0), its WACZ export.
    // (trove get writes to the process's stdout: run as the command it is)
    expect(execFileSync(process.execPath, [TROVE_BIN, 'get', imported, `${site.origin}/js/build.js`], { encoding: 'utf8' })).toContain('Built item');
    out = '';
    expect(await runCli(['qa', imported, ...args], json as never)).toBe(0);
    expect(out).toContain('severe 0 · moderate 0 · good 11');
    const exported = path.join(tmp, 'imported-patched.wacz');
    expect(await runCli(['export', imported, '--wacz', exported], io as never)).toBe(0);
    const warcDir = path.join(tmp, 'imported-patched-warcs');
    fs.mkdirSync(warcDir);
    for (const e of await readZip(exported)) if (/^archive\/.+\.warc(\.gz)?$/.test(e.name)) fs.writeFileSync(path.join(warcDir, path.basename(e.name)), e.data);
    const records = await readWarcDir(warcDir);
    for (const u of lost) expect(records.some((x) => x.type === 'response' && x.targetUri === site.origin + u && x.status === 200 && x.payload.length > 0), u).toBe(true);
  }, 300_000);

  it('trove qa --patch: the lost records are fetched again, every damaged page turns good, a second qa agrees', async () => {
    const hitsBefore = new Map(site.hits);
    const progress: string[] = [];
    const r = await patchFromQa(damaged, { tabs: 2, chromiumPath: chromium! }, { onProgress: (p) => progress.push(p.phase) });
    const fetched = [...site.hits].filter(([p, n]) => n > (hitsBefore.get(p) ?? 0)).map(([p]) => p).sort();
    console.log(`QA patch: asked ${r.requested.length} URL(s), ${r.outOfScope.length} out of scope; the site served ${fetched.join(' ')}; ` +
      `pages ${r.pages.length}: ${r.pages.filter((p) => p.after === 'good').length} now good`);
    // Exactly what was lost (and robots.txt, which the continuation may look at again).
    expect(fetched.filter((p) => p !== '/robots.txt')).toEqual(['/css/alt.css', '/fonts/fixture-mono.ttf', ...IMAGE_PAGES.map((n) => `/img/${n}.png`), '/js/build.js'].sort());
    expect(r.outOfScope).toEqual([]);
    expect(progress).toContain('crawl');
    expect(progress).toContain('rescore');
    expect(new Set(r.pages.map((p) => p.url))).toEqual(damagedPages);
    for (const p of r.pages) expect(`${p.url} ${p.after}`).toBe(`${p.url} good`);
    expect(r.after.afterPatchOf).toBe(r.before.id);

    // A second trove qa over every page agrees: all good, exit 0.
    let out = '';
    const io = { stdout: { write: (s: string) => ((out += s), true) }, stderr: { write: () => true } };
    expect(await runCli(['qa', damaged, '--tabs', '2', '--browser-path', chromium!], io as never)).toBe(0);
    expect(out).toContain(`severe 0 · moderate 0 · good ${QA_SITE_PAGES + 1}`);

    // warcio reads the patch's records in the archive's WARCs.
    const records = await readWarcDir(path.join(damaged, 'warcs'));
    for (const u of ['/css/alt.css', '/fonts/fixture-mono.ttf', '/js/build.js', '/img/14.png']) {
      expect(records.some((x) => x.type === 'response' && x.targetUri === site.origin + u && x.status === 200 && x.payload.length > 0), u).toBe(true);
    }
  }, 900_000);

});
