/**
 * Fuzzing the WARC/ARC reader: mutated corpus files (bit flips, insertions, deletions,
 * truncations, duplicated chunks, shuffled/dropped/duplicated gzip members, mutated and
 * recompressed member contents, hostile Content-Length values) read to the end by
 * openArchiveFile, checkWarcFile, indexFile and readRecordAt. Only TroveErrors may escape (check
 * may throw nothing), no case may take more than the case limit or hang, and the live heap must
 * not grow. A fixed number of cases here; `node bench/fuzz.ts` runs as many as you like.
 *
 * The seed is printed; TROVE_FUZZ_SEED and TROVE_FUZZ_ITERATIONS change it and the count. A
 * failure prints the command that replays its one case.
 */
import { describe, expect, it } from 'vitest';
import { formatFailure, runFuzzCampaign } from './fuzz-campaign.ts';

const seed = Number(process.env.TROVE_FUZZ_SEED ?? 20261121) >>> 0;
const iterations = Number(process.env.TROVE_FUZZ_ITERATIONS ?? 2500);

describe('WARC reader fuzz', () => {
  it(`${iterations} mutated corpus files: only typed errors, no hang, no leak (seed ${seed})`, async () => {
    const r = await runFuzzCampaign({ kind: 'warc', seed, iterations, caseTimeoutMs: 2000, stallMs: 10_000 });
    console.log(
      `warc fuzz: seed ${seed}, ${r.cases} cases in ${r.elapsedMs} ms (slowest ${r.slowestCaseMs} ms), RSS peak ${r.rssPeakMb} MB, ` +
        `heap growth ${r.heapGrowthMb} MB; openArchiveFile outcomes ${JSON.stringify(r.outcomes.openArchiveFile)}`,
    );
    expect(r.failures.map((f) => formatFailure(f, 'warc'))).toEqual([]);
    expect(r.cases).toBe(iterations);
    // The mutations must get past the first bytes: plenty of cases read records, plenty fail.
    expect(r.outcomes.openArchiveFile?.ok ?? 0).toBeGreaterThan(iterations / 10);
    expect(r.outcomes.openArchiveFile?.WARC_TRUNCATED ?? 0).toBeGreaterThan(iterations / 20);
    if (r.heapGrowthMb !== null) expect(r.heapGrowthMb).toBeLessThan(20);
    expect(r.rssPeakMb).toBeLessThan(800);
  }, 120_000);
});
