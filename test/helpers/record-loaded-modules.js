/**
 * Preloaded with `--import` into a `trove` process by test/crawl/cli-loaded-modules.test.ts:
 * records every module the process (and its worker threads) load — files through a module hook,
 * Node's own built-ins from process.moduleLoadList — and appends them to $TROVE_LOADED_OUT at
 * exit, one `thread<TAB>what` line each. Plain JavaScript: it must load before any TypeScript.
 */
import fs from 'node:fs';
import { registerHooks } from 'node:module';
import { threadId } from 'node:worker_threads';

const out = process.env.TROVE_LOADED_OUT;
const loaded = [];
if (out) {
  registerHooks({
    load(url, context, nextLoad) {
      if (!url.startsWith('node:')) loaded.push(url);
      return nextLoad(url, context);
    },
  });
  process.on('exit', () => {
    const lines = [...loaded, ...process.moduleLoadList].map((m) => `${threadId}\t${m}\n`);
    fs.appendFileSync(out, lines.join(''));
  });
}
