/**
 * Runs fuzz cases in a worker thread, so the parent (fuzz-campaign.ts) can watch it: a case
 * that never returns (even a synchronous loop) is caught by the parent's watchdog and the worker
 * is replaced; a reader that buffers without bound hits the worker's heap limit instead of the
 * machine's memory.
 *
 * Per case: mutate one input (fuzz-kit.ts), write it to a file, and run every reader on it to
 * the end under a time limit. Only TroveErrors may escape a reader (`checkWarcFile` and
 * `checkWaczFile` may throw nothing at all); anything else is a failure, reported with the case seed and saved input.
 */
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';
import { indexFile } from '../../core/archive/cdxj-index.ts';
import { readCdxjLines } from '../../core/archive/cdxj-read.ts';
import { formatCdxj, sortCdxjLines } from '../../core/archive/cdxj.ts';
import { PriorCaptures } from '../../core/crawl/prior-captures.ts';
import { isTroveError } from '../../core/errors.ts';
import { openDatabase } from '../../core/storage/open-database.ts';
import { checkWarcFile } from '../../core/warc/check-warc.ts';
import { openArchiveFile, readRecordAt } from '../../core/warc/read-records.ts';
import { caseSeed, int, loadWaczCorpus, loadWarcCorpus, mutateText, mutateWacz, mutateWarc, pick, prng, type CorpusFile } from './fuzz-kit.ts';

/** `selftest` runs broken targets on purpose, to prove the harness catches each kind of failure. */
export type FuzzKind = 'warc' | 'cdxj' | 'wacz' | 'selftest';

export interface WorkerInput {
  kind: FuzzKind;
  seed: number;
  from: number;
  to: number;
  caseTimeoutMs: number;
  dir: string;
}

export interface FuzzFailure {
  i: number;
  caseSeed: number;
  file: string;
  applied: string[];
  target: string;
  kind: 'exception' | 'timeout' | 'hang' | 'memory';
  error: string;
  savedAs?: string;
}

export type WorkerMessage =
  | { type: 'start'; i: number; caseSeed: number; file: string; applied: string[]; savedAs: string }
  | { type: 'failure'; failure: FuzzFailure }
  | { type: 'end'; i: number; ms: number; outcomes: Record<string, string> }
  /** Live heap after a full GC (null when GC cannot be forced): a leak shows as growth. */
  | { type: 'heap'; i: number; usedMb: number | null }
  | { type: 'done' };

type Target = { name: string; run: (p: string) => Promise<string>; allowed: (err: unknown) => boolean };

async function drainWarc(p: string): Promise<string> {
  let n = 0;
  for await (const r of openArchiveFile(p, { onWarning: () => {} })) {
    n++;
    for await (const chunk of r.block()) void chunk;
  }
  return `${n} records`;
}

function warcTargets(original: CorpusFile): Target[] {
  const anyTrove = (err: unknown) => isTroveError(err);
  return [
    { name: 'openArchiveFile', run: drainWarc, allowed: anyTrove },
    {
      // check never throws for a broken file: every defect is a problem in its result.
      name: 'checkWarcFile',
      run: async (p) => {
        const r = await checkWarcFile(p, { maxProblems: 100 });
        return `${r.records} records, ${r.errors} errors`;
      },
      allowed: () => false,
    },
    {
      name: 'indexFile',
      run: async (p) => {
        let n = 0;
        for await (const e of indexFile(p)) void (formatCdxj(e) && n++);
        return `${n} entries`;
      },
      allowed: anyTrove,
    },
    {
      // Replay reads at offsets an index gave: those of the original file, now maybe wrong.
      name: 'readRecordAt',
      run: async (p) => {
        const size = fs.statSync(p).size;
        let ok = 0;
        for (const offset of (original.members ?? [0]).slice(0, 4)) {
          if (offset >= size) continue;
          try {
            const r = await readRecordAt(p, offset);
            for await (const chunk of r.block()) void chunk;
            ok++;
          } catch (err) {
            if (!isTroveError(err)) throw err;
          }
        }
        return `${ok} read`;
      },
      allowed: anyTrove,
    },
  ];
}

function cdxjTargets(dbHolder: { db: ReturnType<typeof openDatabase> }): Target[] {
  return [
    {
      name: 'readCdxjLines',
      run: async (p) => {
        let n = 0;
        for await (const l of readCdxjLines(fs.createReadStream(p), p)) void (l && n++);
        return `${n} lines`;
      },
      allowed: (err) => isTroveError(err, 'CDXJ_BAD_LINE'),
    },
    {
      // --dedup-from: the crawler's use of a CDXJ file, into a real (in-memory) database.
      name: 'PriorCaptures.load',
      run: async (p) => {
        dbHolder.db.exec("DELETE FROM prior_captures; DELETE FROM meta WHERE key = 'dedupFromLoaded'");
        const prior = new PriorCaptures(dbHolder.db);
        try {
          await prior.load([p]);
        } finally {
          prior.close();
        }
        return `${(dbHolder.db.prepare('SELECT COUNT(*) AS n FROM prior_captures').get() as { n: number }).n} rows`;
      },
      allowed: (err) => isTroveError(err, 'DEDUP_SOURCE_INVALID'),
    },
  ];
}

/**
 * The WACZ readers: the package reader (every entry read to the end through its bounds), `trove
 * check` on the package (which may throw nothing), and an import into a real archive, after which
 * no partial file (`.part`, `.tmp`) may be left.
 */
async function waczTargets(archiveDir: string): Promise<Target[]> {
  // Loaded only for WACZ campaigns: the other workers start as fast as before (the harness
  // self-test gives a worker 3 s to start on a busy machine).
  const { importFiles } = await import('../../core/archive/import-warc.ts');
  const { checkWaczFile } = await import('../../core/archive/wacz-check.ts');
  const { openWacz, verifyWacz } = await import('../../core/archive/wacz-read.ts');
  const anyTrove = (err: unknown) => isTroveError(err);
  return [
    {
      name: 'openWacz',
      run: async (p) => {
        const pkg = await openWacz(p);
        try {
          const checks = await verifyWacz(pkg);
          let bytes = 0;
          for (const e of pkg.entries) {
            try {
              for await (const c of await pkg.openEntry(e)) bytes += (c as Buffer).length;
            } catch (err) {
              if (!isTroveError(err)) throw err;
            }
          }
          return `${pkg.entries.length} entries, ${checks.filter((c) => !c.ok).length} bad, ${bytes} bytes`;
        } finally {
          pkg.close();
        }
      },
      allowed: anyTrove,
    },
    {
      name: 'checkWaczFile',
      run: async (p) => {
        const r = await checkWaczFile(p, { maxProblems: 100 });
        return `${r.records} records, ${r.errors} errors`;
      },
      allowed: () => false,
    },
    {
      name: 'importFiles',
      run: async (p) => {
        const report = await importFiles(archiveDir, [p]);
        const left = (fs.readdirSync(archiveDir, { recursive: true }) as string[]).filter((f) => /\.(part|tmp)$/.test(f));
        if (left.length > 0) throw new Error(`import left partial files behind: ${left.join(', ')}`);
        return `${report.records} records, ${report.problems.length} problems`;
      },
      allowed: anyTrove,
    },
  ];
}

/** Case i misbehaves in way i % 5: fine, throws a TypeError, loops forever, never settles, exhausts the heap. */
function selfTestTargets(i: number): Target[] {
  const run = async (): Promise<string> => {
    switch (i % 5) {
      case 1:
        throw new TypeError('a bug, not a TroveError');
      case 2:
        for (;;) {
          /* a synchronous hang */
        }
      case 3:
        return new Promise<string>(() => {});
      case 4: {
        const hoard: number[][] = [];
        for (;;) hoard.push(new Array(1 << 16).fill(hoard.length));
      }
      default:
        return '1 fine';
    }
  };
  return [{ name: 'selftest', run, allowed: (err) => isTroveError(err) }];
}

/** CDXJ text of every corpus file that indexes (sorted, as `trove index` writes it), by file. */
async function cdxjCorpus(files: CorpusFile[], dir: string): Promise<{ name: string; lines: string[] }[]> {
  const out: { name: string; lines: string[] }[] = [];
  for (const f of files) {
    const p = path.join(dir, 'index-input');
    fs.writeFileSync(p, f.bytes);
    const lines: string[] = [];
    try {
      for await (const e of indexFile(p, { filename: path.basename(f.name) })) lines.push(formatCdxj(e));
    } catch {
      /* broken corpus files index partly; what came is still CDXJ */
    }
    if (lines.length > 0) out.push({ name: f.name, lines: sortCdxjLines(lines) });
  }
  return out;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout;
  return Promise.race([p, new Promise<typeof TIMED_OUT>((resolve) => (timer = setTimeout(() => resolve(TIMED_OUT), ms)))]).finally(() => clearTimeout(timer));
}
const TIMED_OUT = Symbol('timed out');

/** Cases run before the first heap measurement (lazy module state, caches, JIT). */
const WARMUP = 100;

/** heapUsed after a forced full GC, in MB. The flag is set for this worker's isolate only. */
function heapAfterGc(): number | null {
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as (() => void) | undefined;
    if (typeof gc !== 'function') return null;
    gc();
    return process.memoryUsage().heapUsed / (1024 * 1024);
  } catch {
    return null;
  }
}

async function main(input: WorkerInput): Promise<void> {
  const post = (m: WorkerMessage) => parentPort!.postMessage(m);
  const corpus = input.kind === 'wacz' ? loadWaczCorpus() : loadWarcCorpus();
  const failuresDir = path.join(input.dir, 'failures');
  const caseDir = path.join(input.dir, `cases-${input.from}`);
  fs.mkdirSync(caseDir, { recursive: true });
  const cdxj = input.kind === 'cdxj' ? await cdxjCorpus(corpus, caseDir) : [];
  const dbHolder = { db: openDatabase(':memory:') };

  for (let i = input.from; i < input.to; i++) {
    if (i === input.from + Math.min(WARMUP, Math.floor((input.to - input.from) / 2))) post({ type: 'heap', i, usedMb: heapAfterGc() });
    const seed = caseSeed(input.seed, i);
    const rnd = prng(seed);
    let file: string;
    let bytes: Buffer;
    let applied: string[];
    let targets: Target[];
    let ext: string;
    if (input.kind === 'warc') {
      const f = pick(rnd, corpus);
      ({ bytes, applied } = mutateWarc(f, rnd));
      file = f.name;
      targets = warcTargets(f);
      ext = f.members ? '.warc.gz' : '.warc';
    } else if (input.kind === 'wacz') {
      const f = pick(rnd, corpus);
      ({ bytes, applied } = mutateWacz(f, rnd));
      file = f.name;
      targets = await waczTargets(path.join(caseDir, 'archive'));
      ext = '.wacz';
    } else if (input.kind === 'selftest') {
      bytes = Buffer.from(`case ${i}`);
      applied = [];
      file = 'selftest';
      targets = selfTestTargets(i);
      ext = '.txt';
    } else {
      const parts = Array.from({ length: int(rnd, 1, 3) }, () => pick(rnd, cdxj));
      const text = Buffer.from(parts.flatMap((p) => p.lines).join('\n') + '\n');
      ({ bytes, applied } = mutateText(text, rnd));
      file = parts.map((p) => p.name).join('+');
      targets = cdxjTargets(dbHolder);
      ext = '.cdxj';
    }
    const p = path.join(caseDir, `case${ext}`);
    fs.writeFileSync(p, bytes);
    const savedAs = path.join(failuresDir, `case-${seed}${ext}`);
    post({ type: 'start', i, caseSeed: seed, file, applied, savedAs });
    const t0 = performance.now();
    const outcomes: Record<string, string> = {};
    for (const t of targets) {
      const fail = (kind: FuzzFailure['kind'], error: string) => {
        fs.mkdirSync(failuresDir, { recursive: true });
        fs.copyFileSync(p, savedAs);
        post({ type: 'failure', failure: { i, caseSeed: seed, file, applied, target: t.name, kind, error, savedAs } });
      };
      try {
        const r = await withTimeout(t.run(p), input.caseTimeoutMs);
        if (r === TIMED_OUT) {
          outcomes[t.name] = 'timeout';
          fail('timeout', `${t.name} did not finish within ${input.caseTimeoutMs} ms`);
        } else {
          outcomes[t.name] = r;
        }
      } catch (err) {
        outcomes[t.name] = isTroveError(err) ? err.code : 'crash';
        if (!t.allowed(err)) fail('exception', err instanceof Error ? (err.stack ?? err.message) : String(err));
      }
    }
    post({ type: 'end', i, ms: performance.now() - t0, outcomes });
  }
  post({ type: 'heap', i: input.to, usedMb: heapAfterGc() });
  dbHolder.db.close();
  fs.rmSync(caseDir, { recursive: true, force: true });
  post({ type: 'done' });
}

if (parentPort && workerData) await main(workerData as WorkerInput);
