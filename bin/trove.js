#!/usr/bin/env -S node --max-semi-space-size=8
// The `trove` CLI. Node ≥ 22.19 runs the TypeScript sources directly (type stripping).
// An 8 MB semi-space (V8's default grows the young generation to 64 MB and more under a crawl's
// or an import's allocation rate) keeps memory flat at no cost in speed. Measured on 2 cores:
// the Python docs crawl (8×8) peaked at 245–264 MB RSS instead of 250–314 MB; `trove index` of a
// 306 MB WARC.gz at 164–188 MB instead of 186–196 MB (16 MB) and ~210 MB (default); importing a
// 320 MB WARC.gz at 283 MB with 16 MB against 376 MB by default. The benches start their Trove
// children with these same flags (bench/cli-node-flags.ts).
import { enableCompileCache } from './compile-cache.js';

enableCompileCache();
const { main } = await import('../core/cli/main.ts');

// `trove index big.warc.gz | head` closes our stdout early: that is the reader's choice, not an
// error, so stop quietly as Unix tools do.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

await main(process.argv.slice(2));
