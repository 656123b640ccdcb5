/**
 * The gate every command passes, whatever carries it (Electron IPC, the e2e harness's binding,
 * tests): known name → validate payload → call handler → `Result`. Errors never escape as
 * exceptions: a TroveError keeps its code, anything else becomes INTERNAL (its message kept,
 * its stack only in the host's log).
 *
 * The sender check is the host's job before it calls `dispatch` (only the host knows which
 * window a message came from).
 */
import { COMMANDS, isCommandName, type CommandName, type Handlers, type PayloadOf, type ResultOf } from '../api/commands.ts';
import { check } from '../api/validate.ts';
import { fail, type AppError, type Result } from '../api/result.ts';
import { isTroveError } from '../errors.ts';

export interface DispatchOptions {
  /** Called with unexpected (non-TroveError) failures, for the host's log. */
  onInternalError?(name: string, err: unknown): void;
}

export async function dispatch<K extends CommandName>(
  handlers: Partial<Handlers>,
  name: K | string,
  payload: unknown,
  opts: DispatchOptions = {},
): Promise<Result<ResultOf<K>>> {
  if (typeof name !== 'string' || !isCommandName(name)) return fail('UNKNOWN_COMMAND', `no such command: ${String(name)}`);
  const validated = check(COMMANDS[name].payload as (input: unknown, path: string) => PayloadOf<K>, payload);
  if (!validated.ok) return validated;
  const handler = handlers[name] as ((p: PayloadOf<K>) => Promise<ResultOf<K>> | ResultOf<K>) | undefined;
  if (!handler) return fail('NOT_AVAILABLE', `${name} is not available here`);
  try {
    const value = await handler(validated.value);
    return { ok: true, value: (value === undefined ? null : value) as ResultOf<K> };
  } catch (err) {
    return { ok: false, error: errorOf(name, err, opts) };
  }
}

export function errorOf(name: string, err: unknown, opts: DispatchOptions = {}): AppError {
  if (isTroveError(err)) return { code: err.code, message: err.message };
  opts.onInternalError?.(name, err);
  const message = err instanceof Error ? err.message : String(err);
  return { code: 'INTERNAL', message: `${name} failed: ${message}` };
}
