/**
 * `trove crawl <seed>... --out <dir>` and `trove resume <dir>`: run a crawl in the foreground
 * with a progress bar. The first Ctrl-C (SIGINT/SIGTERM) stops gracefully (in-flight fetches
 * finish, files close); a second stops at once and still leaves valid files. Exit codes: 0 when
 * the crawl finished, 1 when it failed, 2 for bad flags or seeds (nothing written).
 */
import path from 'node:path';
import type { Command } from 'commander';
import { isTroveError } from '../errors.ts';
import { resumeCrawl, startCrawl, type CrawlController } from '../crawl/start-crawl.ts';
import type { CommandIo } from './robots-command.ts';
import { addCrawlOptions, settingsFromOptions } from './crawl-options.ts';
import { CrawlProgress, formatSummary } from './crawl-progress.ts';
import { registerWorkerCommand, startSharedCrawl } from './worker-command.ts';

const defaultIo: CommandIo = { stdout: process.stdout, stderr: process.stderr };

export function registerCrawlCommands(program: Command, io: CommandIo = defaultIo): void {
  addCrawlOptions(
    program
      .command('crawl')
      .description('Crawl from seeds into WARC files (continues the crawl if --out already holds one)')
      .argument('[seeds...]', 'seed URLs')
      .requiredOption('--out <dir>', 'crawl directory (created if missing)')
      .option('--frontier <crawl-url>', 'a shared crawl on PostgreSQL, postgres://user@host:port/<database>/<crawl>: other machines join with trove worker')
      .option('--worker-name <name>', 'with --frontier: this worker\'s name (default <host>-<pid>)'),
  ).action(async (seeds: string[], opts: Record<string, unknown>) => {
    await run(io, opts, () => {
      const settings = settingsFromOptions(opts, seeds);
      if (!settings.name) settings.name = path.basename(path.resolve(String(opts.out)));
      if (opts.frontier) return startSharedCrawl({ frontier: String(opts.frontier), dir: String(opts.out), worker: opts.workerName as string | undefined, settings });
      return startCrawl({ dir: String(opts.out), settings });
    });
  });
  registerWorkerCommand(program, (opts, start) => run(io, opts, start));

  addCrawlOptions(
    program
      .command('resume')
      .description('Continue an interrupted or finished crawl from its database (flags override, e.g. a higher limit)')
      .argument('<dir>', 'crawl directory'),
  ).action(async (dir: string, opts: Record<string, unknown>) => {
    await run(io, opts, () => resumeCrawl(dir, settingsFromOptions(opts, [])));
  });
}

async function run(io: CommandIo, opts: Record<string, unknown>, start: () => Promise<CrawlController>): Promise<void> {
  let crawl: CrawlController;
  try {
    crawl = await start();
  } catch (err) {
    if (isTroveError(err)) {
      io.stderr.write(`trove: ${err.message} [${err.code}]\n`);
      process.exitCode = err.code === 'SETTINGS_INVALID' || err.code.startsWith('URL_') || err.code.startsWith('SCOPE_') ? 2 : 1;
      return;
    }
    throw err;
  }
  const progress = new CrawlProgress(io, { tty: Boolean((process.stderr as { isTTY?: boolean }).isTTY), enabled: opts.progress !== false });
  for (const n of crawl.startNotes) progress.message(`trove: ${n}`);
  const off = crawl.on((e) => {
    if (e.type === 'snapshot') progress.update(e.snapshot);
    else if (e.type === 'log' && e.level !== 'info') progress.message(`trove: ${e.message}`);
    else if (e.type === 'log') progress.message(`trove: ${e.message}`);
  });
  let signals = 0;
  const onSignal = () => {
    signals++;
    progress.message(signals === 1 ? 'trove: stopping after in-flight fetches (Ctrl-C again to stop now)…' : 'trove: stopping now…');
    crawl.stop({ now: signals > 1 });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const final = await crawl.finished();
    progress.stop();
    for (const line of formatSummary(final)) io.stdout.write(line + '\n');
    if (final.state === 'failed') process.exitCode = 1;
  } finally {
    off();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
