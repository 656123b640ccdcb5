/**
 * The CLI's Ctrl-C: the first SIGINT stops gracefully (in-flight fetches finish, files close,
 * the summary prints, exit 0); a second stops at once and still leaves valid files. Bad flags
 * or seeds exit 2 and write nothing.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/corpus.ts';
import { verifyCrawlDir } from '../helpers/verify-crawl-dir.ts';
import { startTreeSite, type TreeSite } from '../fixtures/tree-site.ts';

const bin = path.join(repoRoot, 'bin', 'trove.js');

function crawlThenSignal(site: TreeSite, dir: string, signals: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [bin, 'crawl', site.seed, '--out', dir, '--concurrency', '4', '--per-host', '4', '--delay-factor', '0', '--min-delay-ms', '0', '--max-delay-ms', '0', '--min-free-disk', '0'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setInterval(() => {
      if (fs.existsSync(path.join(dir, 'logs', 'crawl.log')) && fs.readFileSync(path.join(dir, 'logs', 'crawl.log'), 'utf8').split('\n').length > 20) {
        clearInterval(timer);
        for (let i = 0; i < signals; i++) setTimeout(() => child.kill('SIGINT'), i * 30);
      }
    }, 20);
    child.on('exit', (code) => {
      clearInterval(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('trove crawl and signals', () => {
  let site: TreeSite;
  const dirs: string[] = [];
  const newDir = () => {
    const d = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'trove-cli-')), 'crawl');
    dirs.push(path.dirname(d));
    return d;
  };
  beforeAll(async () => {
    site = await startTreeSite({ pages: 400, delayMs: 300 });
  });
  afterAll(async () => {
    await site.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('stops gracefully on the first Ctrl-C, prints the summary and exits 0', async () => {
    const dir = newDir();
    const r = await crawlThenSignal(site, dir, 1);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Crawl crawl finished \(operator\)/);
    expect(r.stderr).toMatch(/stopping after in-flight fetches/);
    const check = await verifyCrawlDir(dir);
    expect(check.openFiles).toEqual([]);
    expect(check.indexOnly).toEqual([]);
    expect(check.warcOnly).toEqual([]);
  }, 60_000);

  it('stops at once on a second Ctrl-C and still leaves valid files', async () => {
    const dir = newDir();
    const r = await crawlThenSignal(site, dir, 2);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/stopping now/);
    const check = await verifyCrawlDir(dir);
    expect(check.openFiles).toEqual([]);
    expect(check.indexOnly).toEqual([]);
    expect(check.warcOnly).toEqual([]);
  }, 60_000);

  it('exits 2 with a clear message on a bad seed or flag, and writes nothing', () => {
    const dir = newDir();
    const bad = spawnSync(process.execPath, [bin, 'crawl', 'ftp://example.org/', '--out', dir], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/invalid seed/);
    expect(fs.existsSync(dir)).toBe(false);
    const flag = spawnSync(process.execPath, [bin, 'crawl', site.seed, '--out', dir, '--concurrency', 'lots'], { encoding: 'utf8' });
    expect(flag.status).toBe(2);
    expect(flag.stderr).toMatch(/--concurrency/);
    expect(fs.existsSync(dir)).toBe(false);
    const none = spawnSync(process.execPath, [bin, 'crawl', '--out', dir], { encoding: 'utf8' });
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/no seeds/);
  });

  it('reports an unwritable --out clearly', () => {
    const r = spawnSync(process.execPath, [bin, 'crawl', site.seed, '--out', '/proc/trove-cannot-write-here'], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/cannot write to crawl directory/);
  });
});
