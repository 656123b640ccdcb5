/**
 * `trove exclude <crawl-dir> REGEX [--dry-run]`: add an exclusion to a crawl, running or not
 * (Heritrix's scope edit plus delete-by-regex). A crawl running in another process (a `trove
 * crawl` in a terminal, the app) is asked through a request file it picks up within a quarter
 * of a second (core/crawl/exclude-requests.ts); a stopped crawl is changed directly. Either way
 * the queued URIs that match are dropped and listed in logs/scope.log, later ones are rejected by
 * scope, and the crawl's settings keep the pattern for a resume. `--dry-run` only says what it
 * would drop (and which captures it matches), read without disturbing a running crawl.
 */
import type { Command } from 'commander';
import type { CommandIo } from './robots-command.ts';

const formatNumber = (n: number): string => n.toLocaleString('en-US');

export function registerExcludeCommand(program: Command, io: CommandIo): void {
  program
    .command('exclude')
    .description('add an exclude regex to a crawl, running or not: its queued matches are dropped (logs/scope.log)')
    .argument('<crawl-dir>', 'the crawl directory')
    .argument('<regex>', 'a JavaScript regular expression, matched against each URL')
    .option('--dry-run', 'only show how many queued URLs it would drop (and captured ones it matches)')
    .option('--timeout-s <seconds>', 'how long to wait for a running crawl to take it', (v) => Number(v), 30)
    .action(async (dir: string, pattern: string, opts: { dryRun?: boolean; timeoutS: number }) => {
      if (opts.dryRun) {
        const { previewExclude } = await import('../crawl/exclude-preview.ts');
        const p = previewExclude(dir, pattern, { samples: 10 });
        const atLeast = (complete: boolean) => (complete ? '' : 'at least ');
        io.stdout.write(`dry run: /${pattern}/ would drop ${atLeast(p.queued.complete)}${formatNumber(p.queued.count)} queued URL${p.queued.count === 1 ? '' : 's'}\n`);
        for (const u of p.queued.samples) io.stdout.write(`  ${u}\n`);
        io.stdout.write(`and matches ${atLeast(p.captured.complete)}${formatNumber(p.captured.count)} capture${p.captured.count === 1 ? '' : 's'} already made (kept)\n`);
        for (const u of p.captured.samples) io.stdout.write(`  ${u}\n`);
        return;
      }
      const { excludeInCrawlDir } = await import('../crawl/exclude-crawl-dir.ts');
      const timeoutMs = Number.isFinite(opts.timeoutS) && opts.timeoutS > 0 ? opts.timeoutS * 1000 : 30_000;
      const { result, running } = await excludeInCrawlDir(dir, pattern, { timeoutMs });
      io.stdout.write(
        `${running ? 'the running crawl' : 'the crawl (not running)'} now excludes /${pattern}/${result.added ? '' : ' (it had it already)'}: ` +
          `${formatNumber(result.dropped)} queued URI${result.dropped === 1 ? '' : 's'} dropped, listed in logs/scope.log\n`,
      );
      for (const u of result.samples) io.stdout.write(`  ${u}\n`);
    });
}
