/**
 * QA benchmark (issue 34): pages per second of `trove qa` on Debian's Python 3.11 docs (about 530
 * pages; apt-get install nginx python3-doc) with 1, 2 and 4 tabs, beside the pages per second of
 * the Trove crawl that made the archive (measured in the same run, in this process). The crawl is
 * an HTTP crawl, so QA's reference is replay alone: the figure is the cost of replaying and
 * screenshotting a page, which every reference pays. `--pages=N` scores only the first N pages
 * (the crawl is always whole). Target: at least 3 pages/s with 4 tabs on 2 cores.
 *
 * Each run of this tree also says where a page's time went (core/qa/qa-phases.ts: reference,
 * navigation, waiting for quiet, text, screenshot, scoring, store writes — summed over the tabs,
 * so with several tabs they add up to more than the wall time — and the replay handler's answers)
 * and the CPU spent in Node and in Chromium, Chromium's by process type, and the peak PSS of the
 * process tree, sampled from /proc by a process of its own (qa-bench-cpu.ts).
 *
 * `--baseline=DIR` (a checkout: `git archive <commit> | tar -x -C DIR && ln -s "$PWD/node_modules"
 * DIR/`) runs that tree's `runQa` too, alternated with this one's round by round, order swapped
 * each round (`--rounds=N`, default 1): on a shared machine, compare the two in the same rounds.
 *
 * Timings on a loaded machine are printed with `uptime`'s load average beside them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nginxAvailable, startNginx } from './bench-nginx.ts';
import { startCrawl } from '../core/crawl/start-crawl.ts';
import { runQa } from '../core/qa/qa-run.ts';
import { listQaPages } from '../core/archive/qa-store.ts';
import { findChromium } from '../core/browser/find-chromium.ts';
import { QA_PHASES, QaPhaseTimes } from '../core/qa/qa-phases.ts';
import { ChildTreeCpu } from './qa-bench-cpu.ts';

const DOCS = '/usr/share/doc/python3-doc/html';

function loadAverage(): string {
  return os.loadavg().map((x) => x.toFixed(2)).join(', ');
}

function argValue(name: string): string | undefined {
  return process.argv.find((a) => a.startsWith(name + '='))?.slice(name.length + 1);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

/** Where the run's time went: each phase's share of the page time summed over the tabs. */
function printPhases(p: QaPhaseTimes, sec: number, tabs: number): void {
  const total = QA_PHASES.reduce((n, k) => n + p.ms[k], 0);
  const cells = QA_PHASES.filter((k) => p.ms[k] > 0).map((k) => `${k} ${(p.ms[k] / Math.max(1, p.pages)).toFixed(0)} ms (${((p.ms[k] / total) * 100).toFixed(0)}%)`);
  console.log(`        per page (${tabs} tab(s), ${(total / Math.max(1, p.pages)).toFixed(0)} ms of tab time, ${((sec * 1000) / Math.max(1, p.pages)).toFixed(0)} ms of wall time): ${cells.join(', ')}`);
  console.log(`        replay answers: ${p.answers} (${(p.answers / Math.max(1, p.pages)).toFixed(1)} a page), ${(p.answerMs / Math.max(1, p.answers)).toFixed(1)} ms each from request paused to answer ready`);
}

async function main(): Promise<void> {
  if (!nginxAvailable() || !fs.existsSync(DOCS)) {
    console.log('qa bench skipped: needs Debian packages nginx and python3-doc (apt-get install nginx python3-doc)');
    return;
  }
  let chromium: string;
  try {
    chromium = findChromium();
  } catch {
    console.log('qa bench skipped: needs Chromium (apt-get install chromium)');
    return;
  }
  const pagesArg = process.argv.find((a) => a.startsWith('--pages='));
  const pages = pagesArg ? Number(pagesArg.slice('--pages='.length)) : undefined;
  const tabsArg = argValue('--tabs');
  const tabsList = tabsArg ? tabsArg.split(',').map(Number) : [1, 2, 4];
  const nginx = await startNginx(fs.realpathSync(DOCS));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-qa-bench-'));
  try {
    const dir = path.join(tmp, 'docs');
    const t0 = performance.now();
    const crawl = await startCrawl({ dir, settings: { name: 'qa-bench', seeds: [nginx.origin + '/'], delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, maxRetries: 0, minFreeDiskBytes: 0 } });
    const final = await crawl.finished();
    const crawlSec = (performance.now() - t0) / 1000;
    console.log(`\nqa: Python 3.11 docs on nginx ${nginx.origin}, ${os.availableParallelism()} cores, Chromium ${chromium}`);
    console.log(`crawl (HTTP, in-process): ${final.pages} pages, ${final.downloaded} URIs in ${crawlSec.toFixed(1)} s; load average ${loadAverage()}`);
    const baseline = argValue('--baseline');
    const rounds = Number(argValue('--rounds') ?? 1);
    const baseRunQa = baseline ? ((await import(path.resolve(baseline, 'core/qa/qa-run.ts'))) as { runQa: typeof runQa }).runQa : null;
    const trees: { name: string; run: typeof runQa }[] = [{ name: 'this', run: runQa }, ...(baseRunQa ? [{ name: 'base', run: baseRunQa }] : [])];
    const rows: string[] = [];
    const perTree = new Map<string, number[]>();
    for (let round = 0; round < rounds; round++) {
      for (const tabs of tabsList) {
        for (const tree of round % 2 === 0 ? trees : [...trees].reverse()) {
          const phases = new QaPhaseTimes();
          const cpu0 = process.cpuUsage();
          const procs = new ChildTreeCpu();
          const t = performance.now();
          const run = await tree.run(dir, { tabs, chromiumPath: chromium, ...(pages ? { pages } : {}) }, tree.name === 'this' ? { phases } : {});
          const sec = (performance.now() - t) / 1000;
          const cpu = process.cpuUsage(cpu0);
          const nodeS = (cpu.user + cpu.system) / 1e6;
          const { cpuByType: byType, peakPssMb } = await procs.stop();
          const chromiumS = Object.values(byType).reduce((a, b) => a + b, 0) / 1000;
          const key = `${tree.name} ${tabs}`;
          perTree.set(key, [...(perTree.get(key) ?? []), run.pages / sec]);
          rows.push(
            `  ${tree.name.padEnd(4)} ${String(tabs).padStart(4)}  ${String(run.pages).padStart(5)}  ${sec.toFixed(1).padStart(7)}  ${(run.pages / sec).toFixed(2).padStart(7)}  ` +
              `${nodeS.toFixed(1).padStart(6)}  ${chromiumS.toFixed(1).padStart(8)}  severe ${run.bands.severe} moderate ${run.bands.moderate} good ${run.bands.good}   load ${loadAverage()}`,
          );
          console.log(rows.at(-1));
          if (tree.name === 'this') printPhases(phases, sec, tabs);
          const cpuCells = [['node', nodeS * 1000] as const, ...Object.entries(byType).sort((a, b) => b[1] - a[1])].map(([k, v]) => `${k} ${(v / Math.max(1, run.pages)).toFixed(0)}`);
          console.log(`        CPU ms a page: ${((nodeS + chromiumS) * 1000 / Math.max(1, run.pages)).toFixed(0)} (${cpuCells.join(', ')}); ${((nodeS + chromiumS) / sec).toFixed(2)} of the ${os.availableParallelism()} cores busy; peak PSS ${peakPssMb.toFixed(0)} MB (this process and Chromium's)`);
          if (round === 0 && tree.name === 'this') {
            for (const p of listQaPages(dir).filter((x) => x.band !== 'good' && x.runId === run.id)) {
              console.log(`        ${p.band} ${p.url} missing ${p.missingUrls.slice(0, 3).join(' ') || '-'} errors ${p.errorUrls.length} script errors ${p.scriptErrors.length}`);
            }
          }
        }
      }
    }
    console.log(`\n  tree tabs  pages  seconds  pages/s  node s  chromium s  bands (and load average after)`);
    for (const r of rows) console.log(r);
    if (baseRunQa) {
      for (const tabs of tabsList) {
        const a = median(perTree.get(`this ${tabs}`)!);
        const b = median(perTree.get(`base ${tabs}`)!);
        console.log(`  ${tabs} tab(s): median pages/s this ${a.toFixed(2)}, base ${b.toFixed(2)}: ${(a / b).toFixed(2)}x`);
      }
    }
    console.log(`  the crawl that made the archive: ${(final.pages / crawlSec).toFixed(2)} pages/s (${(final.downloaded / crawlSec).toFixed(2)} URIs/s)`);
    console.log('  target: >= 3 pages/s with 4 tabs on 2 cores (figures above are on this machine as loaded now)');
  } finally {
    await nginx.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
