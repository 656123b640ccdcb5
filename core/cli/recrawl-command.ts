/**
 * `trove recrawl <crawl> [--out <dir>] [--latest]`: crawl the same seeds with the same settings
 * again, into a new crawl directory linked to the earlier one (core/crawl/recrawl.ts says what is
 * sent and written). `--print-cron <daily|weekly|expr>` prints the crontab line that recrawls
 * the series' latest crawl on that schedule, for a machine without the app.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { planRecrawl, seriesBeside, startRecrawl } from '../crawl/recrawl.ts';
import { crontabLine } from '../crawl/recrawl-schedule.ts';
import type { CommandIo } from './robots-command.ts';
import { runCrawlInForeground } from './crawl-command.ts';

/** bin/trove.js, for the crontab line. */
const TROVE_BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/trove.js');

export function registerRecrawlCommand(program: Command, io: CommandIo): void {
  program
    .command('recrawl')
    .description('Crawl a site again: same seeds and settings, a new crawl directory linked to the earlier one; unchanged pages are asked for conditionally and stored as revisits')
    .argument('<crawl>', 'the earlier crawl directory')
    .option('--out <dir>', 'the new crawl directory (default: beside the earlier one, named <name>-<YYYYMMDDhhmmss>)')
    .option('--latest', 'recrawl the latest crawl of the series the named crawl started (what a cron line runs)')
    .option('--print-cron <schedule>', 'print the crontab line that recrawls on this schedule (daily, weekly or a cron expression) and exit')
    .option('--no-progress', 'no progress line')
    .action(async (crawl: string, opts: { out?: string; latest?: boolean; printCron?: string; progress?: boolean }) => {
      if (opts.printCron !== undefined) {
        io.stdout.write(crontabLine(opts.printCron, TROVE_BIN, path.resolve(crawl)) + '\n');
        return;
      }
      const from = opts.latest ? seriesBeside(crawl).at(-1)! : crawl;
      const plan = planRecrawl(from, opts.out);
      io.stderr.write(`trove: recrawl of ${plan.from} into ${plan.dir} (${plan.chain.length} earlier crawl${plan.chain.length === 1 ? '' : 's'} in the chain)\n`);
      await runCrawlInForeground(io, opts, () => startRecrawl(plan), plan.dir);
    });
}
