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
 *   per page are the sum of that split (sampled from /proc: bash's `times` over the crawl, used
 *   before, missed about half of Chromium's CPU);
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

interface Run {
  site: 'fixture' | 'docs';
  mode: string;
  r: Child;
}

/** Settings of each capture mode at `tabs` tabs. */
function modeSettings(mode: string, tabs: number, path: string): Record<string, unknown> {
  if (mode === 'HTTP-only') return {};
  const capture = mode.startsWith('auto') ? 'auto' : 'browser';
  return { capture, browser: { enabled: false, tabs, path } };
}

/** `--tabs=1,2,4` (browser mode's tab counts; default 4; 0 leaves browser mode out), `--no-phases`, `--only=docs|fixture`. */
function benchArgs(argv: string[]): { tabs: number[]; phases: boolean; only: string | null } {
  const t = argv.find((a) => a.startsWith('--tabs='));
  const only = argv.find((a) => a.startsWith('--only='))?.slice(7) ?? null;
  return { tabs: t ? t.slice(7).split(',').map(Number) : [4], phases: !argv.includes('--no-phases'), only };
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
    } else if (!nginx) {
      console.log('Python docs skipped: needs nginx and python3-doc (apt-get install nginx python3-doc)');
    }
    if (fixture) printCoverage(live, runs.filter((r) => r.site === 'fixture'), site.origin);
    printThroughput(runs, live);
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
  for (const site of ['fixture', 'docs'] as const) {
    const mine = runs.filter((r) => r.site === site);
    const base = mine.find((r) => r.mode === 'HTTP-only');
    const ref = site === 'fixture' ? liveUrls : (mine.find((r) => r.mode.startsWith('browser'))?.r.archived ?? []);
    for (const { mode, r } of mine) {
      const pps = r.pages / (r.ms / 1000);
      // The sampled CPU of every process of the tree; bash's `times` (r.cpuMs) misses Chromium's
      // renderers, which are not reaped back through the browser process (about half its CPU).
      const sampled = Object.values(r.cpuByType ?? {}).reduce((a, b) => a + b, 0);
      const cpuMs = sampled > 0 ? sampled : r.cpuMs;
      const basePps = base ? base.r.pages / (base.r.ms / 1000) : pps;
      const have = new Set(r.archived);
      const cov = pct(ref.filter((u) => have.has(u)).length, ref.length);
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

if (import.meta.url === `file://${process.argv[1]}`) await runBrowserBench();
