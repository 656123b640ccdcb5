/**
 * `trove crawl --frontier postgres://…` and `trove worker postgres://…` as two real processes on
 * one crawl of 6 loopback hosts: every page is captured exactly once across the two workers'
 * WARC folders (read back with warcio), robots.txt once per host (the robots cache is shared), and replays from one archive
 * that imports both folders, each worker's WARC names carry its name, and no host sees
 * more than one request at once or a gap below the politeness delay, across both workers.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/corpus.ts';
import { startTestPostgres } from '../helpers/postgres-server.ts';
import { readWarcDir } from '../helpers/read-warcs.ts';
import { sharedCrawlFlags, sitePages, startSite, trove, whenSettingsStored } from '../helpers/shared-crawl-site.ts';
import { runDoneWhen } from '../helpers/shared-crawl-run.ts';

const server = await startTestPostgres();
if (typeof server === 'string') console.warn(`shared crawl test skipped: ${server}`);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-shared-'));
afterAll(async () => {
  fs.rmSync(tmp, { recursive: true, force: true });
  if (typeof server !== 'string') await server.stop();
});

const HOSTS = 6;
const PAGES = 15;
const DELAY_MS = 200;
const bin = path.join(repoRoot, 'bin', 'trove.js');

describe.skipIf(typeof server === 'string')('trove crawl --frontier and trove worker', () => {
  it('two processes share one crawl politely and capture every page once', async () => {
    const pgs = server as Exclude<typeof server, string>;
    const hosts = await startSite({ hosts: HOSTS, pages: PAGES });
    try {
      const crawl = pgs.freshSchema('shared');
      const crawlUrl = `${pgs.url}/${crawl}`;
      const seeds = hosts.map((h) => `${h.s.origin}/p0.html`);
      const flags = sharedCrawlFlags(DELAY_MS);
      const a = trove(['crawl', ...seeds, '--frontier', crawlUrl, '--worker-name', 'a', '--out', path.join(tmp, 'a'), ...flags]);
      // The worker joins once the crawl's settings are in the database.
      await whenSettingsStored(pgs.url, crawl);
      const b = trove(['worker', crawlUrl, '--worker-name', 'b', '--out', path.join(tmp, 'b'), '--no-progress']);
      const [ra, rb] = await Promise.all([a, b]);
      expect(ra).toMatchObject({ code: 0 });
      expect(rb).toMatchObject({ code: 0 });

      const recs = [...(await readWarcDir(path.join(tmp, 'a', 'warcs'))), ...(await readWarcDir(path.join(tmp, 'b', 'warcs')))];
      const fetched = recs.filter((r) => r.type === 'response').map((r) => r.targetUri!);
      const pages = fetched.filter((u) => u.endsWith('.html'));
      // robots.txt: the robots cache is shared in the database, so once per host.
      const robots = fetched.filter((u) => u.endsWith('/robots.txt'));
      expect(robots.sort()).toEqual(hosts.map((h) => `${h.s.origin}/robots.txt`).sort());
      const expected = sitePages(hosts, PAGES);
      expect(pages.sort()).toEqual(expected.sort());
      const names = (w: string) => fs.readdirSync(path.join(tmp, w, 'warcs')).filter((n) => n.includes('.warc'));
      expect(names('a').length).toBeGreaterThan(0);
      expect(names('b').length).toBeGreaterThan(0); // b joined and fetched its share
      for (const n of names('a')) expect(n).toMatch(/^TROVE-a-/);
      for (const n of names('b')) expect(n).toMatch(/^TROVE-b-/);
      // The union of the workers' folders, gathered into one archive, replays pages of both.
      const warcs = ['a', 'b'].flatMap((w) => names(w).map((n) => path.join(tmp, w, 'warcs', n)));
      expect(await trove(['import', ...warcs, '--archive', path.join(tmp, 'union')])).toMatchObject({ code: 0 });
      const byB = fs.readFileSync(path.join(tmp, 'b', 'logs', 'crawl.log'), 'utf8').split('\n').map((l) => l.split(/\s+/)[3]).find((u) => u?.endsWith('.html'))!;
      for (const url of [expected[0]!, byB]) {
        const got = spawnSync(process.execPath, [bin, 'get', path.join(tmp, 'union'), url], { encoding: 'utf8' });
        expect(got.status).toBe(0);
        expect(got.stdout).toContain('<!doctype html>');
      }
      for (const h of hosts) {
        expect(h.maxActive).toBe(1);
        expect(h.minGap).toBeGreaterThanOrEqual(DELAY_MS);
      }
    } finally {
      await Promise.all(hosts.map((h) => h.s.close()));
    }
  }, 120_000);

  it('three processes, one killed with SIGKILL: its leases go to the others, every page is captured, its WARC recovered on restart (the pg-5000 run, small)', async () => {
    const pgs = server as Exclude<typeof server, string>;
    const r = await runDoneWhen({ dbUrl: pgs.url, crawl: pgs.freshSchema('killed'), dir: path.join(tmp, 'killed'), hosts: 20, pages: 10, latencyMs: 10, delayMs: 100, concurrency: 4, killAt: 0.2, leaseS: 2 });
    for (const c of r.conditions) expect({ [c.name]: c.ok, detail: c.detail }).toEqual({ [c.name]: true, detail: c.detail });
    expect(r.heldAtKill).toBeGreaterThan(0);
    console.log(`killed worker held ${r.heldAtKill} leases; taken over after ${r.takeoverMs} ms (lease 2 s); ${r.capturedTwice} pages captured twice; ${r.pages} pages`);
  }, 180_000);
});
