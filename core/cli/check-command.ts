/**
 * `trove check <file...>`: validate WARC/ARC files. One line per problem on stdout
 * (`<file>:<offset>: <level> <code> <message>`), a summary per file on stderr.
 * Exit code 0 when every file is valid (warnings allowed), 1 when one is not, 2 for bad usage
 * (including a file that cannot be opened).
 */
import type { Command } from 'commander';
import { checkWarcFile, formatChunkedDigests, formatProblem } from '../warc/check-warc.ts';

export function registerCheckCommand(program: Command): void {
  program
    .command('check')
    .description('validate WARC/ARC files: structure, fields, digests, gzip layout, record references')
    .argument('<file...>', 'WARC or ARC files (.warc, .warc.gz, .arc, .arc.gz)')
    .option('--errors-only', 'do not print warnings')
    .action(async (files: string[], opts: { errorsOnly?: boolean }) => {
      let exit = 0;
      for (const file of files) {
        const result = await checkWarcFile(file, {
          onProblem: (p) => {
            if (p.level === 'error' || !opts.errorsOnly) process.stdout.write(formatProblem(p) + '\n');
          },
        });
        const unreadable = result.problems.some((p) => p.code === 'WARC_OPEN_FAILED');
        process.stderr.write(`${file}: ${result.records} records, ${result.errors} errors, ${result.warnings} warnings${formatChunkedDigests(result.chunkedDigests)}${result.valid ? '' : ' (INVALID)'}\n`);
        exit = Math.max(exit, unreadable ? 2 : result.valid ? 0 : 1);
      }
      process.exitCode = exit;
    });
}
