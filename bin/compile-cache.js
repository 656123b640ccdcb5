// Node's on-disk compile cache for the TypeScript sources, in this process and in the worker
// threads it starts (they read NODE_COMPILE_CACHE when they boot). Without it every start strips
// the types again with Node's WebAssembly transpiler, once per thread: ~40 MB more peak RSS for
// a crawl (the transpiler's memory stays) and slower start-up. Entries are keyed by the source's
// content, so an edited file is never served stale. Plain JavaScript on purpose: it must run
// before the first .ts module loads.
import module from 'node:module';
import os from 'node:os';
import path from 'node:path';

export function enableCompileCache() {
  if (typeof module.enableCompileCache !== 'function') return;
  // In the user's own cache folder, not a shared temp folder: the cache holds code this process
  // will run, so no other user may write there. If it cannot be written, Node goes on without it.
  const cacheHome = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  const dir = process.env.NODE_COMPILE_CACHE || path.join(cacheHome, 'trove', 'compile-cache');
  process.env.NODE_COMPILE_CACHE = dir;
  module.enableCompileCache(dir);
}
