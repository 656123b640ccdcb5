/**
 * Archives of tens of gigabytes (issue 39): import, check, CDXJ and WACZ export, and the check of
 * the exported WACZ, run as the real CLI on a heap capped at 48 MB over two WARCs made at test
 * time, each with 300 pages and two big bodies: 24 MB each in one (~50 MB), 96 MB each in the
 * other (~200 MB, four times the cap). Peak RSS on the second exceeds that on the first by far
 * less than one body's growth (72 MB), so nothing reads a whole record, file or index into
 * memory. The WACZ check runs with files capped at 16 MB (prlimit --fsize), less than either WARC
 * inside: it checks its STORED WARCs in place, with no copy on disk. (The gzip reader keeps a bounded
 * window, up to ~40 MB, for finding member ends: gzip-members-fast.ts; hence the two sizes
 * rather than one WARC without big bodies.) Then Ctrl-C: a cancelled import leaves the archive
 * as it was, a cancelled WACZ or WARC export leaves no file, a cancelled check stops (a WACZ's
 * check leaves no temporary copy); the archive's WARC still checks. CDXJ export's cancel is
 * tested in process (on an archive this small it ends before a signal could arrive).
 * The figures at gigabytes are the big-archive bench's (bench/big-archive-bench.ts).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive } from '../../core/archive/archive-dir.ts';
import { exportCdxj } from '../../core/export/export-cdxj.ts';
import { exportWacz } from '../../core/export/export-wacz.ts';
import { exportWarcSubset } from '../../core/export/export-warc-subset.ts';
import { exportMirror } from '../../core/export/export-mirror.ts';
import { exportReport } from '../../core/export/export-report.ts';
import { checkWaczFile } from '../../core/archive/wacz-check.ts';
import { isTroveError } from '../../core/errors.ts';
import { writeBigArchiveWarc } from '../helpers/big-archive-warc.ts';
import { troveBin } from '../helpers/trove-cli.ts';
import { removeTempDirs, tempDir } from '../replay/archive-fixture.ts';

const HEAP_MB = 48;
const SMALL_BODY = 24 << 20;
const BIG_BODY = 96 << 20;
// Written by the child at exit: its peak RSS (getrusage), KiB.
const RSS_PROBE = `data:text/javascript,process.on('exit',()=>process.stderr.write('maxrss '+process.resourceUsage().maxRSS+'\\n'))`;
// The CLI's own flags and environment (bin/trove.js's shebang), with the heap capped.
const NODE_FLAGS = ['--max-semi-space-size=4', '--heap-growing-percent=25', `--max-old-space-size=${HEAP_MB}`, `--import=${RSS_PROBE}`];
const NODE_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '131072' };

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  maxRssMb: number;
}

/** Files written larger than this fail (EFBIG): the WACZ check's runs. */
const FSIZE = 16 << 20;

/** Run `trove args`; when `interruptOn` matches stderr, send SIGINT once. With `fsize`, no file it writes may pass that many bytes. */
function trove(args: string[], interruptOn?: RegExp, env: Record<string, string> = {}, fsize?: number): Promise<Run> {
  return new Promise((resolve) => {
    const command = [process.execPath, ...NODE_FLAGS, troveBin, ...args];
    if (fsize !== undefined) command.unshift('prlimit', `--fsize=${fsize}`);
    const child = spawn(command[0]!, command.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...NODE_ENV, ...env } });
    let stdout = '';
    let stderr = '';
    let sent = false;
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => {
      stderr += d;
      if (interruptOn && !sent && interruptOn.test(stderr)) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    child.on('close', (code) => resolve({ code, stdout, stderr, maxRssMb: Number(/maxrss (\d+)/.exec(stderr)?.[1] ?? NaN) / 1024 }));
  });
}

let small: string;
let big: string;
let bigBytes: number;
let root: string;

beforeAll(async () => {
  root = tempDir('trove-flat-');
  small = (await writeBigArchiveWarc(path.join(root, 'small'), { pages: 300, bigBodies: 2, bigBodyBytes: SMALL_BODY })).file;
  const b = await writeBigArchiveWarc(path.join(root, 'big'), { pages: 300, bigBodies: 2, bigBodyBytes: BIG_BODY });
  big = b.file;
  bigBytes = b.bytes;
}, 120_000);
afterAll(removeTempDirs);

describe('flat memory on a capped heap (real CLI)', () => {
  it('import, check, CDXJ and WACZ export, WACZ check: peak RSS grows by far less than the bodies do; the WACZ check copies nothing', async () => {
    expect(bigBytes).toBeGreaterThan(4 * HEAP_MB * 2 ** 20);
    // The file size cap bites: a copy of the smaller WARC fails under it.
    expect(spawnSync('prlimit', [`--fsize=${FSIZE}`, 'cp', small, path.join(root, 'capped-copy')]).status).not.toBe(0);
    fs.rmSync(path.join(root, 'capped-copy'), { force: true });
    const rss: Record<string, [number, number]> = {};
    for (const [name, warc] of [['small', small], ['big', big]] as const) {
      const dir = path.join(root, `archive-${name}`);
      const ops: [string, string[]][] = [
        ['import', ['import', warc, '--archive', dir]],
        ['check', ['check', '--errors-only', warc]],
        ['cdxj', ['export', dir, '--cdxj', path.join(root, `${name}.cdxj`)]],
        ['wacz', ['export', dir, '--wacz', path.join(root, `${name}.wacz`)]],
        ['check wacz', ['check', '--errors-only', path.join(root, `${name}.wacz`)]],
      ];
      for (const [op, args] of ops) {
        const r = await trove(args, undefined, {}, op === 'check wacz' ? FSIZE : undefined);
        expect(r.code, `${op} ${name}: ${r.stderr}`).toBe(0);
        (rss[op] ??= [0, 0])[name === 'small' ? 0 : 1] = r.maxRssMb;
      }
    }
    // Reading one body whole would add 72 MB; the whole file, 144 MB.
    const growth = (BIG_BODY - SMALL_BODY) / 2 ** 20;
    for (const [op, [s, b]] of Object.entries(rss)) expect(b - s, `${op}: peak RSS ${s.toFixed(0)} MB small, ${b.toFixed(0)} MB big`).toBeLessThan(growth / 2);
  }, 300_000);
});

describe('Ctrl-C leaves nothing half-written (real CLI)', () => {
  it('a cancelled import into a new archive leaves it empty, and a cancelled re-import leaves the earlier import whole', async () => {
    const fresh = path.join(root, 'cancel-new');
    const r = await trove(['import', big, '--archive', fresh, '--progress-every', '0'], /trove import: \d+%/);
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toContain('is as it was before');
    const a = openArchive(fresh);
    try {
      expect(a.index.files()).toEqual([]);
      expect(a.index.count()).toBe(0);
    } finally {
      a.close();
    }

    const again = path.join(root, 'cancel-again');
    expect((await trove(['import', small, '--archive', again, '--copy'])).code).toBe(0);
    const before = snapshot(again);
    const c = await trove(['import', small, '--archive', again, '--copy', '--progress-every', '0'], /trove import: \d+%/);
    expect(c.code, c.stderr).toBe(130);
    expect(snapshot(again)).toEqual(before);
    const check = await trove(['check', '--errors-only', path.join(again, 'warcs', path.basename(small))]);
    expect(check.code, check.stdout).toBe(0);
  }, 120_000);

  it('a cancelled WACZ export leaves no package and no temporary file; a cancelled check stops with 130', async () => {
    const dir = path.join(root, 'archive-big');
    const out = path.join(root, 'cancelled.wacz');
    const r = await trove(['export', dir, '--wacz', out, '--progress-every', '0'], /trove wacz: /);
    expect(r.code, r.stderr).toBe(130);
    expect(fs.readdirSync(root).filter((n) => n.startsWith('cancelled'))).toEqual([]);
    const c = await trove(['check', big, '--progress-every', '0'], /trove check: \d+%/);
    expect(c.code, c.stderr).toBe(130);
    expect(c.stderr).toContain('trove check: cancelled');
  }, 120_000);

  it('a cancelled WARC subset export leaves no file and the archive as it was; a cancelled WACZ check leaves no temporary copy', async () => {
    const dir = path.join(root, 'archive-big');
    const records = (): unknown => {
      const a = openArchive(dir, { create: false });
      try {
        return { files: a.index.files().map((f) => ({ id: f.id, path: f.path, records: f.records })), count: a.index.count() };
      } finally {
        a.close();
      }
    };
    const before = records();
    const r = await trove(['export', dir, '--warc', path.join(root, 'subset.warc'), '--progress-every', '0'], /trove warc: /);
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toContain('warc cancelled');
    expect(fs.readdirSync(root).filter((n) => n.startsWith('subset'))).toEqual([]);
    expect(records()).toEqual(before);

    // The WACZ check's temporary folder (its record store) goes with a cancel.
    const wacz = path.join(root, 'big.wacz');
    const size = fs.statSync(wacz).size;
    const tmp = path.join(root, 'check-tmp');
    fs.mkdirSync(tmp);
    const c = await trove(['check', wacz, '--progress-every', '0'], /trove check: \d+%/, { TMPDIR: tmp });
    expect(c.code, c.stderr).toBe(130);
    expect(c.stderr).toContain('trove check: cancelled');
    expect(fs.readdirSync(tmp)).toEqual([]);
    expect(fs.statSync(wacz).size).toBe(size);
  }, 120_000);

  it('every export and the WACZ check given an aborted signal throw CANCELLED and write nothing', async () => {
    const a = openArchive(path.join(root, 'archive-small'), { create: false });
    try {
      const signal = AbortSignal.abort();
      for (const run of [
        () => exportCdxj(a, path.join(root, 'aborted.cdxj'), { signal }),
        () => exportWacz(a, path.join(root, 'aborted.wacz'), { signal }),
        () => exportWarcSubset(a, path.join(root, 'aborted.warc.gz'), { signal }),
        () => checkWaczFile(path.join(root, 'small.wacz'), { signal }),
        () => exportMirror(a, path.join(root, 'aborted-mirror'), { signal }),
        () => exportReport(a, path.join(root, 'aborted-report'), { signal }),
      ]) {
        const err = await run().then(() => null, (e: unknown) => e);
        expect(isTroveError(err, 'CANCELLED')).toBe(true);
      }
      expect(fs.readdirSync(root).filter((n) => n.startsWith('aborted'))).toEqual([]);
    } finally {
      a.close();
    }
  });
});

/** What a cancelled import must leave as it was: the files, their records, the records. */
function snapshot(dir: string): unknown {
  const a = openArchive(dir, { create: false });
  try {
    return { files: a.index.files().map((f) => ({ id: f.id, path: f.path, records: f.records })), count: a.index.count(), warcs: fs.readdirSync(path.join(dir, 'warcs')).sort() };
  } finally {
    a.close();
  }
}
