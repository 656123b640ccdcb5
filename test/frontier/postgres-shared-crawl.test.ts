/**
 * `trove crawl --frontier postgres://…` and `trove worker postgres://…` as two real processes on
 * one crawl of 6 loopback hosts: every page is captured exactly once across the two workers'
 * WARC folders (read back with warcio), robots.txt once per host (the robots cache is shared), and replays from one archive
 * that imports both folders, each worker's WARC names carry its name, and no host sees
 * more than one request at once or a gap below the politeness delay, across both workers.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/corpus.ts';
import { startHttpServer, type LocalServer } from '../helpers/local-server.ts';
import { startTestPostgres } from '../helpers/postgres-server.ts';
import { readWarcDir } from '../helpers/read-warcs.ts';

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

interface Host {
  s: LocalServer;
  active: number;
  maxActive: number;
  lastEnd: number;
  minGap: number;
}

function trove(args: string[]): Promise<{ code: number | null; err: string }> {
  const p = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  p.stderr!.on('data', (d) => (err += d));
  return new Promise((resolve) => p.on('exit', (code) => resolve({ code, err })));
}

describe.skipIf(typeof server === 'string')('trove crawl --frontier and trove worker', () => {
  it('two processes share one crawl politely and capture every page once', async () => {
    const pgs = server as Exclude<typeof server, string>;
    const hosts: Host[] = [];
    for (let h = 0; h < HOSTS; h++) {
      const host = { active: 0, maxActive: 0, lastEnd: 0, minGap: Infinity } as Host;
      host.s = await startHttpServer((req, res) => {
        const start = Date.now();
        if (host.lastEnd > 0) host.minGap = Math.min(host.minGap, start - host.lastEnd);
        host.active++;
        host.maxActive = Math.max(host.maxActive, host.active);
        const m = /^\/p(\d+)\.html$/.exec(req.url!);
        if (!m) {
          setTimeout(() => {
            host.active--;
            host.lastEnd = Date.now();
            res.writeHead(404, { 'content-type': 'text/plain' }).end(`no ${req.url} on host ${h}`);
          }, 10);
          return;
        }
        const i = Number(m[1]);
        const next = hosts[(h + 1) % HOSTS]!.s.origin;
        const links = [i + 1, 2 * i + 1].filter((k) => k < PAGES).map((k) => `<a href="/p${k}.html">${k}</a>`);
        links.push(`<a href="${next}/p${i}.html">next host</a>`);
        setTimeout(() => {
          host.active--;
          host.lastEnd = Date.now();
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end(`<!doctype html><title>${h}/${i}</title>${links.join(' ')}`);
        }, 10);
      });
      hosts.push(host);
    }
    try {
      const crawl = pgs.freshSchema('shared');
      const crawlUrl = `${pgs.url}/${crawl}`;
      const seeds = hosts.map((h) => `${h.s.origin}/p0.html`);
      const flags = ['--robots', 'ignore', '--per-host', '1', '--concurrency', '4', '--min-delay-ms', String(DELAY_MS), '--max-delay-ms', String(DELAY_MS), '--delay-factor', '0', '--max-retries', '0', '--min-free-disk', '0', '--no-progress'];
      const a = trove(['crawl', ...seeds, '--frontier', crawlUrl, '--worker-name', 'a', '--out', path.join(tmp, 'a'), ...flags]);
      // The worker joins once the crawl's settings are in the database.
      const db = new pg.Client({ connectionString: pgs.url });
      await db.connect();
      for (;;) {
        const r = await db.query(`SELECT to_regclass($1) IS NOT NULL AND EXISTS (SELECT 1 FROM ${crawl}.meta WHERE key = 'settings') AS ok`, [`${crawl}.meta`]).catch(() => ({ rows: [{ ok: false }] }));
        if (r.rows[0].ok) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      await db.end();
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
      const expected = hosts.flatMap((h) => Array.from({ length: PAGES }, (_, i) => `${h.s.origin}/p${i}.html`));
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
});
