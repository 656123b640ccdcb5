/**
 * Long fuzz runs of the WARC, CDXJ and WACZ readers (the same cases `npm test` runs a few hundred of):
 *
 *   node bench/fuzz.ts [iterations=5000] [seed=random] [warc|cdxj|wacz|all=all]
 *
 * Prints the seed first, so any run can be repeated; each failure prints its case seed and the
 * command that replays that one case (`node bench/fuzz.ts 1 <case seed> <kind>`), and its input
 * is saved. Exit code 1 when anything failed (an exception other than TroveError, a timeout, a
 * hang, a worker out of memory), the live heap grew by more than 20 MB across the run (a leak), or
 * the RSS peaked over 600 MB.
 */
import { formatFailure, runFuzzCampaign, type CampaignResult, type FuzzKind } from '../test/fuzz/fuzz-campaign.ts';

const [itArg, seedArg, kindArg] = process.argv.slice(2);
const iterations = itArg ? Number(itArg) : 5000;
const seed = seedArg !== undefined ? Number(seedArg) >>> 0 : (Math.random() * 2 ** 32) >>> 0;
const kinds: FuzzKind[] = kindArg === 'warc' || kindArg === 'cdxj' || kindArg === 'wacz' ? [kindArg] : ['warc', 'cdxj', 'wacz'];
if (!Number.isSafeInteger(iterations) || iterations < 1) throw new Error(`iterations must be a whole number ≥ 1, not ${itArg}`);

console.log(`fuzz: seed ${seed}, ${iterations} iterations of ${kinds.join(' and ')}`);
let bad = false;
const results: CampaignResult[] = [];
for (const kind of kinds) {
  let last = 0;
  const r = await runFuzzCampaign({
    kind,
    seed,
    iterations,
    onProgress: (done, total) => {
      const now = Date.now();
      if (process.stderr.isTTY && now - last > 500) {
        last = now;
        process.stderr.write(`\r${kind}: ${done}/${total}`);
      }
    },
  });
  if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
  results.push(r);
  console.log(
    `${kind}: ${r.cases} cases in ${(r.elapsedMs / 1000).toFixed(1)} s (slowest ${r.slowestCaseMs} ms), ` +
      `RSS ${r.rssStartMb} → peak ${r.rssPeakMb} MB (growth ${r.rssGrowthMb} MB), live heap growth ${r.heapGrowthMb ?? '?'} MB, ${r.failures.length} failures`,
  );
  for (const [target, counts] of Object.entries(r.outcomes)) {
    console.log(`  ${target}: ${Object.entries(counts).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  }
  for (const f of r.failures) console.log(formatFailure(f, kind));
  if (r.failures.length > 0 || (r.heapGrowthMb ?? 0) > 20 || r.rssPeakMb > 600) bad = true;
}
process.exitCode = bad ? 1 : 0;
