/**
 * Fuzzing the CDXJ reader: CDXJ indexes of the corpus (as `trove index` writes them), mutated
 * byte- and line-wise, read to the end by readCdxjLines and loaded as `--dedup-from` sources by
 * PriorCaptures into a real database. Only CDXJ_BAD_LINE (resp. DEDUP_SOURCE_INVALID) may escape,
 * no case may hang, and the live heap must not grow.
 *
 * TROVE_FUZZ_SEED and TROVE_FUZZ_ITERATIONS change the seed and count; `node bench/fuzz.ts`
 * runs long campaigns.
 */
import { describe, expect, it } from 'vitest';
import { formatFailure, runFuzzCampaign } from './fuzz-campaign.ts';

const seed = Number(process.env.TROVE_FUZZ_SEED ?? 20261121) >>> 0;
const iterations = Number(process.env.TROVE_FUZZ_ITERATIONS ?? 2000);

describe('CDXJ reader fuzz', () => {
  it(`${iterations} mutated CDXJ files: only typed errors naming a line, no hang, no leak (seed ${seed})`, async () => {
    const r = await runFuzzCampaign({ kind: 'cdxj', seed, iterations, caseTimeoutMs: 2000, stallMs: 10_000 });
    console.log(
      `cdxj fuzz: seed ${seed}, ${r.cases} cases in ${r.elapsedMs} ms (slowest ${r.slowestCaseMs} ms), RSS peak ${r.rssPeakMb} MB, ` +
        `heap growth ${r.heapGrowthMb} MB; outcomes ${JSON.stringify(r.outcomes)}`,
    );
    expect(r.failures.map((f) => formatFailure(f, 'cdxj'))).toEqual([]);
    expect(r.cases).toBe(iterations);
    expect(r.outcomes.readCdxjLines?.ok ?? 0).toBeGreaterThan(iterations / 10);
    // The reader and the crawler's loader agree on every case.
    expect(r.outcomes['PriorCaptures.load']?.ok).toBe(r.outcomes.readCdxjLines?.ok);
    if (r.heapGrowthMb !== null) expect(r.heapGrowthMb).toBeLessThan(20);
  }, 120_000);
});
