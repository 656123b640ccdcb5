/**
 * Two `trove crawl` commands on one directory, started together: one crawls to the end, the
 * other exits 2 at once with a sentence naming the owner's pid, and the crawl it would have
 * shared is whole (every page, index and WARCs agree). The lock itself is raced by 8 processes in
 * test/storage/owner-lock.test.ts.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/corpus.ts';
import { verifyCrawlDir } from '../helpers/verify-crawl-dir.ts';
import { startTreeSite, type TreeSite } from '../fixtures/tree-site.ts';

const bin = path.join(repoRoot, 'bin', 'trove.js');
const TRIALS = 3;
const PAGES = 30;

interface Run {
  pid: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

function crawl(site: TreeSite, dir: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, 'crawl', site.seed, '--out', dir, '--no-progress', '--delay-factor', '0', '--min-delay-ms', '0', '--max-delay-ms', '0', '--min-free-disk', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ pid: child.pid!, code, stdout, stderr }));
  });
}

describe('two crawls on one directory', () => {
  let site: TreeSite;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-lock-cli-'));
  beforeAll(async () => {
    site = await startTreeSite({ pages: PAGES, delayMs: 5 });
  });
  afterAll(async () => {
    await site.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it(`one runs, the other exits 2 naming the owner (${TRIALS} trials)`, async () => {
    for (let t = 0; t < TRIALS; t++) {
      const dir = path.join(root, `crawl-${t}`);
      const runs = await Promise.all([crawl(site, dir), crawl(site, dir)]);
      const ran = runs.filter((r) => r.code === 0);
      const refused = runs.filter((r) => r.code === 2);
      const why = JSON.stringify(runs.map((r) => ({ code: r.code, stderr: r.stderr.slice(0, 2000) })));
      expect(ran, why).toHaveLength(1);
      expect(refused, why).toHaveLength(1);
      expect(refused[0]!.stderr.trim()).toBe(`trove crawl: crawl directory ${dir} is in use by process ${ran[0]!.pid}; stop that crawl first or use another directory [CRAWL_DIR_LOCKED]`);
      expect(ran[0]!.stdout).toMatch(/finished \(frontier-empty\)/);
      const check = await verifyCrawlDir(dir);
      expect(check.indexOnly).toEqual([]);
      expect(check.warcOnly).toEqual([]);
      for (let n = 0; n < PAGES; n++) {
        expect(check.records.some((r) => r.type === 'response' && r.targetUri === `${site.origin}/p/${n}.html`), `trial ${t} page ${n}`).toBe(true);
      }
      expect(fs.readFileSync(path.join(dir, 'logs', 'crawl.log'), 'utf8')).not.toMatch(/ -5 /);
      expect(fs.existsSync(path.join(dir, '.lock'))).toBe(false);
    }
  }, 120_000);
});
