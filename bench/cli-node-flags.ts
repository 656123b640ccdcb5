/**
 * The Node flags and environment the `trove` CLI runs with (its shebang line, bin/trove.js:
 * `#!/usr/bin/env -S NAME=value … node --flag …`), for benchmark children that run Trove's code
 * directly: they measure the CLI as users run it. `tree`: another checkout's CLI (an A/B bench
 * runs a baseline with the flags and environment of its own shebang, not of this one).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

function shebangWords(tree = here): string[] {
  const shebang = fs.readFileSync(path.join(tree, 'bin', 'trove.js'), 'utf8').split('\n', 1)[0]!;
  const m = /^#!\/usr\/bin\/env -S (.*)$/.exec(shebang);
  return m ? m[1]!.trim().split(/\s+/).filter(Boolean) : [];
}

export function cliNodeFlags(tree?: string): string[] {
  const words = shebangWords(tree);
  const node = words.indexOf('node');
  return node < 0 ? [] : words.slice(node + 1);
}

/** The environment for such a child: this process's, plus the shebang's NAME=value settings. */
export function cliNodeEnv(tree?: string): NodeJS.ProcessEnv {
  const env = { ...process.env };
  const words = shebangWords(tree);
  for (const w of words.slice(0, Math.max(0, words.indexOf('node')))) {
    const eq = w.indexOf('=');
    if (eq > 0) env[w.slice(0, eq)] = w.slice(eq + 1);
  }
  return env;
}

/**
 * The environment to run `bin/trove.js` itself in, through its shebang (`/usr/bin/env -S … node
 * …`): this process's, with the directory of the Node running the bench first on PATH, so the
 * shebang finds that Node (the one in node_modules) and not an older one on the system.
 */
export function shebangEnv(): NodeJS.ProcessEnv {
  return { ...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}` };
}
