/**
 * `trove qa <archive>`: replay every page in headless Chromium and score it (core/qa/qa-run.ts),
 * with a progress bar and ETA on a terminal, then the pages worst-first in a table (or all of
 * them as JSON or CSV). `--patch` then fetches what QA found missing (core/qa/qa-patch.ts) and
 * prints each affected page's band before → after. Exit 0 when every page is good, 1 otherwise.
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { PolitenessPreset } from '../api/settings.ts';
import { settingRow } from '../api/settings-registry.ts';
import { settingOption } from './crawl-options.ts';
import type { QaBand, QaOptions, QaPageResult, QaPatchResult, QaRunInfo } from '../api/qa-types.ts';
import { CliExit } from './cli-errors.ts';
import { newProgressBar, type ProgressBar } from './progress-bar.ts';

export interface QaIo {
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown; isTTY?: boolean };
}

interface QaCommandOptions {
  pages?: number;
  urlPrefix?: string;
  host?: string;
  tabs?: number;
  againstLive?: boolean;
  browserPath?: string;
  json?: boolean;
  csv?: boolean;
  patch?: boolean;
  politeness?: PolitenessPreset;
  progress?: boolean;
}

/** Rows of the terminal table; --json / --csv give every page. */
const TABLE_ROWS = 40;

function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a whole number of at least 1');
  return n;
}

export function registerQaCommand(program: Command, io: QaIo): void {
  program
    .command('qa')
    .description('replay every page of an archive in headless Chromium and score it against its capture (or the live page): screenshot, text and resources')
    .argument('<archive>', 'an archive directory (a crawl, or one made by imports)')
    .option('--pages <n>', 'check at most this many pages', positiveInt)
    .option('--url-prefix <prefix>', 'only pages whose URL starts with this')
    .option('--host <host>', 'only pages of this host')
    .option('--tabs <n>', 'pages replayed at once (default 2)', positiveInt)
    .option('--against-live', 'score pages with no capture-time screenshot against the live page (robots.txt obeyed)')
    .option('--browser-path <path>', 'the Chromium to use (default: found as `trove crawl --browser` finds it)')
    .option('--json', 'print the run and every page as JSON on stdout')
    .option('--csv', 'print every page as CSV on stdout')
    .option('--patch', 'then fetch what is missing (a continuation of the crawl; for an import, a crawl made beside it) and score the affected pages again')
    .addOption(patchPolitenessOption())
    .option('--no-progress', 'no progress bar')
    .action(async (archive: string, opts: QaCommandOptions) => {
      const [{ runQa }, store] = await Promise.all([import('../qa/qa-run.ts'), import('../archive/qa-store.ts')]);
      const options: QaOptions = {
        ...(opts.pages !== undefined ? { pages: opts.pages } : {}),
        ...(opts.urlPrefix ? { urlPrefix: opts.urlPrefix } : {}),
        ...(opts.host ? { host: opts.host } : {}),
        ...(opts.tabs !== undefined ? { tabs: opts.tabs } : {}),
        ...(opts.againstLive ? { againstLive: true } : {}),
        ...(opts.browserPath ? { chromiumPath: opts.browserPath } : {}),
      };
      const bar = io.stderr.isTTY && opts.progress !== false ? new QaBar('qa') : null;
      let run: QaRunInfo;
      try {
        run = await runQa(archive, options, { onProgress: (p) => bar?.update(p.done, p.total) });
      } finally {
        bar?.stop();
      }
      let patched: QaPatchResult | null = null;
      if (opts.patch && run.bands.good < run.pages) {
        const { patchFromQa } = await import('../qa/qa-patch.ts');
        const pbar = io.stderr.isTTY && opts.progress !== false ? new QaBar('patch') : null;
        try {
          const patchOptions = {
            ...(opts.tabs !== undefined ? { tabs: opts.tabs } : {}),
            ...(opts.browserPath ? { chromiumPath: opts.browserPath } : {}),
            ...(opts.politeness ? { politeness: opts.politeness } : {}),
          };
          patched = await patchFromQa(archive, patchOptions, {
            onProgress: (p) => pbar?.update(p.done, p.total, p.phase),
          });
        } finally {
          pbar?.stop();
        }
      }
      // The pages this command scored: their current results are of its run or of the patch's re-scoring.
      const runs = new Set([run.id, ...(patched ? [patched.after.id] : [])]);
      const thisRun = store.listQaPages(archive).filter((p) => p.runId !== undefined && runs.has(p.runId));
      if (opts.json) io.stdout.write(JSON.stringify({ run, ...(patched ? { patch: patched } : {}), pages: thisRun }, null, 2) + '\n');
      else if (opts.csv) io.stdout.write(toCsv(thisRun));
      else {
        io.stdout.write(summary(run, thisRun));
        if (patched) io.stdout.write(patchSummary(patched));
      }
      const notGood = thisRun.filter((p) => p.band !== 'good').length;
      if (notGood > 0) throw new CliExit(1);
    });
}

/** The crawl settings row's flag, for the crawl that patches an import (a crawl's patch keeps its own politeness). */
function patchPolitenessOption() {
  const o = settingOption(settingRow('politeness')!);
  o.description = `with --patch of an archive made by imports, the crawl made to patch it: ${o.description}; a crawl's patch keeps the crawl's own`;
  return o;
}

class QaBar {
  readonly #bar: ProgressBar;
  constructor(kind: string) {
    this.#bar = newProgressBar({ format: ` ${kind} {bar} {percentage}% | {value}/{total} pages | {phase} ETA {eta_formatted}`, barsize: 24, hideCursor: true, stream: process.stderr, etaBuffer: 20 });
    this.#bar.start(1, 0, { phase: '' });
  }
  update(done: number, total: number, phase = ''): void {
    this.#bar.setTotal(Math.max(1, total));
    this.#bar.update(done, { phase });
  }
  stop(): void {
    this.#bar.stop();
  }
}

const pct = (x: number | null): string => (x === null ? '   -' : `${Math.round(x * 100)}%`.padStart(4));
const BAND_MARK: Record<QaBand, string> = { severe: 'SEVERE  ', moderate: 'moderate', good: 'good    ' };

function summary(run: QaRunInfo, pages: QaPageResult[]): string {
  const refs = Object.entries(run.references)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  const lines = [
    `QA run #${run.id} of ${run.pages} page(s), ${run.startedAt} → ${run.finishedAt ?? '(not finished)'}; reference: ${refs}`,
    `  severe ${run.bands.severe} · moderate ${run.bands.moderate} · good ${run.bands.good}`,
    '',
    'band      shot  text  res   captured/missing/errors  url',
  ];
  for (const p of pages.slice(0, TABLE_ROWS)) {
    const r = `${p.resources.captured}/${p.resources.missing}/${p.resources.errors}`.padEnd(23);
    lines.push(`${BAND_MARK[p.band]}  ${pct(p.screenshotScore)}  ${pct(p.textScore)}  ${pct(p.resourceScore)}  ${r}  ${p.url}`);
    for (const m of p.missingUrls.slice(0, 3)) lines.push(`${' '.repeat(34)}missing ${m}`);
    if (p.missingUrls.length > 3) lines.push(`${' '.repeat(34)}… ${p.missingUrls.length - 3} more missing`);
  }
  if (pages.length > TABLE_ROWS) lines.push(`… and ${pages.length - TABLE_ROWS} more page(s) (--json or --csv lists every page)`);
  return lines.join('\n') + '\n';
}

function patchSummary(p: QaPatchResult): string {
  const lines = [
    '',
    `patch: ${p.requested.length} URL(s) asked of the crawl${p.outOfScope.length ? `, ${p.outOfScope.length} out of its scope (not fetched)` : ''}; re-scored as run #${p.after.id}`,
  ];
  if (p.crawlDir) lines.push(`  the patch crawl ${p.crawlDir} is in the library; what it fetched is now part of this archive too`);
  for (const x of p.pages) lines.push(`  ${x.before.padEnd(8)} → ${x.after.padEnd(8)}  ${x.url}`);
  return lines.join('\n') + '\n';
}

function csvCell(v: string | number | null): string {
  if (v === null) return '';
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function toCsv(pages: QaPageResult[]): string {
  const head = ['url', 'ts', 'band', 'reference', 'screenshot_score', 'text_score', 'resource_score', 'captured', 'missing', 'errors', 'script_errors', 'verdict', 'note', 'missing_urls'];
  const rows = pages.map((p) =>
    [p.url, p.ts, p.band, p.reference, p.screenshotScore, p.textScore, p.resourceScore, p.resources.captured, p.resources.missing, p.resources.errors, p.scriptErrors.length, p.verdict, p.note, p.missingUrls.join(' ')]
      .map(csvCell)
      .join(','),
  );
  return [head.join(','), ...rows].join('\n') + '\n';
}
