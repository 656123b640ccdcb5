/**
 * The `trove` command line: one program, one subcommand per job, all over the same core the
 * desktop app uses.
 */
import { Command, CommanderError } from 'commander';
import { TROVE_VERSION } from '../api/settings.ts';
import { isTroveError } from '../errors.ts';
import { registerCrawlCommands } from './crawl-command.ts';
import { registerRobotsCommand } from './robots-command.ts';
import { registerScopeCommand } from './scope-command.ts';
import { registerIndexCommand } from './index-command.ts';
import { registerCheckCommand } from './check-command.ts';
import { registerExportCommand } from './export-command.ts';
import { registerGetCommand } from './get-command.ts';
import { registerImportCommand } from './import-command.ts';

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('trove')
    .description('Trove: polite, scoped web crawls to WARC/1.1; check, index, replay and export archives')
    .version(TROVE_VERSION)
    .exitOverride();
  registerCrawlCommands(program);
  registerRobotsCommand(program);
  registerScopeCommand(program);
  registerIndexCommand(program);
  registerCheckCommand(program);
  registerImportCommand(program);
  registerGetCommand(program);
  registerExportCommand(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version exit 0; usage errors (unknown flag, bad choice, missing argument) exit 2.
      process.exitCode = err.exitCode === 0 ? 0 : 2;
      return;
    }
    if (isTroveError(err)) {
      process.stderr.write(`trove: ${err.message} [${err.code}]\n`);
      process.exitCode = err.code === 'SETTINGS_INVALID' || err.code.startsWith('URL_') ? 2 : 1;
      return;
    }
    process.stderr.write(`trove: unexpected error: ${(err as Error).stack ?? err}\n`);
    process.exitCode = 1;
  }
}
