/**
 * Reads GNU time's `-v` report (`/usr/bin/time -v -o FILE cmd …`, Debian's `time` package): the
 * benches that compare Trove with another tool time both as whole processes this way, start-up
 * and shutdown included, so the figure is what a user's `trove` costs, not what a bench child
 * measures from inside. One home for the format, shared by every bench that times a command.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

/** One command's figures, as GNU time reports them from the kernel's rusage. */
export interface ProcessTimes {
  /** CPU seconds in user mode, every thread (10 ms resolution). */
  userS: number;
  /** CPU seconds in the kernel, every thread. */
  sysS: number;
  /** Elapsed wall-clock seconds. */
  wallS: number;
  /** Largest resident set size, KiB ("Maximum resident set size (kbytes)"). */
  maxRssKib: number;
  exitStatus: number;
}

/** `1:02:03.45`, `2:03.45` or `3.45` → seconds. */
function clockSeconds(text: string): number {
  return text
    .trim()
    .split(':')
    .reduce((acc, part) => acc * 60 + Number(part), 0);
}

export function parseTimeV(report: string): ProcessTimes {
  const field = (label: string): string => {
    const line = report.split('\n').find((l) => l.trim().startsWith(label));
    if (line === undefined) throw new Error(`not a GNU time -v report: no "${label}" line`);
    // The value follows the label's last colon (the wall-clock label has colons inside its brackets).
    return line.slice(line.indexOf(label) + label.length).replace(/^[^:]*:\s*/, '');
  };
  return {
    userS: Number(field('User time (seconds)')),
    sysS: Number(field('System time (seconds)')),
    wallS: clockSeconds(field('Elapsed (wall clock) time (h:mm:ss or m:ss)')),
    maxRssKib: Number(field('Maximum resident set size (kbytes)')),
    exitStatus: Number(field('Exit status')),
  };
}

/** Where GNU time lives on Debian (package `time`). */
export const GNU_TIME = '/usr/bin/time';

/**
 * `cmd args…` as a whole process under `/usr/bin/time -v`, its report written to `report` (a file
 * of its own, so the command's output stays apart). Throws when the exit status is not in `ok`.
 */
export function timeProcess(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; report: string; ok?: number[] }): ProcessTimes {
  const r = spawnSync(GNU_TIME, ['-v', '-o', opts.report, cmd, ...args], { encoding: 'utf8', env: opts.env ?? process.env, stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
  const t = parseTimeV(fs.readFileSync(opts.report, 'utf8'));
  if (!(opts.ok ?? [0]).includes(t.exitStatus)) throw new Error(`${cmd} exited ${t.exitStatus}: ${(r.stderr ?? '').slice(-2000)}`);
  return t;
}
