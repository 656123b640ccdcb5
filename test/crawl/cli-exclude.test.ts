/**
 * `trove exclude` against a crawl running in another process: a real `trove crawl` child crawls
 * a loopback tree site, `trove exclude DIR REGEX` (another child) asks it to exclude a pattern
 * while it crawls, and afterwards the WARC (read back with warcio), crawl.log and scope.log show
 * that no matching URL was claimed after the exclusion, that the queued matches were dropped
 * and listed in scope.log with the rule, and that links found later were rejected by scope. Then
 * the stopped crawl is changed directly, and a bad regex is refused with its catalogue code.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/corpus.ts';
import { readWarcDir } from '../helpers/read-warcs.ts';
import { startTreeSite, type TreeSite } from '../fixtures/tree-site.ts';
import { closeDatabase, openDatabase } from '../../core/storage/open-database.ts';
import { getMeta } from '../../core/storage/meta.ts';

const bin = path.join(repoRoot, 'bin', 'trove.js');
const run = promisify(execFile);
const CONCURRENCY = 2;

async function trove(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, [bin, ...args], { encoding: 'utf8' });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

const logLines = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);

describe('trove exclude', () => {
  let site: TreeSite;
  let tmp: string;
  beforeAll(async () => {
    site = await startTreeSite({ pages: 900, fanout: 3, delayMs: 30, pageBytes: 500 });
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-cli-exclude-'));
  });
  afterAll(async () => {
    await site.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('excludes a pattern from a crawl running in another process, then from the stopped crawl', async () => {
    const dir = path.join(tmp, 'crawl');
    const pattern = String.raw`/p/\d*[37]\.html$`;
    const re = new RegExp(pattern);
    const crawl = spawn(
      process.execPath,
      [bin, 'crawl', site.seed, '--out', dir, '--concurrency', String(CONCURRENCY), '--per-host', String(CONCURRENCY), '--delay-factor', '0', '--min-delay-ms', '0', '--max-delay-ms', '0', '--min-free-disk', '0'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let crawlOut = '';
    crawl.stdout.on('data', (d) => (crawlOut += d));
    crawl.stderr.on('data', (d) => (crawlOut += d));
    const exited = new Promise<number | null>((resolve) => crawl.on('exit', resolve));
    const crawlLog = path.join(dir, 'logs', 'crawl.log');
    const scopeLog = path.join(dir, 'logs', 'scope.log');
    // Under way, with a queue that holds matches.
    for (let i = 0; logLines(crawlLog).length < 30; i++) {
      expect(i, crawlOut).toBeLessThan(600);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    const dry = await trove(['exclude', dir, pattern, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    const wouldDrop = Number(/would drop (?:at least )?([\d,]+) queued/.exec(dry.stdout)?.[1]?.replace(/,/g, ''));
    expect(wouldDrop).toBeGreaterThan(0);
    expect(fs.existsSync(path.join(dir, 'requests')) ? fs.readdirSync(path.join(dir, 'requests')) : []).toEqual([]); // a dry run asks nothing

    const r = await trove(['exclude', dir, pattern]);
    expect(r.code, r.stderr + crawlOut).toBe(0);
    expect(r.stdout).toMatch(/^the running crawl now excludes/);
    const dropped = Number(/: ([\d,]+) queued URIs? dropped/.exec(r.stdout)?.[1]?.replace(/,/g, ''));
    expect(dropped).toBeGreaterThan(0);

    expect(await exited, crawlOut).toBe(0);
    expect(crawlOut).toMatch(/finished \(frontier-empty\)/);
    // The crawl's own terminal says so too.
    expect(crawlOut).toContain(`trove: excluding /${pattern}/ (asked by another process): ${dropped} queued URI`);

    // scope.log: each dropped URI once, with the rule and the pattern; links found later rejected by the same rule.
    const scope = logLines(scopeLog).map((l) => l.split(' '));
    const drops = scope.filter((f) => f[1] === 'exclude-regex' && f.slice(5).join(' ').startsWith('dropped from the queue by a live exclusion'));
    expect(drops.length).toBe(dropped);
    expect(drops.every((f) => re.test(f[2]!))).toBe(true);
    expect(new Set(drops.map((f) => f[2])).size).toBe(dropped);
    const appliedAt = Date.parse(drops[0]![0]!);
    const rejectedLater = scope.filter((f) => f[1] === 'exclude-regex' && f.slice(5).join(' ').startsWith('REJECT by exclude-regex: matched') && Date.parse(f[0]!) >= appliedAt);
    expect(rejectedLater.length).toBeGreaterThan(0);
    expect(rejectedLater.every((f) => re.test(f[2]!))).toBe(true);

    // The WARC: matching pages were captured before the exclusion only. A URI already claimed
    // when it came (at most one per fetch slot) may still finish; none is claimed after it.
    const responses = (await readWarcDir(path.join(dir, 'warcs'))).filter((rec) => rec.type === 'response' && rec.targetUri && re.test(rec.targetUri));
    expect(responses.length).toBeGreaterThan(0);
    const after = responses.filter((rec) => Date.parse(rec.date) > appliedAt);
    expect(after.length).toBeLessThanOrEqual(CONCURRENCY);
    // crawl.log: the same from the log's side (its time is when a URI finished).
    const fetchedAfter = logLines(crawlLog)
      .map((l) => l.split(/\s+/))
      .filter((f) => Number(f[1]) > 0 && re.test(f[3]!) && Date.parse(f[0]!) > appliedAt);
    expect(fetchedAfter.length).toBeLessThanOrEqual(CONCURRENCY);
    const droppedUrls = new Set(drops.map((f) => f[2]));
    expect(responses.filter((rec) => droppedUrls.has(rec.targetUri!))).toEqual([]);
    expect(site.hits.get(new URL(drops[0]![2]!).pathname)).toBeUndefined();

    // The pattern is in the crawl's settings (a resume keeps it).
    const db = openDatabase(path.join(dir, 'crawl.sqlite'), { readonly: true });
    expect(getMeta<{ exclude: string[] }>(db, 'settings')!.exclude).toEqual([pattern]);
    closeDatabase(db);

    // The crawl is stopped now: applied directly, under the directory's lock.
    const stopped = await trove(['exclude', dir, '/p/5']);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stdout).toMatch(/^the crawl \(not running\) now excludes \/\/p\/5\/: 0 queued URIs dropped/);
    const db2 = openDatabase(path.join(dir, 'crawl.sqlite'), { readonly: true });
    expect(getMeta<{ exclude: string[] }>(db2, 'settings')!.exclude).toEqual([pattern, '/p/5']);
    closeDatabase(db2);

    const bad = await trove(['exclude', dir, '(']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/not a valid regular expression.*\[SCOPE_BAD_REGEX\]/);
    const missing = await trove(['exclude', path.join(tmp, 'nothing-here'), 'x']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/\[CRAWL_NOT_FOUND\]/);
  }, 120_000);
});
