/**
 * The read side of a big archive (issue 39, part 3), run by big-archive-bench.ts as a child of its
 * own on an archive it imported: replay lookup (replayHead: the capture chosen from the index and
 * its stored record's head read from the WARC, what the replay server does before a body), full-
 * text search (the app's records.search: 50 hits with snippets) and the Pages view's first screen
 * (the app's records.sortedPages, 200 pages sorted by title, the view's default, with the total),
 * from opening the archive. Prints one JSON line.
 *
 *   node bench/big-archive-queries.ts ARCHIVE_DIR CAPTURES
 *
 * URLs and words are those bench/big-archive-bench.ts writes (big-archive-data.ts).
 */
import { openArchive } from '../core/archive/archive-dir.ts';
import { searchText, sortedPages } from '../core/archive/record-query.ts';
import { replayHead } from '../core/replay/replay.ts';
import { benchQueries, bigArchiveUrl } from './big-archive-data.ts';

const [dir, capturesArg] = process.argv.slice(2);
const captures = Number(capturesArg);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Wall ms of each call, and the process's CPU ms for each (what a call costs whatever the machine's load). */
async function timed(n: number, run: (i: number) => unknown): Promise<number[] & { cpu: number[] }> {
  const ms: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < n; i++) {
    const c = process.cpuUsage();
    const t = performance.now();
    await run(i);
    ms.push(performance.now() - t);
    const d = process.cpuUsage(c);
    cpu.push((d.user + d.system) / 1000);
  }
  return Object.assign(ms.sort((a, b) => a - b), { cpu: cpu.sort((a, b) => a - b) });
}

const t0 = performance.now();
const archive = openArchive(dir!, { create: false });
const first = sortedPages(archive, { sort: 'title', limit: 200 });
const pagesFirstMs = performance.now() - t0;
const pagesAgain = await timed(5, () => sortedPages(archive, { sort: 'title', limit: 200 }));

// Captured URLs spread over the archive (a fixed stride, so every run asks the same ones).
let misses = 0;
const lookup = await timed(500, async (i) => {
  const n = Math.floor(((i * 7919) % 500) * (captures / 500));
  const r = await replayHead(archive, { url: bigArchiveUrl(n) });
  if (r.kind !== 'archived') misses++;
});
const queries = benchQueries();
let hits = 0;
const search = await timed(queries.length, (i) => {
  hits += searchText(archive, queries[i]!, 50).length;
});
archive.close();
console.log(
  JSON.stringify({
    pagesFirstMs,
    pagesTotal: first.total,
    pagesAgainP50: percentile(pagesAgain, 50),
    lookupP50: percentile(lookup, 50),
    lookupP99: percentile(lookup, 99),
    lookupCpuP50: percentile(lookup.cpu, 50),
    lookupMisses: misses,
    searchP50: percentile(search, 50),
    searchP99: percentile(search, 99),
    searchCpuP50: percentile(search.cpu, 50),
    searchHits: hits,
  }),
);
