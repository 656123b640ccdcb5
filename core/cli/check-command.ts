/**
 * `trove check <file...>`: validate WARC/ARC files and WACZ packages (by a `.wacz` name or ZIP
 * magic bytes; see core/archive/wacz-check.ts). One line per problem on stdout
 * (`<file>:<offset>: <level> <code> <message>`), a summary per file on stderr, which also says
 * whether request records hold credentials (Cookie/Authorization values; --redact-credentials).
 * A progress bar with an ETA on a terminal (plain lines otherwise); Ctrl-C stops the check (130).
 * Exit code 0 when every file is valid (warnings allowed), 1 when one is not (an empty file, a
 * package that is no ZIP), 2 for bad usage (including a file that cannot be opened).
 */
import fs from 'node:fs/promises';
import type { Command } from 'commander';
import { exitCodeFor, type ErrorCode } from '../api/error-codes.ts';
import { isCancelled } from '../errors.ts';
import { CANCELLED_EXIT, OperationProgress, PLAIN_EVERY_S, cancelOnSignals, parseEvery } from './operation-progress.ts';

/** A WACZ by name, or a ZIP by its first bytes (`PK\x03\x04`, or `PK\x05\x06` for an empty one). */
async function isPackage(file: string): Promise<boolean> {
  if (/\.wacz$/i.test(file)) return true;
  const fh = await fs.open(file, 'r').catch(() => null);
  if (!fh) return false;
  try {
    const b = Buffer.alloc(4);
    const { bytesRead } = await fh.read(b, 0, 4, 0).catch(() => ({ bytesRead: 0 }));
    return bytesRead === 4 && b.readUInt16LE(0) === 0x4b50 && (b.readUInt16LE(2) === 0x0403 || b.readUInt16LE(2) === 0x0605);
  } finally {
    await fh.close();
  }
}

export function registerCheckCommand(program: Command): void {
  program
    .command('check')
    .description('validate WARC/ARC files (structure, fields, digests, gzip layout, record references) and WACZ packages')
    .argument('<file...>', 'WARC or ARC files (.warc, .warc.gz, .arc, .arc.gz) and WACZ packages (.wacz)')
    .option('--errors-only', 'do not print warnings')
    .option('--no-progress', 'no progress bar')
    .option('--progress-every <seconds>', `when stderr is not a terminal, a progress line this often (default ${PLAIN_EVERY_S})`, parseEvery)
    .action(async (files: string[], opts: { errorsOnly?: boolean; progress?: boolean; progressEvery?: number }) => {
      // The checkers load when `trove check` runs: every command imports this file.
      const [{ checkWaczFile }, { checkWarcFile, formatChunkedDigests, formatCredentials, formatProblem }] = await Promise.all([import('../archive/wacz-check.ts'), import('../warc/check-warc.ts')]);
      const io = { stderr: process.stderr };
      const bar = new OperationProgress('check', io, { enabled: opts.progress !== false, ...(opts.progressEvery !== undefined ? { every: opts.progressEvery } : {}) });
      const cancel = cancelOnSignals('check', io);
      const sizes = await Promise.all(files.map((f) => fs.stat(f).then((s) => s.size, () => 0)));
      const total = sizes.reduce((a, b) => a + b, 0);
      let before = 0;
      let exit = 0;
      try {
        for (const [i, file] of files.entries()) {
          const check = (await isPackage(file)) ? checkWaczFile : checkWarcFile;
          const result = await check(file, {
            onProblem: (p) => {
              if (p.level === 'error' || !opts.errorsOnly) process.stdout.write(formatProblem(p) + '\n');
            },
            onRecord: (offset) => bar.update({ done: before + offset, total, bytes: true, note: file }),
            signal: cancel.signal,
          });
          before += sizes[i]!;
          exit = Math.max(exit, report(result, file));
        }
      } catch (err) {
        if (!isCancelled(err)) throw err;
        bar.stop();
        process.stderr.write('trove check: cancelled (nothing was written)\n');
        process.exitCode = CANCELLED_EXIT;
        return;
      } finally {
        cancel.dispose();
      }
      bar.stop();
      process.exitCode = exit;

      /** The file's summary line on stderr; its exit status. */
      function report(result: Awaited<ReturnType<typeof checkWarcFile>>, file: string): number {
        bar.stop();
        process.stderr.write(`${file}: ${result.records} records, ${result.errors} errors, ${result.warnings} warnings${formatChunkedDigests(result.chunkedDigests)}${formatCredentials(result.credentials)}${result.valid ? '' : ' (INVALID)'}\n`);
        // A file that could not be opened exits as its error code does; an invalid one, 1.
        const unreadable = result.problems.map((p) => p.code).find((c): c is ErrorCode => c === 'WARC_OPEN_FAILED' || c === 'WACZ_OPEN_FAILED');
        return unreadable ? exitCodeFor(unreadable) : result.valid ? 0 : 1;
      }
    });
}
