/**
 * `trove index <file...>`: a sorted CDXJ index of WARC/ARC files (pywb / ReplayWeb.page
 * format) on stdout, or in `--output <file>`. Reader warnings go to stderr; a file that breaks
 * off is indexed up to the break, reported on stderr, and makes the exit code 1. An empty file
 * (no records at all) is an error too: an index that silently comes out empty hides a wrong path
 * or a truncated download.
 */
import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { Command } from 'commander';
import { isTroveError } from '../errors.ts';
import { exitCodeFor } from '../api/error-codes.ts';
import type { writeLines as WriteLines } from '../export/external-sort.ts';
import { openArchiveFile } from '../warc/read-records.ts';

export function registerIndexCommand(program: Command): void {
  program
    .command('index')
    .description('write a sorted CDXJ index of WARC/ARC files')
    .argument('<file...>', 'WARC or ARC files (.warc, .warc.gz, .arc, .arc.gz)')
    .option('-o, --output <file>', 'write the index to this file instead of stdout')
    .option('-q, --quiet', 'do not print reader warnings')
    .action(async (files: string[], opts: { output?: string; quiet?: boolean }) => {
      // The indexer loads when `trove index` runs: every command imports this file.
      const [{ formatCdxj, sortCdxjLines }, { indexFile }, { writeLines }] = await Promise.all([
        import('../archive/cdxj.ts'),
        import('../archive/cdxj-index.ts'),
        import('../export/external-sort.ts'),
      ]);
      const lines: string[] = [];
      let exit = 0;
      for (const file of files) {
        try {
          const entries = indexFile(file, {
            onWarning: (w) => {
              if (!opts.quiet) process.stderr.write(`${file}:${w.offset}: warning ${w.code} ${w.message}\n`);
            },
          });
          const before = lines.length;
          for await (const e of entries) lines.push(formatCdxj(e));
          if (lines.length === before && !(await hasRecords(file))) {
            process.stderr.write(`${file}:0: error WARC_NO_RECORDS the file holds no records\n`);
            exit = Math.max(exit, 1);
          } else if (lines.length === before && !opts.quiet) {
            process.stderr.write(`${file}: note: no record to index (only warcinfo, request or metadata records)\n`);
          }
        } catch (err) {
          if (!isTroveError(err)) throw err;
          const offset = typeof err.details.offset === 'number' ? err.details.offset : 0;
          process.stderr.write(`${file}:${offset}: error ${err.code} ${err.message}\n`);
          exit = Math.max(exit, exitCodeFor(err.code));
        }
      }
      await writeOutput(writeLines, sortCdxjLines(lines), opts.output);
      process.exitCode = exit;
    });
}

/** Whether a file that gave no index line holds any record at all (rare, so read again). */
async function hasRecords(file: string): Promise<boolean> {
  for await (const _ of openArchiveFile(file)) return true;
  return false;
}

/** Write the lines to the output file, or to stdout. */
async function writeOutput(writeLines: typeof WriteLines, lines: string[], output: string | undefined): Promise<void> {
  const out: Writable = output ? createWriteStream(output) : process.stdout;
  await writeLines(out, lines);
  if (output) {
    out.end();
    await finished(out);
  }
}
