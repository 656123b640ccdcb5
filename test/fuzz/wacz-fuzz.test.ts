/**
 * Fuzzing the WACZ readers: the corpus packages with their ZIP header fields (sizes, offsets,
 * CRCs, name and extra lengths, methods, the end record) rewritten to hostile values, and
 * byte-level damage, read by openWacz (every entry to the end, through its bounds), checked by
 * checkWaczFile, and imported into a real archive. Only TroveErrors may escape (check may throw
 * nothing), an import may leave no partial file, no case may hang, and the live heap must not
 * grow.
 *
 * TROVE_FUZZ_SEED and TROVE_FUZZ_ITERATIONS change the seed and count; `node bench/fuzz.ts N SEED
 * wacz` runs long campaigns.
 */
import { describe, expect, it } from 'vitest';
import { formatFailure, runFuzzCampaign } from './fuzz-campaign.ts';

const seed = Number(process.env.TROVE_FUZZ_SEED ?? 20261121) >>> 0;
const iterations = Number(process.env.TROVE_FUZZ_ITERATIONS ?? 300);

describe('WACZ reader fuzz', () => {
  it(`${iterations} mutated corpus packages: only typed errors, no partial files, no hang, no leak (seed ${seed})`, async () => {
    const r = await runFuzzCampaign({ kind: 'wacz', seed, iterations, caseTimeoutMs: 5000, stallMs: 15_000 });
    console.log(
      `wacz fuzz: seed ${seed}, ${r.cases} cases in ${r.elapsedMs} ms (slowest ${r.slowestCaseMs} ms), RSS peak ${r.rssPeakMb} MB, ` +
        `heap growth ${r.heapGrowthMb} MB; outcomes ${JSON.stringify(r.outcomes)}`,
    );
    expect(r.failures.map((f) => formatFailure(f, 'wacz'))).toEqual([]);
    expect(r.cases).toBe(iterations);
    // The mutations must get past the ZIP directory often, and be refused often.
    expect(r.outcomes.openWacz?.ok ?? 0).toBeGreaterThan(iterations / 10);
    expect(iterations - (r.outcomes.openWacz?.ok ?? 0)).toBeGreaterThan(iterations / 10);
    if (r.heapGrowthMb !== null) expect(r.heapGrowthMb).toBeLessThan(20);
  }, 180_000);
});
