/**
 * Browser crawl benchmark (issues 17 and 35). The three capture modes side by side, HTTP-only,
 * auto and browser, on the browser fixture site and on the Python docs served by nginx (apt-get
 * install nginx python3-doc; the first 40 pages, a page limit):
 *
 * - where a browser page's time goes: the mean ms of each capture phase (navigation, load,
 *   network quiet, each behavior, reading the DOM, screenshot, last records) over a few pages of
 *   each site loaded in turn in one reused tab (`--no-phases` leaves it out);
 * - coverage per fixture page: each page is loaded live in Chromium with the crawl's behaviors,
 *   every URL it requested is listed, and the share of them in each mode's archive (response or
 *   revisit records) is printed; on the docs, coverage is the share of what the browser-mode
 *   crawl archived;
 * - throughput: pages, pages rendered in a browser, pages/s (and against HTTP-only), CPU seconds
 *   per page and the peak PSS and RSS of the crawl's process tree, Chromium's included; browser
 *   mode with 4 tabs (`--tabs=1,2,4` for more); the CPU per page split by process (the crawl's,
 *   Chromium's renderers, GPU process, browser process, network service), and the CPU seconds
 *   per page are the sum of that split (sampled from /proc by browser-bench-sampler.js in a
 *   process of its own, so the sampling's CPU is not the crawl's; bash's `times` over the crawl, used
 *   before, missed about half of Chromium's CPU);
 * - the whole Python docs (about 530 pages, no page limit), HTTP-only and auto alternated
 *   (`--pairs=N` pairs, default 1; `--no-all` leaves it out): auto's fixed cost (Chromium's start,
 *   one sample) against a site of realistic size; browser mode is not run on it (too long);
 * - precision and recall of auto's "needs a browser" (the pages it rendered) and of the HTTP
 *   body's rule alone (page-template.ts: signs, or not served whole), against the truth of each
 *   page of the fixture's and the 40-page docs' auto crawls: fetched over HTTP and rendered once,
 *   does the browser find in-scope URLs or a fifth more text that HTTP extraction does not
 *   (`--no-truth` leaves it out);
 * - `--only=docs` or `--only=fixture` runs one site (coverage needs the fixture).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium as pw } from 'playwright-core';
import { nginxAvailable, startNginx } from './bench-nginx.ts';
import { cliNodeFlags } from './cli-node-flags.ts';
import { findChromium } from '../core/browser/find-chromium.ts';
import { capturePage, type CapturePhase, type PageCapture } from '../core/browser/capture-page.ts';
import type { CdpSession } from '../core/browser/cdp-session.ts';
import { startBrowserSite, BROWSER_SITE_PAGES } from '../test/helpers/browser-site-server.ts';
import { extractDocument } from '../core/extract/extract-document.ts';
import { needsBrowser, renderSignals, servedWhole, textLength } from '../core/crawl/page-template.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const DOCS = '/usr/share/doc/python3-doc/html';
const DOCS_PAGES = 40;

interface Child {
  ms: number;
  cpuMs: number;
  pages: number;
  rendered: number;
  uris: number;
  peakRssMb: number;
  peakPssMb: number;
  reason: string;
  /** CPU ms by process: the crawl's own, and Chromium's by type (renderer, gpu-process, browser…). */
  cpuByType: Record<string, number>;
  archived: string[];
  /** The crawl's pages (HTML answered 200), and those rendered in a browser (crawl.log). */
  pageUrls: string[];
  renderedUrls: string[];
}

/**
 * Through bash, whose `times` reports the CPU of the crawl and of the Chromium it waited for.
 * Spawned, not spawnSync: the fixture site is served by this process and must go on answering.
 */
function crawl(dir: string, settings: Record<string, unknown>): Promise<Child> {
  const args = [...cliNodeFlags(), path.join(here, 'browser-crawl-child.js'), dir, JSON.stringify(settings)];
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', '"$@"; s=$?; times; exit $s', 'bash', process.execPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`crawl child failed (${code}): ${err}`));
      const lines = out.trim().split('\n');
      const m = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/.exec(lines.at(-1)!.trim());
      const cpuMs = m ? (Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) * 1000 : NaN;
      resolve({ ...(JSON.parse(lines.at(-3)!) as Omit<Child, 'cpuMs'>), cpuMs });
    });
  });
}

/** Every URL each fixture page requests when loaded live with the crawl's behaviors. */
async function liveRequests(executablePath: string, origin: string): Promise<Map<string, string[]>> {
  const browser = await pw.launch({ executablePath, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
  const out = new Map<string, string[]>();
  try {
    for (const p of BROWSER_SITE_PAGES) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers: 'block' });
      const page = await context.newPage();
      const session = (await context.newCDPSession(page)) as unknown as CdpSession;
      const spool = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-live-'));
      const cap = await capturePage(session, origin + p, { sink: { exchange: async () => {} }, spoolDir: spool, behaviors: { screenshot: true } });
      fs.rmSync(spool, { recursive: true, force: true });
      out.set(p, [...new Set(cap.requested.filter((u) => /^https?:/.test(u)).map((u) => u.split('#')[0]!))]);
      await context.close();
    }
  } finally {
    await browser.close();
  }
  return out;
}

/** Python docs pages for the phase table: long reference pages, tutorials and indexes. */
const DOCS_PHASE_PAGES = ['/index.html', '/library/os.html', '/library/functions.html', '/tutorial/index.html', '/tutorial/classes.html', '/reference/datamodel.html', '/howto/logging.html', '/genindex.html'];
const PHASES: CapturePhase[] = ['start', 'navigate', 'load', 'quiet', 'details', 'media', 'scroll', 'load-more', 'read', 'screenshot', 'records'];

/**
 * Where a page's time goes: each page loaded in turn in one reused tab, as the crawl does, and
 * the mean ms of each capture phase printed (navigation, load, network quiet, each behavior,
 * reading the DOM, the screenshot, the last records handed over).
 */
export async function phaseTable(executablePath: string, label: string, urls: string[]): Promise<void> {
  const browser = await pw.launch({ executablePath, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
  const caps: PageCapture[] = [];
  const spool = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-phases-'));
  const wall: number[] = [];
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers: 'block' });
    const page = await context.newPage();
    const session = (await context.newCDPSession(page)) as unknown as CdpSession;
    for (const url of urls) {
      const t0 = performance.now();
      caps.push(await capturePage(session, url, { sink: { exchange: async () => {} }, spoolDir: spool, behaviors: { screenshot: true }, reuseCache: process.env.TROVE_REUSE_CACHE === '1' }));
      wall.push(performance.now() - t0);
    }
  } finally {
    await browser.close();
    fs.rmSync(spool, { recursive: true, force: true });
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  console.log(`
phases, ${label}: mean ms per page over ${caps.length} pages, one tab (${os.loadavg()[0]!.toFixed(2)} load)`);
  console.log('  ' + PHASES.map((p) => p.padStart(11)).join('') + 'total'.padStart(9) + 'scrolls'.padStart(9));
  console.log('  ' + PHASES.map((p) => mean(caps.map((c) => c.timings?.[p] ?? 0)).toFixed(0).padStart(11)).join('') + mean(wall).toFixed(0).padStart(9) + mean(caps.map((c) => c.behaviors.scrolls)).toFixed(1).padStart(9));
}

const pct = (a: number, b: number) => (b === 0 ? '-' : `${((100 * a) / b).toFixed(0)}%`);

type Site = 'fixture' | 'docs' | 'docs, all';

interface Run {
  site: Site;
  mode: string;
  r: Child;
}

/** Settings of each capture mode at `tabs` tabs. */
function modeSettings(mode: string, tabs: number, path: string): Record<string, unknown> {
  if (mode === 'HTTP-only') return {};
  const capture = mode.startsWith('auto') ? 'auto' : 'browser';
  return { capture, browser: { enabled: false, tabs, path } };
}

/** `--tabs=1,2,4` (browser mode's tab counts; default 4; 0 leaves browser mode out), `--no-phases`, `--only=docs|fixture`, `--no-all`, `--pairs=N`, `--no-truth`. */
function benchArgs(argv: string[]): { tabs: number[]; phases: boolean; only: string | null; all: boolean; pairs: number; truth: boolean } {
  const t = argv.find((a) => a.startsWith('--tabs='));
  const only = argv.find((a) => a.startsWith('--only='))?.slice(7) ?? null;
  const pairs = Number(argv.find((a) => a.startsWith('--pairs='))?.slice(8) ?? 1);
  return { tabs: t ? t.slice(7).split(',').map(Number) : [4], phases: !argv.includes('--no-phases'), only, all: !argv.includes('--no-all'), pairs, truth: !argv.includes('--no-truth') };
}

export async function runBrowserBench(argv: string[] = process.argv.slice(2)): Promise<void> {
  let executablePath: string;
  try {
    executablePath = findChromium();
  } catch (err) {
    console.log(`browser bench skipped: ${(err as Error).message}`);
    return;
  }
  const opts = benchArgs(argv);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-browser-bench-'));
  const site = await startBrowserSite();
  const fast = { perHost: 4, concurrency: 6, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, name: 'bench' };
  const modes = ['HTTP-only', 'auto, 4 tabs', ...opts.tabs.filter((n) => n > 0).map((n) => `browser, ${n} tab${n === 1 ? '' : 's'}`)];
  const tabsOf = (mode: string) => Number(/(\d+) tab/.exec(mode)?.[1] ?? 4);
  console.log(`load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} at the start (the machine is shared: figures are loaded-machine figures)`);
  const runs: Run[] = [];
  const nginx = nginxAvailable() && fs.existsSync(DOCS) ? await startNginx(fs.realpathSync(DOCS)) : null;
  try {
    const fixture = opts.only !== 'docs';
    const docs = nginx && opts.only !== 'fixture';
    if (opts.phases) {
      if (fixture) await phaseTable(executablePath, 'fixture pages', BROWSER_SITE_PAGES.map((p) => site.origin + p));
      if (docs) await phaseTable(executablePath, 'Python docs pages', DOCS_PHASE_PAGES.map((p) => nginx.origin + p));
    }
    const seed = `${site.origin}/`;
    const live = fixture ? await liveRequests(executablePath, site.origin) : new Map<string, string[]>();
    if (fixture) for (const mode of modes) runs.push({ site: 'fixture', mode, r: await crawl(path.join(work, `fixture-${runs.length}`), { ...fast, ...modeSettings(mode, tabsOf(mode), executablePath), seeds: [seed] }) });
    if (docs) {
      const docsSettings = { ...fast, seeds: [`${nginx.origin}/`], limitPages: DOCS_PAGES };
      for (const mode of modes) runs.push({ site: 'docs', mode, r: await crawl(path.join(work, `docs-${runs.length}`), { ...docsSettings, ...modeSettings(mode, tabsOf(mode), executablePath) }) });
      // The whole docs, HTTP-only and auto alternated (loaded machine: a ratio within a pair means more than a time).
      if (opts.all) {
        for (let i = 0; i < opts.pairs; i++) {
          for (const mode of ['HTTP-only', 'auto, 4 tabs']) {
            console.log(`  whole docs, ${mode}, pair ${i + 1}: load average ${os.loadavg()[0]!.toFixed(2)}`);
            runs.push({ site: 'docs, all', mode, r: await crawl(path.join(work, `docs-all-${runs.length}`), { ...fast, seeds: [`${nginx.origin}/`], ...modeSettings(mode, 4, executablePath) }) });
          }
        }
      }
    } else if (!nginx) {
      console.log('Python docs skipped: needs nginx and python3-doc (apt-get install nginx python3-doc)');
    }
    if (fixture) printCoverage(live, runs.filter((r) => r.site === 'fixture'), site.origin);
    printThroughput(runs, live);
    if (opts.truth) await printDecisionQuality(executablePath, runs);
  } finally {
    await nginx?.close();
    await site.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** Per fixture page: the share of the URLs it requested live that each mode archived. */
function printCoverage(live: Map<string, string[]>, runs: Run[], origin: string): void {
  console.log(`\ncoverage: share of the URLs each fixture page requested live that are in the archive (${origin})`);
  console.log('  page'.padEnd(22) + 'requested'.padStart(10) + runs.map((r) => r.mode.padStart(16)).join(''));
  const sets = runs.map((r) => new Set(r.r.archived));
  const sums = runs.map(() => 0);
  let sumReq = 0;
  for (const [p, urls] of live) {
    sumReq += urls.length;
    const cells = sets.map((set, i) => {
      const n = urls.filter((u) => set.has(u)).length;
      sums[i]! += n;
      return pct(n, urls.length).padStart(16);
    });
    console.log(`  ${p.padEnd(20)}${String(urls.length).padStart(10)}${cells.join('')}`);
    for (const [i, r] of runs.entries()) {
      const missing = r.mode === 'HTTP-only' ? [] : urls.filter((u) => !sets[i]!.has(u));
      if (missing.length) console.log(`    not in the ${r.mode} crawl: ${missing.join(' ')}`);
    }
  }
  console.log(`  ${'all'.padEnd(20)}${String(sumReq).padStart(10)}${sums.map((n) => pct(n, sumReq).padStart(16)).join('')}`);
}

/**
 * Each run side by side: pages, pages rendered, pages/s against the HTTP-only crawl of the same
 * site, coverage (fixture: of what its pages requested live; docs: of what the browser-mode crawl
 * archived), CPU seconds per page and the peak PSS and RSS of the crawl's process tree.
 */
function printThroughput(runs: Run[], live: Map<string, string[]>): void {
  console.log(`\nthroughput (${os.availableParallelism()} cores, load average ${os.loadavg()[0]!.toFixed(2)} now; CPU, PSS and RSS include Chromium's processes)`);
  console.log('  run'.padEnd(34) + 'time'.padStart(9) + 'pages'.padStart(7) + 'rendered'.padStart(10) + 'URIs'.padStart(7) + 'pages/s'.padStart(9) + 'vs HTTP'.padStart(9) + 'coverage'.padStart(10) + 'CPU s/page'.padStart(12) + 'peak PSS'.padStart(10) + 'peak RSS'.padStart(10));
  const liveUrls = [...new Set([...live.values()].flat())];
  for (const site of ['fixture', 'docs', 'docs, all'] as const) {
    const mine = runs.filter((r) => r.site === site);
    const ref = site === 'fixture' ? liveUrls : (mine.find((r) => r.mode.startsWith('browser'))?.r.archived ?? []);
    for (const [i, { mode, r }] of mine.entries()) {
      const pps = r.pages / (r.ms / 1000);
      // The sampled CPU of every process of the tree; bash's `times` (r.cpuMs) misses Chromium's
      // renderers, which are not reaped back through the browser process (about half its CPU).
      const sampled = Object.values(r.cpuByType ?? {}).reduce((a, b) => a + b, 0);
      const cpuMs = sampled > 0 ? sampled : r.cpuMs;
      // Against the HTTP-only run just before (the whole docs alternate the two modes).
      const base = mine.slice(0, i + 1).findLast((x) => x.mode === 'HTTP-only');
      const basePps = base ? base.r.pages / (base.r.ms / 1000) : pps;
      const have = new Set(r.archived);
      const cov = ref.length ? pct(ref.filter((u) => have.has(u)).length, ref.length) : '-';
      console.log(
        `  ${`${site}, ${mode}`.padEnd(32)}${`${(r.ms / 1000).toFixed(1)} s`.padStart(9)}${String(r.pages).padStart(7)}${`${r.rendered} (${pct(r.rendered, r.pages)})`.padStart(10)}${String(r.uris).padStart(7)}${pps.toFixed(2).padStart(9)}${`${(pps / basePps).toFixed(2)}×`.padStart(9)}${cov.padStart(10)}${(cpuMs / 1000 / Math.max(1, r.pages)).toFixed(3).padStart(12)}${`${r.peakPssMb.toFixed(0)} MB`.padStart(10)}${`${r.peakRssMb.toFixed(0)} MB`.padStart(10)}`,
      );
    }
  }
  console.log('\nCPU ms per page by process (the crawl\'s own, and Chromium\'s by type; sampled from /proc every 250 ms)');
  for (const { site, mode, r } of runs) {
    const parts = Object.entries(r.cpuByType ?? {}).filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1]);
    console.log(`  ${`${site}, ${mode}`.padEnd(32)}${parts.map(([t, v]) => `${t} ${(v / Math.max(1, r.pages)).toFixed(0)}`).join(', ')}`);
  }
  console.log('  targets (issue 35): docs browser 4 tabs >= 2.0 pages/s; docs auto >= 0.80× HTTP-only and <= 5% rendered; fixture auto 100% coverage');
}

interface Truth {
  url: string;
  /** The browser found in-scope URLs or a fifth more text that HTTP extraction did not. */
  needs: boolean;
  /** The HTTP body's rule alone says render (a sign, or not served whole). */
  bodySays: boolean;
  why: string;
}

const noFragment = (u: string) => u.split('#')[0]!;

/**
 * The truth of "needs a browser" for each page: fetched over HTTP and extracted as the crawl
 * does, then rendered once (its own context, the crawl's behaviors), and compared by the rule a
 * sample's verdict uses (needsBrowser): in-scope (same origin) URLs only the browser found (a
 * live-DOM link the page's HTTP extraction lacks, or a request of the page that the site's
 * HTTP-only crawl did not archive either: a font a stylesheet names is found over HTTP too), or
 * a fifth more text.
 */
async function renderTruth(executablePath: string, urls: string[], httpArchived: Set<string>): Promise<Truth[]> {
  const browser = await pw.launch({ executablePath, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
  const spool = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-truth-'));
  const out: Truth[] = [];
  try {
    for (const url of urls) {
      const res = await fetch(url);
      const body = Buffer.from(await res.arrayBuffer());
      const html = body.toString('utf8');
      const ex = extractDocument({ url, status: res.status, headers: [...res.headers], body, mime: 'text/html', maxLinks: 100_000 });
      const httpUrls = new Set([noFragment(url), ...ex.outlinks.map((l) => noFragment(l.url))]);
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers: 'block' });
      const page = await context.newPage();
      const session = (await context.newCDPSession(page)) as unknown as CdpSession;
      const cap = await capturePage(session, url, { sink: { exchange: async () => {} }, spoolDir: spool, behaviors: { screenshot: false } });
      await context.close();
      const origin = new URL(url).origin;
      const inScope = (u: string) => u.startsWith(`${origin}/`) && !httpUrls.has(u);
      const more = [...new Set([...cap.outlinks.map(noFragment).filter(inScope), ...cap.requested.map(noFragment).filter((u) => inScope(u) && !httpArchived.has(u))])];
      const evidence = { moreUrls: more, httpTextLength: textLength(ex.text), browserTextLength: textLength(cap.text) };
      const signs = renderSignals(html);
      out.push({
        url,
        needs: needsBrowser(evidence),
        bodySays: signs.length > 0 || !servedWhole(html),
        why: more.length ? `${more.length} URLs only rendered (${more.slice(0, 2).map((u) => u.slice(origin.length)).join(' ')}${more.length > 2 ? ' …' : ''})` : `text ${evidence.httpTextLength} → ${evidence.browserTextLength}`,
      });
    }
  } finally {
    await browser.close();
    fs.rmSync(spool, { recursive: true, force: true });
  }
  return out;
}

/** Precision and recall of a "needs a browser" prediction against the truth. */
function score(truth: Truth[], says: (t: Truth) => boolean): string {
  const tp = truth.filter((t) => t.needs && says(t)).length;
  const predicted = truth.filter(says).length;
  const actual = truth.filter((t) => t.needs).length;
  const ratio = (a: number, b: number) => (b === 0 ? '-' : `${((100 * a) / b).toFixed(0)}% (${a}/${b})`);
  return `${String(predicted).padStart(5)} ${ratio(tp, predicted).padStart(13)} ${ratio(tp, actual).padStart(13)}`;
}

/**
 * Auto's decision (the pages its crawl rendered) and the HTTP body's rule alone against each
 * page's rendered truth, on the fixture's and the 40-page docs' auto crawls; disagreements listed.
 */
async function printDecisionQuality(executablePath: string, runs: Run[]): Promise<void> {
  console.log(`\n"needs a browser": auto's decision and the HTTP body's rule alone against each page's rendered truth (load average ${os.loadavg()[0]!.toFixed(2)})`);
  console.log('  site'.padEnd(12) + 'pages'.padStart(6) + 'need'.padStart(6) + '   auto: rendered  precision        recall' + '   body rule: says  precision        recall');
  for (const site of ['fixture', 'docs'] as const) {
    const auto = runs.find((r) => r.site === site && r.mode.startsWith('auto'));
    if (!auto) continue;
    const rendered = new Set(auto.r.renderedUrls);
    const truth = await renderTruth(executablePath, auto.r.pageUrls, new Set(runs.find((r) => r.site === site && r.mode === 'HTTP-only')?.r.archived ?? []));
    console.log(`  ${site.padEnd(10)}${String(truth.length).padStart(6)}${String(truth.filter((t) => t.needs).length).padStart(6)}       ${score(truth, (t) => rendered.has(t.url))}        ${score(truth, (t) => t.bodySays)}`);
    for (const t of truth) {
      const a = rendered.has(t.url);
      if (a !== t.needs || t.bodySays !== t.needs) console.log(`    ${t.url}: needs ${t.needs ? 'yes' : 'no'} (${t.why}); auto ${a ? 'rendered' : 'HTTP'}; body rule ${t.bodySays ? 'render' : 'HTTP'}`);
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runBrowserBench();
