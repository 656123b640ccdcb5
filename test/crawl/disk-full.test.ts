/**
 * A full disk never kills a crawl. `trove crawl` runs in a real, small tmpfs; mid-crawl another
 * process (dd) fills the disk — to the last byte with the guard off (--min-free-disk 0), or to
 * under the guard's minimum with it on. The crawl pauses and says why, resumes by itself once the
 * filler is removed (after a real write succeeds), and ends with exit 0, every page captured, the
 * index and the WARCs agreeing (read back with warcio) and 0 `trove check` errors.
 *
 * Deterministic: the site holds back every page past the first few until the disk is full, so the
 * crawl is certainly mid-way when it fills; every wait polls observable state (log lines, the
 * crawl's own output) with a bounded number of attempts, never a fixed sleep. Needs root (mount);
 * skipped with a message otherwise.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../helpers/poll-until.ts';
import { canMountTmpfs, tryMountTmpfs } from '../helpers/tmpfs-mount.ts';
import { repoRoot } from '../helpers/corpus.ts';
import { startHttpServer, type LocalServer } from '../helpers/local-server.ts';
import { verifyCrawlDir } from '../helpers/verify-crawl-dir.ts';

const bin = path.join(repoRoot, 'bin', 'trove.js');
const PAGES = 60;
/** Pages answered at once; the rest wait for the gate (opened once the disk is full). */
const FREE_PAGES = 8;
const MIB = 1024 * 1024;

if (!canMountTmpfs) console.warn('disk-full tests skipped: they mount a small tmpfs, which needs root (CI runs as root)');

interface GatedSite extends LocalServer {
  seed: string;
  open(): void;
}

/** Bytes of /p/big.bin: over the fetcher's 1 MiB in memory, so its body is spooled to the full disk. */
const BIG = 3 * MIB;

/**
 * A tree of PAGES pages of 20 KB incompressible text, and /p/big.bin linked first from the seed;
 * pages past FREE_PAGES and /p/big.bin wait for open().
 */
async function startGatedSite(): Promise<GatedSite> {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const pad = randomBytes(15_000).toString('base64');
  const big = randomBytes(BIG);
  const server = await startHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x').pathname;
    if (url === '/p/big.bin') {
      void gate.then(() => res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(BIG) }).end(big));
      return;
    }
    const m = /^\/p\/(\d+)\.html$/.exec(url);
    if (!m || Number(m[1]) >= PAGES) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('no');
      return;
    }
    const n = Number(m[1]);
    const links = n === 0 ? ['<a href="/p/big.bin">big</a>'] : [];
    for (let c = n * 10 + 1; c <= n * 10 + 10 && c < PAGES; c++) links.push(`<a href="/p/${c}.html">${c}</a>`);
    const body = `<!doctype html><title>Page ${n}</title><h1>Page ${n}</h1>${links.join(' ')}<p>${pad}</p>`;
    const send = () => res.writeHead(200, { 'content-type': 'text/html' }).end(body);
    if (n < FREE_PAGES) send();
    else void gate.then(send);
  });
  return { ...server, seed: `${server.origin}/p/0.html`, open };
}

/** Poll `probe` up to `attempts` times, 20 ms apart; fail with what was seen. */
const until = (what: string, probe: () => boolean, seen: () => string, attempts = 3000) => pollUntil(what, probe, { attempts, everyMs: 20, seen });

function freeBytes(dir: string): number {
  const st = fs.statfsSync(dir);
  return st.bavail * st.bsize;
}

/** Fill `dir`'s disk from another process until `leave` bytes are free (0: until dd hits ENOSPC). */
function fill(dir: string, leave: number): string {
  const filler = path.join(dir, 'filler');
  const args = ['if=/dev/zero', `of=${filler}`, 'bs=64K'];
  if (leave > 0) args.push(`count=${Math.max(0, Math.floor((freeBytes(dir) - leave) / 65536))}`);
  const r = spawnSync('dd', args, { encoding: 'utf8' });
  if (leave === 0) expect(r.stderr).toMatch(/No space left on device/);
  return filler;
}

describe.skipIf(!canMountTmpfs)('a full disk', () => {
  let site: GatedSite;
  const mounts: string[] = [];
  afterAll(async () => {
    for (const m of mounts) {
      try {
        execFileSync('umount', ['-l', m]);
      } catch {
        /* already gone */
      }
      fs.rmSync(m, { recursive: true, force: true });
    }
  });

  async function crawlThroughFullDisk(opts: { size: string; minFree: number; leave: number; pausedBy: RegExp }) {
    site = await startGatedSite();
    const mount = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-full-'));
    mounts.push(mount);
    expect(tryMountTmpfs(mount, opts.size)).toBe(true);
    const dir = path.join(mount, 'crawl');
    try {
      const child = spawn(
        process.execPath,
        [bin, 'crawl', site.seed, '--out', dir, '--no-progress', '--concurrency', '2', '--per-host', '2', '--delay-factor', '0', '--min-delay-ms', '0', '--max-delay-ms', '0', '--max-retries', '0', '--min-free-disk', String(opts.minFree)],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      const seen = () => `stdout:\n${stdout}\nstderr:\n${stderr}`;
      const logLines = () => {
        try {
          return fs.readFileSync(path.join(dir, 'logs', 'crawl.log'), 'utf8').split('\n').filter(Boolean).length;
        } catch {
          return 0;
        }
      };
      // The free pages are in; the crawl now waits on the gated ones.
      await until('the first pages', () => logLines() >= FREE_PAGES, seen);
      const filler = fill(mount, opts.leave);
      site.open();
      await until('the pause', () => opts.pausedBy.test(stderr), seen);
      // The pause reason is on the progress line the moment it pauses, not only in the log.
      await until('the progress line to show the reason', () => /\| paused: /.test(stderr), seen);
      fs.rmSync(filler);
      const code = await exit;
      expect(code, seen()).toBe(0);
      expect(stderr).toMatch(/a test write succeeded: disk space is back, resuming/);
      expect(stderr).not.toMatch(/crawl failed|SqliteError|unexpected error/);
      expect(stdout).toMatch(/finished \(frontier-empty\)/);

      const check = await verifyCrawlDir(dir);
      expect(check.openFiles).toEqual([]);
      expect(check.indexOnly).toEqual([]);
      expect(check.warcOnly).toEqual([]);
      for (let n = 0; n < PAGES; n++) {
        const url = `${site.origin}/p/${n}.html`;
        expect(check.records.some((r) => r.type === 'response' && r.targetUri === url && r.status === 200), `page ${n}\n${seen()}`).toBe(true);
      }
      const big = check.records.filter((r) => r.type === 'response' && r.targetUri === `${site.origin}/p/big.bin`);
      expect(big.map((r) => [r.status, r.payload.length, r.warcHeaders['WARC-Truncated'] ?? null]), seen()).toEqual([[200, BIG, null]]);
      const warcs = fs.readdirSync(path.join(dir, 'warcs')).filter((n) => n.endsWith('.warc.gz')).map((n) => path.join(dir, 'warcs', n));
      const checked = spawnSync(process.execPath, [bin, 'check', '--errors-only', ...warcs], { encoding: 'utf8' });
      expect(checked.status, checked.stdout + checked.stderr).toBe(0);
      expect(checked.stderr).toMatch(/ 0 errors/);
      expect(checked.stderr).not.toMatch(/ [1-9]\d* errors/);
    } finally {
      site.open();
      await site.close();
    }
  }

  it('guard off: a disk filled to the last byte pauses the crawl, which resumes by itself once space is freed', async () => {
    await crawlThroughFullDisk({ size: '24m', minFree: 0, leave: 0, pausedBy: /paused: (writing the WARC failed|the database refused a write|spooling a response body failed)/ });
  }, 120_000);

  it('guard on: a disk filled to under --min-free-disk pauses the crawl before any write fails, and it resumes', async () => {
    // The guard keeps 4 MiB plus the write-ahead log's room to grow (up to 16 MiB) free.
    await crawlThroughFullDisk({ size: '48m', minFree: 4 * MIB, leave: 10 * MIB, pausedBy: /paused: only [\d.]+ MiB free .*--min-free-disk 4\.0 MiB/ });
  }, 120_000);
});
