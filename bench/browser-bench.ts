/**
 * Browser crawl benchmark (issue 17). Two figures, each beside the HTTP-only crawl of the same
 * site measured in the same run:
 *
 * - coverage per fixture page: each page of the browser fixture site is loaded live in Chromium
 *   with the same behaviors the crawl uses, every URL the browser requested is listed, and the
 *   share of them found in the archive (response or revisit records) of an HTTP-only crawl and
 *   of a `--browser` crawl is printed side by side;
 * - throughput: pages/s with 1, 2 and 4 tabs on the fixture site and on the Python docs served
 *   by nginx (apt-get install nginx python3-doc; the first 40 pages, a page limit), with CPU
 *   seconds per page and peak RSS, both including the browser's processes.
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
  uris: number;
  peakRssMb: number;
  reason: string;
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
      caps.push(await capturePage(session, url, { sink: { exchange: async () => {} }, spoolDir: spool, behaviors: { screenshot: true } }));
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

export async function runBrowserBench(): Promise<void> {
  let executablePath: string;
  try {
    executablePath = findChromium();
  } catch (err) {
    console.log(`browser bench skipped: ${(err as Error).message}`);
    return;
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-browser-bench-'));
  const site = await startBrowserSite();
  const fast = { perHost: 4, concurrency: 6, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, name: 'bench' };
  const browser = (tabs: number) => ({ browser: { enabled: true, tabs, path: executablePath } });
  try {
    const seed = `${site.origin}/`;
    const live = await liveRequests(executablePath, site.origin);
    const http = await crawl(path.join(work, 'http'), { ...fast, seeds: [seed] });
    const runs: { tabs: number; r: Child }[] = [];
    for (const tabs of [1, 2, 4]) runs.push({ tabs, r: await crawl(path.join(work, `browser-${tabs}`), { ...fast, ...browser(tabs), seeds: [seed] }) });

    console.log(`\ncoverage: share of the URLs each fixture page requested live that are in the archive (${site.origin})`);
    console.log('  page'.padEnd(22) + 'requested'.padStart(10) + 'HTTP-only'.padStart(12) + '--browser'.padStart(12));
    const httpSet = new Set(http.archived);
    const brSet = new Set(runs[1]!.r.archived);
    let sumReq = 0;
    let sumHttp = 0;
    let sumBr = 0;
    for (const [p, urls] of live) {
      const h = urls.filter((u) => httpSet.has(u)).length;
      const b = urls.filter((u) => brSet.has(u)).length;
      sumReq += urls.length;
      sumHttp += h;
      sumBr += b;
      console.log(`  ${p.padEnd(20)}${String(urls.length).padStart(10)}${pct(h, urls.length).padStart(12)}${pct(b, urls.length).padStart(12)}`);
      const missing = urls.filter((u) => !brSet.has(u));
      if (missing.length) console.log(`    not in the browser crawl: ${missing.join(' ')}`);
    }
    console.log(`  ${'all'.padEnd(20)}${String(sumReq).padStart(10)}${pct(sumHttp, sumReq).padStart(12)}${pct(sumBr, sumReq).padStart(12)}`);

    const rows: [string, Child][] = [['fixture, HTTP-only', http], ...runs.map(({ tabs, r }): [string, Child] => [`fixture, --browser-tabs ${tabs}`, r])];
    if (nginxAvailable() && fs.existsSync(DOCS)) {
      const nginx = await startNginx(fs.realpathSync(DOCS));
      try {
        const docs = { ...fast, seeds: [`${nginx.origin}/`], limitPages: DOCS_PAGES };
        rows.push([`Python docs (${DOCS_PAGES} pages), HTTP-only`, await crawl(path.join(work, 'docs-http'), docs)]);
        for (const tabs of [1, 2, 4]) rows.push([`Python docs (${DOCS_PAGES} pages), --browser-tabs ${tabs}`, await crawl(path.join(work, `docs-browser-${tabs}`), { ...docs, ...browser(tabs) })]);
      } finally {
        await nginx.close();
      }
    } else {
      console.log('Python docs throughput skipped: needs nginx and python3-doc (apt-get install nginx python3-doc)');
    }
    console.log(`\nthroughput (${os.availableParallelism()} cores; CPU and peak RSS include Chromium's processes)`);
    console.log('  run'.padEnd(46) + 'time'.padStart(9) + 'pages'.padStart(7) + 'URIs'.padStart(7) + 'pages/s'.padStart(9) + 'vs HTTP'.padStart(9) + 'CPU s/page'.padStart(12) + 'peak RSS'.padStart(10));
    let base = 0;
    for (const [name, r] of rows) {
      const pps = r.pages / (r.ms / 1000);
      if (name.endsWith('HTTP-only')) base = pps;
      console.log(
        `  ${name.padEnd(44)}${`${(r.ms / 1000).toFixed(1)} s`.padStart(9)}${String(r.pages).padStart(7)}${String(r.uris).padStart(7)}${pps.toFixed(2).padStart(9)}${`${(pps / base).toFixed(2)}×`.padStart(9)}${(r.cpuMs / 1000 / Math.max(1, r.pages)).toFixed(3).padStart(12)}${`${r.peakRssMb.toFixed(0)} MB`.padStart(10)}`,
      );
    }
  } finally {
    await site.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runBrowserBench();
