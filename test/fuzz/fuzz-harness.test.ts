/**
 * The fuzz harness catches every kind of failure it claims to: an exception that is not a
 * TroveError, a synchronous hang (watchdog, worker replaced, campaign goes on), a promise that
 * never settles (case limit) and a reader that exhausts the heap (worker heap limit).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFuzzCampaign } from './fuzz-campaign.ts';

describe('fuzz harness', () => {
  it('reports a bug, a hang, a timeout and an out-of-memory case, and runs the rest', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-fuzz-selftest-'));
    const r = await runFuzzCampaign({ kind: 'selftest', seed: 1, iterations: 6, caseTimeoutMs: 200, stallMs: 1000, maxOldGenerationMb: 64, dir }).finally(() =>
      // Every worker has ended by now (terminated or exited): nothing writes here any more.
      fs.rmSync(dir, { recursive: true, force: true }),
    );
    expect(r.failures.map((f) => [f.i, f.kind])).toEqual([
      [1, 'exception'],
      [2, 'hang'],
      [3, 'timeout'],
      [4, 'memory'],
    ]);
    expect(r.failures[0]!.error).toContain('TypeError: a bug, not a TroveError');
    expect(r.failures[0]!.savedAs).toMatch(/case-\d+\.txt$/);
    expect(r.cases).toBe(6);
    expect(r.outcomes.selftest?.ok).toBe(2); // cases 0 and 5, the latter after two replaced workers
  }, 30_000);
});
