/**
 * The `trove` command line: one program, one subcommand per job, all over the same core the
 * desktop app uses. Errors of every command are printed and mapped to an exit status here, in
 * one form (cli-errors.ts).
 */
import { Command, CommanderError } from 'commander';
import { TROVE_VERSION } from '../api/settings.ts';
import { isTroveError } from '../errors.ts';
import { registerCrawlCommands } from './crawl-command.ts';
import { registerRobotsCommand, type CommandIo } from './robots-command.ts';
import { registerScopeCommand } from './scope-command.ts';
import { registerIndexCommand } from './index-command.ts';
import { registerCheckCommand } from './check-command.ts';
import { registerExportCommand } from './export-command.ts';
import { registerGetCommand } from './get-command.ts';
import { registerImportCommand } from './import-command.ts';
import { exitCodeFor } from '../api/error-codes.ts';
import { registerSharedCrawlCommands } from './shared-crawl-command.ts';
import { registerExcludeCommand } from './exclude-command.ts';
import { registerProfileCommand } from './profile-command.ts';
import { registerRecrawlCommand } from './recrawl-command.ts';
import { registerChangesCommand } from './changes-command.ts';
import { registerQaCommand } from './qa-command.ts';
import { CliExit, codeOfCommanderError, formatCliError, formatSettingsProblems } from './cli-errors.ts';

const processIo: CommandIo = { stdout: process.stdout, stderr: process.stderr };

export function buildProgram(io: CommandIo = processIo): Command {
  const program = new Command();
  program
    .name('trove')
    .description('Trove: polite, scoped web crawls to WARC/1.1; check, index, replay and export archives')
    .version(TROVE_VERSION)
    .exitOverride()
    // Subcommands inherit this: commander's own usage errors are printed by runCli, in Trove's form.
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s), outputError: () => {} });
  registerCrawlCommands(program, io);
  registerRobotsCommand(program);
  registerScopeCommand(program);
  registerIndexCommand(program);
  registerCheckCommand(program);
  registerImportCommand(program);
  registerGetCommand(program);
  registerExportCommand(program);
  registerSharedCrawlCommands(program, io);
  registerExcludeCommand(program, io);
  registerProfileCommand(program, io);
  registerRecrawlCommand(program, io);
  registerChangesCommand(program, io);
  registerQaCommand(program, io);
  return program;
}

/** `scope test` for the command `test` under `scope`. */
function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Run `trove <argv>`; returns the exit status (a command may also have set process.exitCode). */
export async function runCli(argv: string[], io: CommandIo = processIo): Promise<number> {
  const program = buildProgram(io);
  // Which command an error belongs to: known as soon as commander dispatches to it (before it
  // parses its options, whose parsers may throw), or when one of its parse errors comes through.
  let current = '';
  let currentCmd: Command = program;
  const tag = (cmd: Command) => {
    cmd.exitOverride((err) => {
      current = commandPath(cmd);
      currentCmd = cmd;
      throw err;
    });
    if (cmd.commands.length > 0) {
      cmd.hook('preSubcommand', (_cmd, sub) => {
        current = commandPath(sub);
        currentCmd = sub;
      });
    }
    for (const sub of cmd.commands) tag(sub);
  };
  tag(program);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CliExit) return err.status;
    if (err instanceof CommanderError) {
      const code = codeOfCommanderError(err);
      if (exitCodeFor(code) === 0) return 0;
      // `trove` (or `trove scope`) alone: commander printed the help, to stderr; a usage error.
      if (err.code === 'commander.help') return 2;
      io.stderr.write(formatCliError(current, err.message, code));
      return exitCodeFor(code);
    }
    if (isTroveError(err)) {
      const problems = err.code === 'SETTINGS_INVALID' ? err.details.problems : undefined;
      if (Array.isArray(problems) && problems.length > 0) {
        const flags = currentCmd.options.map((o) => o.long).filter((f): f is string => !!f);
        io.stderr.write(formatSettingsProblems(current, problems as { key: string; message: string }[], flags));
        return exitCodeFor(err.code);
      }
      io.stderr.write(formatCliError(current, err.message, err.code));
      return exitCodeFor(err.code);
    }
    io.stderr.write(`${current ? `trove ${current}` : 'trove'}: unexpected error: ${(err as Error).stack ?? err}\n`);
    return 1;
  }
}

export async function main(argv: string[]): Promise<void> {
  const status = await runCli(argv);
  if (status !== 0) process.exitCode = status;
}
