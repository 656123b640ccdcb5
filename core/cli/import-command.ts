/**
 * `trove import <file...> --archive <dir> [--copy]`: index WARC, ARC and WACZ files into an
 * archive directory (created when missing), in place or copied into its `warcs/`. A progress bar
 * with an ETA on a terminal (plain lines otherwise, operation-progress.ts); then a summary (files,
 * records, pages) and every problem with its offset. Ctrl-C cancels: the archive is left as it was.
 * Exit code 1 when there was any problem (what could be read is imported all the same).
 */
import fs from 'node:fs';
import type { Command } from 'commander';
import { isCancelled, isTroveError } from '../errors.ts';
import type { ImportProgress, ImportReport } from '../api/archive-types.ts';
import { CANCELLED_EXIT, OperationProgress, PLAIN_EVERY_S, cancelOnSignals, parseEvery } from './operation-progress.ts';

export interface ImportIo {
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown; isTTY?: boolean };
}

interface ImportCommandOptions {
  archive: string;
  copy?: boolean;
  progress?: boolean;
  progressEvery?: number;
}

export function registerImportCommand(program: Command, io: ImportIo = { stdout: process.stdout, stderr: process.stderr }): void {
  program
    .command('import')
    .description('index WARC, ARC and WACZ files into an archive directory, to browse, search and replay them')
    .argument('<file...>', 'WARC/ARC files (.warc, .warc.gz, .arc, .arc.gz) and WACZ packages')
    .requiredOption('--archive <dir>', 'archive directory (created when missing)')
    .option('--copy', 'copy the files into the archive (warcs/) instead of indexing them where they are')
    .option('--no-progress', 'no progress bar')
    .option('--progress-every <seconds>', `when stderr is not a terminal, a progress line this often (default ${PLAIN_EVERY_S})`, parseEvery)
    .action(async (files: string[], opts: ImportCommandOptions) => {
      const bar = new ImportBar(files, io, opts);
      const cancel = cancelOnSignals('import', io);
      let report: ImportReport;
      try {
        // Loaded here: only `trove import` needs the importers (every command imports this file).
        const { importFiles } = await import('../archive/import-warc.ts');
        report = await importFiles(opts.archive, files, {
          ...(opts.copy ? { copy: true } : {}),
          onProgress: (p: ImportProgress) => bar.update(p),
          onWait: (message: string) => bar.message(`trove import: ${message}`),
          signal: cancel.signal,
        });
      } catch (err) {
        bar.stop();
        if (!isTroveError(err)) throw err;
        if (isCancelled(err)) {
          io.stderr.write(`trove import: cancelled; ${opts.archive} is as it was before\n`);
          process.exitCode = CANCELLED_EXIT;
          return;
        }
        io.stderr.write(`trove import: ${err.message} [${err.code}]\n`);
        process.exitCode = 1;
        return;
      } finally {
        cancel.dispose();
      }
      bar.stop();
      io.stdout.write(summary(report));
      for (const p of report.problems) {
        io.stderr.write(`trove import: ${p.file}${p.offset !== undefined ? ` @${p.offset}` : ''}: ${p.code}: ${p.message}\n`);
      }
      process.exitCode = report.problems.length > 0 ? 1 : 0;
    });
}

export function summary(r: ImportReport): string {
  const lines = r.files.map((f) => {
    const notes = [f.replaced ? 'replaced' : '', f.recompressed ? 'recompressed' : '', f.warnings ? `${f.warnings} warnings` : ''].filter(Boolean);
    return `  ${f.source}: ${f.records} records, ${f.pages} pages${notes.length ? ` (${notes.join(', ')})` : ''}`;
  });
  const head = `imported ${r.files.length} file${r.files.length === 1 ? '' : 's'}: ${r.records} records, ${r.pages} pages, ${r.problems.length} problem${r.problems.length === 1 ? '' : 's'}`;
  return `${[head, ...lines].join('\n')}\n`;
}

/** Bytes over all files, so one bar (or line) covers the whole run. */
class ImportBar {
  readonly #progress: OperationProgress;
  readonly #sizes = new Map<string, number>();
  readonly #done = new Map<string, number>();
  readonly #total: number;

  constructor(files: string[], io: ImportIo, opts: ImportCommandOptions) {
    let total = 0;
    for (const f of files) {
      const size = fs.statSync(f, { throwIfNoEntry: false })?.size ?? 0;
      this.#sizes.set(f, size);
      total += size;
    }
    this.#total = total;
    this.#progress = new OperationProgress('import', io, { enabled: opts.progress !== false, ...(opts.progressEvery !== undefined ? { every: opts.progressEvery } : {}) });
  }

  update(p: ImportProgress): void {
    // WACZ entries report as `x.wacz!/archive/…`; count them against the package.
    const key = p.file.split('!/')[0]!;
    this.#done.set(key, Math.min(p.bytes, this.#sizes.get(key) ?? p.bytes));
    let value = 0;
    for (const v of this.#done.values()) value += v;
    this.#progress.update({ done: value, total: this.#total, bytes: true, note: `${p.records.toLocaleString('en')} records | ${key.length > 40 ? `…${key.slice(-39)}` : key}` });
  }

  message(text: string): void {
    this.#progress.message(text);
  }

  stop(): void {
    this.#progress.stop();
  }
}
