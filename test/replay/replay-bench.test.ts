import { describe, expect, it } from 'vitest';
import { runReplayBench } from '../../bench/replay-bench.ts';

describe('replay benchmark (small run)', () => {
  it('builds a synthetic index, replays hits and misses, and reports figures', async () => {
    const r = await runReplayBench({ n: 3000, importMB: 0, lookups: 200 });
    expect(r.captures).toBe(3008);
    expect(r.replayP50Ms).toBeGreaterThan(0);
    expect(r.missP50Ms).toBeGreaterThan(0);
  }, 60_000);
});
