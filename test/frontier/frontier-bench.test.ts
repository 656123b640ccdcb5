/** Keeps bench/frontier-bench.ts runnable: a tiny run, checked for sane figures (not for speed). */
import { describe, expect, it } from 'vitest';
import { runFrontierBench } from '../../bench/frontier-bench.ts';

describe('frontier bench (smoke)', () => {
  it('runs end to end on a small frontier, including the SIGKILL resume', async () => {
    const r = await runFrontierBench({ n: 3000, hosts: 20 });
    for (const key of ['enqueuePerSec', 'plainEnqueuePerSec', 'plainUniqueEnqueuePerSec', 'claimCompletePerSec', 'plainClaimCompletePerSec', 'resumeMs', 'fileBytes', 'peakRssBytes']) {
      expect(r[key], key).toBeGreaterThan(0);
    }
    expect(r.n).toBe(3000);
  });
});
