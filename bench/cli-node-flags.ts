/**
 * The Node flags the `trove` CLI runs with (its shebang line, bin/trove.js), for benchmark
 * children that run Trove's code directly: they measure the CLI as users run it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const cli = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'trove.js');

export function cliNodeFlags(): string[] {
  const shebang = fs.readFileSync(cli, 'utf8').split('\n', 1)[0]!;
  const m = /^#!\/usr\/bin\/env -S node\b(.*)$/.exec(shebang);
  return m ? m[1]!.trim().split(/\s+/).filter(Boolean) : [];
}
