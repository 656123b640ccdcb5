/**
 * What a `trove crawl` process loads (issue 20): every module loaded stays resident for the whole
 * crawl (its code, its tables, the pages of the node binary it runs), so a crawl over HTTP must
 * not load what other commands or modes use — the exporters, checkers, replay, importers, the
 * YAML parser (no --config), the progress bar library (no terminal), the browser chain — nor
 * Node's bundled copy of undici (+14 MiB RSS), which an ES import of node:http pulls in. (The HTML
 * extractor and parse5 do load: documents up to 4 MiB are extracted on the crawl thread since
 * issue 20's eighth round, core/extract/extract-pool.ts.)
 * Only the command run loads its module (core/cli/main.ts): a crawl loads no other command, no QA,
 * app or PostgreSQL code, and `trove --version` no command at all (0.2 s of CPU and 55 MB instead
 * of 0.6 s and 87 MB, issue 40); the stream-manifest parsers and the cookie library load with the
 * first manifest or jar.
 * A real crawl of a local site by the CLI, with a preload that lists what was loaded.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/corpus.ts';
import { startTreeSite, type TreeSite } from '../fixtures/tree-site.ts';

const bin = path.join(repoRoot, 'bin', 'trove.js');
const recorder = path.join(repoRoot, 'test', 'helpers', 'record-loaded-modules.js');

describe('what trove crawl loads', () => {
  let site: TreeSite;
  let work: string;
  beforeAll(async () => {
    site = await startTreeSite({ pages: 20 });
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-loaded-'));
  });
  afterAll(async () => {
    await site.close();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('an HTTP crawl without a terminal loads no exporter, checker, replay, importer, YAML, progress bar, browser code or bundled undici', async () => {
    const list = path.join(work, 'loaded.txt');
    // Not spawnSync: the site is served by this process.
    const child = spawn(
      process.execPath,
      ['--import', recorder, bin, 'crawl', site.seed, '--out', path.join(work, 'crawl'), '--delay-factor', '0', '--min-delay-ms', '0', '--max-delay-ms', '0', '--min-free-disk', '0'],
      { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, TROVE_LOADED_OUT: list } },
    );
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const status = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    const r = { status, stderr };
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/finished/);
    const lines = fs.readFileSync(list, 'utf8').trim().split('\n').map((l) => l.split('\t') as [string, string]);
    const main = lines.filter(([t]) => t === '0').map(([, m]) => m.replace(`file://${repoRoot}/`, ''));
    // The list is real: the crawl's own modules are in it.
    expect(main).toContain('core/crawl/start-crawl.ts');
    expect(main.some((m) => m.includes('node_modules/undici/lib/dispatcher/agent.js'))).toBe(true);
    expect(main.some((m) => m.includes('node_modules/commander/'))).toBe(true);

    const unwanted = [
      /^core\/export\//, /^core\/replay\//, /^core\/browser\//, /^core\/qa\//, /^core\/app\//, /^core\/crawl\/chain\/fetch-browser\.ts$/,
      /wacz-check|check-warc|import-warc|cdxj-index|record-query\.ts$/, /^core\/frontier\/postgres-/,
      // Only the command run loads its module (core/cli/main.ts).
      /^core\/cli\/(?!crawl-|main|cli-errors|progress-bar)/,
      /node_modules\/(yaml|yauzl|cli-progress|playwright-core|pg|pg-[a-z]+|pixelmatch|pngjs|diff|m3u8-parser|mpd-parser|@xmldom|tough-cookie)\//,
    ];
    expect(main.filter((m) => unwanted.some((re) => re.test(m)))).toEqual([]);
    // Node's own bundled undici (internal/deps/undici/undici), loaded by node:http's ES facade.
    expect(main.filter((m) => /internal\/deps\/undici/.test(m))).toEqual([]);
  });

  it('trove --version loads no command module', () => {
    const list = path.join(work, 'version.txt');
    const r = spawnSync(process.execPath, ['--import', recorder, bin, '--version'], { encoding: 'utf8', env: { ...process.env, TROVE_LOADED_OUT: list } });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const files = fs.readFileSync(list, 'utf8').split('\n').filter((l) => l.includes(`file://${repoRoot}/core/`)).map((l) => l.replace(/^.*?file:\/\/[^\t]*?\/core\//, 'core/'));
    expect(files).toContain('core/cli/main.ts');
    expect(files.filter((m) => /-command\.ts$|^core\/(crawl|archive|warc|frontier|storage)\//.test(m))).toEqual([]);
  });
});
