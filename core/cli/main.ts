/**
 * The `trove` command line: one program, one subcommand per job, all over the same core the
 * desktop app uses. Errors of every command are printed and mapped to an exit status here, in
 * one form (cli-errors.ts).
 */
import { Command, CommanderError } from 'commander';
import { TROVE_VERSION } from '../api/settings.ts';
import { isTroveError } from '../errors.ts';
import type { CommandIo } from './robots-command.ts';
import { exitCodeFor } from '../api/error-codes.ts';
import { CliExit, codeOfCommanderError, formatCliError, formatSettingsProblems } from './cli-errors.ts';

const processIo: CommandIo = { stdout: process.stdout, stderr: process.stderr };

type Register = (program: Command, io: CommandIo) => void;

/**
 * Each command's module by the top-level names it registers, loaded only when needed: a process
 * loads the module of the command it runs (a crawl loads no exporter, QA, replay or PostgreSQL
 * code, `trove --version` none at all); help and an unknown command load them all (commander
 * lists and suggests from what is registered). In the order `trove --help` lists them.
 */
const COMMAND_MODULES: readonly { names: readonly string[]; load: () => Promise<Register> }[] = [
  { names: ['crawl', 'resume'], load: async () => (await import('./crawl-command.ts')).registerCrawlCommands },
  { names: ['worker'], load: async () => (await import('./worker-command.ts')).registerWorkerCommand },
  { names: ['robots'], load: async () => { const m = await import('./robots-command.ts'); return (p) => m.registerRobotsCommand(p); } },
  { names: ['scope'], load: async () => { const m = await import('./scope-command.ts'); return (p) => m.registerScopeCommand(p); } },
  { names: ['index'], load: async () => { const m = await import('./index-command.ts'); return (p) => m.registerIndexCommand(p); } },
  { names: ['check'], load: async () => { const m = await import('./check-command.ts'); return (p) => m.registerCheckCommand(p); } },
  { names: ['import'], load: async () => { const m = await import('./import-command.ts'); return (p) => m.registerImportCommand(p); } },
  { names: ['get'], load: async () => { const m = await import('./get-command.ts'); return (p) => m.registerGetCommand(p); } },
  { names: ['export'], load: async () => { const m = await import('./export-command.ts'); return (p) => m.registerExportCommand(p); } },
  { names: ['pause', 'stop', 'status'], load: async () => (await import('./shared-crawl-command.ts')).registerSharedCrawlCommands },
  { names: ['exclude'], load: async () => (await import('./exclude-command.ts')).registerExcludeCommand },
  { names: ['profile'], load: async () => (await import('./profile-command.ts')).registerProfileCommand },
  { names: ['recrawl'], load: async () => (await import('./recrawl-command.ts')).registerRecrawlCommand },
  { names: ['changes'], load: async () => (await import('./changes-command.ts')).registerChangesCommand },
  { names: ['qa'], load: async () => (await import('./qa-command.ts')).registerQaCommand },
];

/** The command modules `trove <argv>` needs: the named command's, none for --version, else all. */
function modulesFor(argv: readonly string[]): typeof COMMAND_MODULES {
  const first = argv[0];
  const named = COMMAND_MODULES.filter((m) => first !== undefined && m.names.includes(first));
  if (named.length > 0) return named;
  if (argv.length === 1 && (first === '-V' || first === '--version')) return [];
  return COMMAND_MODULES;
}

/** The program with the commands `argv` needs registered (all of them when argv is not given). */
export async function buildProgram(io: CommandIo = processIo, argv: readonly string[] = []): Promise<Command> {
  const program = new Command();
  program
    .name('trove')
    .description('Trove: polite, scoped web crawls to WARC/1.1; check, index, replay and export archives')
    .version(TROVE_VERSION)
    .exitOverride()
    // Subcommands inherit this: commander's own usage errors are printed by runCli, in Trove's form.
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s), outputError: () => {} });
  const registers = await Promise.all(modulesFor(argv).map((m) => m.load()));
  for (const register of registers) register(program, io);
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
  const program = await buildProgram(io, argv);
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
