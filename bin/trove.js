#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072 MALLOC_TRIM_THRESHOLD_=131072 node --max-semi-space-size=4 --heap-growing-percent=25
// The `trove` CLI. Node ≥ 22.19 runs the TypeScript sources directly (type stripping).
// A 4 MB semi-space: V8 would grow the young generation to 64–128 MB under a crawl's or an
// import's allocation rate. The flag is process-wide and overrides worker threads' own limits
// (an extraction worker gets 2 × 4 MB, what its resourceLimits ask for without the flag). Measured
// on 2 cores against 8 MB: Python docs crawl (8×8) peak RSS 204–246 MB (8 MB: 245–264), hostile
// reliability crawl 415 MB (8 MB: 470–493; none: 431–442), `trove index` of a 306 MB WARC.gz
// 1.28× a plain gunzip (8 MB: 1.11×), importing a 200 MB WARC.gz 204 MB. The benches start their
// Trove children with these same flags (bench/cli-node-flags.ts).
// MALLOC_ARENA_MAX=2: glibc gives each thread that allocates (the crawl thread, the extraction
// worker, libuv's zlib and file threads, SQLite) an arena of its own, and freed memory stays
// spread over them. Two arenas: Python docs crawl (8×8) peak RSS 193 MB against 222 MB, the
// same CPU (issue 20).
// MALLOC_MMAP_THRESHOLD_=131072 MALLOC_TRIM_THRESHOLD_=131072: glibc's own defaults, made fixed.
// By default both move: once a buffer it had mmapped (≥ 128 KiB) is freed, glibc raises the
// threshold to that size (up to 32 MiB), so later bodies, zlib outputs and read buffers of that
// size come from the arenas instead, and freed memory in an arena goes back to the system only
// from its top. A crawl frees such buffers all the time; its main arena then only grows.
// Fixed, a buffer ≥ 128 KiB is mmapped and unmapped when freed, and an arena's free top past
// 128 KiB is returned. On the 11,111-page synthetic crawl: peak RSS 160 MiB against 172, no CPU
// cost (issue 20).
// --heap-growing-percent=25: after each full collection V8 lets the old generation grow to a factor
// of the live size (up to 4×) before the next one; a crawl's live heap is small (~25 MB) and most of what
// piles up between collections is garbage (bodies, records, rows), so the default lets RSS climb
// with the crawl. 1.25× keeps it near the live size: on the Python docs crawl peak RSS ~10 MiB
// lower for ~5% more CPU (more full collections; issue 20).
// First: a one-line refusal on a Node too old for the .ts sources, before any of them loads.
import './check-node.js';
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
