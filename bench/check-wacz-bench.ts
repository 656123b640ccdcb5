/**
 * `trove check` on a WACZ against `trove check` on the WARCs inside it, in the same run: what the
 * package checks cost on top of the WARC checks (hashing every resource, indexing the WARCs, which
 * are read in place, into the temporary record store to check each index line against its
 * record, the pages file). The package is what `trove export --wacz` writes for an archive
 * imported from one synthetic WARC.gz (2,000 pages of 40 KB with their request records).
 *
 * Target: the WACZ check ≤ 3× the WARC check (the WARCs are read three times: hashed, checked,
 * indexed; the check itself dominates).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSyntheticWarc } from './synthetic-warc.ts';
import { cliNodeFlags } from './cli-node-flags.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const trove = path.join(here, '..', 'bin', 'trove.js');


/** Wall time of `trove <args>`; exit 1 (problems found) is a finished check too. */
function timeTrove(args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [...cliNodeFlags(), trove, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - t0;
  if (r.status !== 0 && r.status !== 1) throw new Error(`trove ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

function best(n: number, f: () => number): number {
  let m = Infinity;
  for (let i = 0; i < n; i++) m = Math.min(m, f());
  return m;
}

export async function runCheckWaczBench(): Promise<Record<string, number>> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-check-wacz-bench-'));
  try {
    const warc = await writeSyntheticWarc(path.join(work, 'src'));
    const archive = path.join(work, 'archive');
    const wacz = path.join(work, 'bench.wacz');
    for (const args of [['import', '--archive', archive, '--no-progress', warc], ['export', archive, '--wacz', wacz]]) {
      const r = spawnSync(process.execPath, [trove, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
      if (r.status !== 0) throw new Error(`trove ${args[0]} failed: ${r.stderr}`);
    }
    timeTrove(['check', warc]); // warm the page cache and the compile cache
    const warcMs = best(3, () => timeTrove(['check', warc]));
    const waczMs = best(3, () => timeTrove(['check', wacz]));
    const mb = (f: string) => fs.statSync(f).size / 1048576;
    console.log(`\ncheck-wacz: ${mb(warc).toFixed(1)} MB WARC.gz, ${mb(wacz).toFixed(1)} MB WACZ holding it`);
    console.log(`  trove check <warc>           ${(warcMs / 1000).toFixed(2)} s`);
    console.log(`  trove check <wacz>           ${(waczMs / 1000).toFixed(2)} s`);
    console.log(`  wacz / warc                  ${(waczMs / warcMs).toFixed(2)}×   target ≤ 3×`);
    return { warcMb: mb(warc), waczMb: mb(wacz), warcMs, waczMs, ratio: waczMs / warcMs };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runCheckWaczBench();
