/**
 * The one form of a `trove` error, and the one mapping from error codes to exit status, for
 * every command:
 *
 *   trove scope test: unknown option '--sed' (Did you mean --seed?) [CLI_USAGE]
 *   Try 'trove scope test --help'.
 *
 * Exit status comes from the one mapping in the error catalogue (api/error-codes.ts exitCodeFor):
 * 0 success (help and version included); 2 nothing was done (the command line was wrong — those
 * point at --help — or the place is held, or the named file cannot be opened); 1 the command ran
 * and failed, or found what it reports (a rejected URL in `scope test`, a failed crawl).
 */
import { CommanderError } from 'commander';
import { exitCodeFor, isUsageCode, type CliCode, type ErrorCode } from '../api/error-codes.ts';
import { settingRow } from '../api/settings-registry.ts';

/** A command's own exit status with nothing more to say (its output already said it). */
export class CliExit extends Error {
  readonly status: number;
  constructor(status: number) {
    super(`exit ${status}`);
    this.status = status;
  }
}

/** Commander's usage errors (unknown option, missing argument, bad choice) all have this code. */
export const CLI_USAGE = 'CLI_USAGE' satisfies ErrorCode;

/** `trove <command>: <message> [CODE]`, and for a usage error a pointer at --help. */
export function formatCliError(command: string, message: string, code: CliCode): string {
  const name = command ? `trove ${command}` : 'trove';
  const line = `${name}: ${message.replace(/^error:\s*/i, '').replace(/\s*\n\s*/g, ' ').trim()} [${code}]\n`;
  return exitCodeFor(code) === 2 && isUsageCode(code) ? `${line}Try '${name} --help'.\n` : line;
}

/** A commander error's code in Trove's terms (its usage errors are all CLI_USAGE). */
export function codeOfCommanderError(err: CommanderError): CliCode {
  const code = err.code as CliCode;
  return code.startsWith('commander.') && exitCodeFor(code) !== 0 ? CLI_USAGE : code;
}

/**
 * A settings key (validate-settings.ts) as the flag that sets it, from the settings registry,
 * where the command has one: `limitPages` → `--limit-pages`, `limitTimeS` → `--limit-time`,
 * `overrides[1].minDelayMs` → `--override #2 min-delay-ms`; otherwise the key itself (a
 * config-file setting).
 */
export function flagNameOf(key: string, flags: readonly string[]): string {
  const item = /^(\w+)\[(\d+)\](?:\.(\w+))?$/.exec(key);
  if (item) {
    const list = settingRow(item[1]!);
    const field = item[3] ? (settingRow(item[3])?.cli.flag.slice(2) ?? item[3]) : '';
    if (list && flags.includes(list.cli.flag)) return `${list.cli.flag} #${Number(item[2]) + 1}${field ? ` ${field}` : ''}`;
    return key;
  }
  const flag = settingRow(key)?.cli.flag;
  return flag && flags.includes(flag) ? flag : key;
}

/** SETTINGS_INVALID with every problem, one per line, each named by its flag. */
export function formatSettingsProblems(command: string, problems: readonly { key: string; message: string }[], flags: readonly string[]): string {
  const lines = problems.map((p) => `  ${flagNameOf(p.key, flags)}: ${p.message}\n`).join('');
  const head = problems.length === 1 ? 'a setting is not valid' : `${problems.length} settings are not valid`;
  return formatCliError(command, head, 'SETTINGS_INVALID').replace(/\n/, `\n${lines}`);
}

