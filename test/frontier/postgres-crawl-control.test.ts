/**
 * The operator's hold on a whole shared crawl, with real processes: two workers (`trove crawl
 * --frontier` and `trove worker`) on one PostgreSQL crawl of loopback hosts. `trove pause
 * <crawl-url>` stops claims on both (the servers see no request after the in-flight ones), and
 * `trove status` shows the crawl's totals and both workers (host, rate, leases, heartbeat);
 * `trove resume` lets them carry on; `trove stop` ends both with their WARCs sealed; a worker
 * started on the stopped crawl is refused; after `trove resume` a fresh worker joins and
 * finishes, and every page is captured exactly once across the three folders (read back with
 * warcio); the workers' capture-index rows in the database say where each page is (file and
 * offset, checked against warcio's). And `--limit-pages` holds across two workers: exactly the
 * limit of pages, in all.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestPostgres } from '../helpers/postgres-server.ts';
import { readWarcDir } from '../helpers/read-warcs.ts';
import { sharedCrawlFlags, sitePages, startSite, trove, whenSettingsStored, whenWorkerJoined, type SiteHost } from '../helpers/shared-crawl-site.ts';

const server = await startTestPostgres();
if (typeof server === 'string') console.warn(`shared crawl control test skipped: ${server}`);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-shared-control-'));
afterAll(async () => {
  fs.rmSync(tmp, { recursive: true, force: true });
  if (typeof server !== 'string') await server.stop();
});

const requests = (hosts: readonly SiteHost[]) => hosts.reduce((n, h) => n + [...h.hits.values()].reduce((a, b) => a + b, 0), 0);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

describe.skipIf(typeof server === 'string')('pause, stop and resume a shared crawl', () => {
  it('pause holds every worker, resume goes on, stop seals and ends them, a restarted worker finishes the crawl', async () => {
    const pgs = server as Exclude<typeof server, string>;
    const HOSTS = 4;
    const PAGES = 40;
    const DELAY = 150;
    const hosts = await startSite({ hosts: HOSTS, pages: PAGES });
    const db = new pg.Client({ connectionString: pgs.url });
    await db.connect();
    try {
      const crawl = pgs.freshSchema('control');
      const url = `${pgs.url}/${crawl}`;
      const dir = (w: string) => path.join(tmp, `c-${w}`);
      const one = async (sql: string) => (await db.query(sql)).rows[0];
      const a = trove(['crawl', ...hosts.map((h) => `${h.s.origin}/p0.html`), '--frontier', url, '--worker-name', 'a', '--out', dir('a'), ...sharedCrawlFlags(DELAY)]);
      await whenSettingsStored(pgs.url, crawl);
      const b = trove(['worker', url, '--worker-name', 'b', '--out', dir('b'), '--no-progress']);
      await until('20 pages done', async () => (await one(`SELECT count(*)::int AS n FROM ${crawl}.uris WHERE state = 3`)).n >= 20);

      const nowhere = await trove(['pause', `${pgs.url}/no_such_crawl`]);
      expect(nowhere.code).toBe(2); // a usage error: nothing done
      expect(nowhere.err).toMatch(/no shared crawl "no_such_crawl".*\[CRAWL_NOT_FOUND\]/);
      expect((await db.query(`SELECT to_regnamespace('no_such_crawl') AS s`)).rows[0].s).toBeNull(); // nothing created
      const paused = await trove(['pause', url]);
      expect(paused).toMatchObject({ code: 0 });
      expect(paused.out).toMatch(/paused/);
      // Both workers say so in their reports, with nothing in flight anywhere.
      await until('both workers paused', async () => {
        const r = await one(`SELECT count(*) FILTER (WHERE stats->>'state' = 'paused')::int AS n FROM ${crawl}.worker_stats`);
        const f = await one(`SELECT count(*)::int AS n FROM ${crawl}.uris WHERE state = 2`);
        return r.n === 2 && f.n === 0;
      });
      const seen = requests(hosts);
      await sleep(1500);
      expect(requests(hosts)).toBe(seen); // no request while paused
      const status = await trove(['status', url]);
      expect(status).toMatchObject({ code: 0 });
      expect(status.out).toMatch(new RegExp(`Shared crawl ${crawl}: paused`));
      expect(status.out).toMatch(/URIs +\d+ downloaded/);
      expect(status.out).toMatch(/^ {4}a +\S+\/\d+ +paused +[\d.]+ +\d+ +0 +[\d.]+ s ago$/m);
      expect(status.out).toMatch(/^ {4}b +\S+\/\d+ +paused /m);
      const json = JSON.parse((await trove(['status', url, '--json'])).out);
      expect(json.control).toBe('paused');
      expect(json.workers.map((w: { name: string }) => w.name)).toEqual(['a', 'b']);
      const done = json.counts.done;
      expect(json.reports.reduce((s: number, r: { stats: { downloaded: number } }) => s + r.stats.downloaded, 0)).toBe(done);

      expect(await trove(['resume', url])).toMatchObject({ code: 0 });
      await until('more pages after resume', async () => requests(hosts) > seen + 5);

      expect((await trove(['stop', url])).out).toMatch(/stopped/);
      const [ra, rb] = await Promise.all([a, b]);
      expect(ra).toMatchObject({ code: 0 });
      expect(rb).toMatchObject({ code: 0 });
      expect(ra.out).toMatch(/\(operator\)/);
      // Each worker's plain progress lines listed both workers.
      expect(rb.err).toMatch(/^ {2}worker +host +state +URI\/s +done +leases +heartbeat$/m);
      expect(rb.err).toMatch(/^ {2}a +\S+ +running /m);
      for (const w of ['a', 'b']) expect(fs.readdirSync(path.join(dir(w), 'warcs')).filter((n) => n.endsWith('.open'))).toEqual([]);
      const left = (await one(`SELECT coalesce(sum(pending), 0)::int AS n FROM ${crawl}.queues`)).n;
      expect(left).toBeGreaterThan(0); // stopped before the end

      // Stopped: a worker is refused until the crawl is resumed, then one joins and finishes it.
      const refused = await trove(['worker', url, '--worker-name', 'c', '--out', dir('c'), '--no-progress']);
      expect(refused.code).toBe(1);
      expect(refused.err).toMatch(/was stopped.*\[CRAWL_STOPPED\]/);
      expect(fs.existsSync(dir('c'))).toBe(false);
      expect(await trove(['resume', url])).toMatchObject({ code: 0 });
      const c = await trove(['worker', url, '--worker-name', 'c', '--out', dir('c'), '--no-progress']);
      expect(c).toMatchObject({ code: 0 });
      expect(c.out).toMatch(/frontier-empty/);

      const recs = (await Promise.all(['a', 'b', 'c'].map((w) => readWarcDir(path.join(dir(w), 'warcs'))))).flat();
      const captured = recs.filter((r) => r.type === 'response' && r.targetUri!.endsWith('.html')).map((r) => r.targetUri!);
      expect(captured.sort()).toEqual(sitePages(hosts, PAGES).sort()); // each once: pause and stop lose nothing, refetch nothing
      for (const h of hosts) {
        expect(h.maxActive).toBe(1);
        expect(h.minGap).toBeGreaterThanOrEqual(DELAY);
        // Requested once each: stop let the in-flight fetches finish rather than abort them.
        for (const [p, n] of h.hits) expect(n, `${h.s.origin}${p}`).toBe(1);
      }
      const final = JSON.parse((await trove(['status', url, '--json'])).out);
      expect(final.counts).toMatchObject({ pending: 0, inFlight: 0, failed: 0 });
      // The workers' own totals, reported into the database, add up to the shared frontier's.
      expect(final.reports.reduce((n: number, r: { stats: { downloaded: number } }) => n + r.stats.downloaded, 0)).toBe(final.counts.done);
      expect(final.totals.pages).toBe(captured.length);
      expect(final.reports.map((r: { name: string }) => r.name)).toEqual(['a', 'b', 'c']);
      // The workers' capture-index rows are in the crawl's database: one page each, and where it is.
      const index = final.index as { worker: string; pages: number; responses: number }[];
      expect(index.map((i) => i.worker)).toEqual(['a', 'b', 'c']);
      expect(index.reduce((n, i) => n + i.pages, 0)).toBe(captured.length);
      expect(index.reduce((n, i) => n + i.responses, 0)).toBe(recs.filter((r) => r.type === 'response').length);
      const where = await trove(['status', url, '--url', captured[0]!]);
      expect(where).toMatchObject({ code: 0 });
      const [line, ...more] = where.out.trim().split('\n');
      expect(more).toEqual([]);
      const [, code, type, worker, file, offset] = line!.split(' ');
      expect([code, type]).toEqual(['200', 'response']);
      const rec = recs.find((r) => r.file === file && r.offset === Number(offset))!;
      expect(rec.targetUri).toBe(captured[0]);
      expect(file).toMatch(new RegExp(`^TROVE-${worker}-`));
    } finally {
      await db.end();
      await Promise.all(hosts.map((h) => h.s.close()));
    }
  }, 180_000);

  it('--limit-pages holds across two workers: exactly that many pages in all', async () => {
    const pgs = server as Exclude<typeof server, string>;
    const LIMIT = 25;
    // Pages are answered only once worker b has joined, so both take part however slowly b starts.
    let release = (): void => {};
    const hold = new Promise<void>((r) => (release = r));
    const hosts = await startSite({ hosts: 6, pages: 15, hold });
    try {
      const crawl = pgs.freshSchema('pagelimit');
      const url = `${pgs.url}/${crawl}`;
      const dir = (w: string) => path.join(tmp, `l-${w}`);
      const a = trove(['crawl', ...hosts.map((h) => `${h.s.origin}/p0.html`), '--frontier', url, '--worker-name', 'a', '--out', dir('a'), '--limit-pages', String(LIMIT), ...sharedCrawlFlags(20)]);
      await whenSettingsStored(pgs.url, crawl);
      const b = trove(['worker', url, '--worker-name', 'b', '--out', dir('b'), '--no-progress']);
      await whenWorkerJoined(pgs.url, crawl, 'b');
      release();
      const [ra, rb] = await Promise.all([a, b]);
      expect(ra).toMatchObject({ code: 0 });
      expect(rb).toMatchObject({ code: 0 });
      expect(ra.out + rb.out).toMatch(/limit-pages/);
      const recs = (await Promise.all(['a', 'b'].map((w) => readWarcDir(path.join(dir(w), 'warcs'))))).flat();
      const pages = recs.filter((r) => r.type === 'response' && r.status === 200 && r.targetUri!.endsWith('.html')).map((r) => r.targetUri!);
      expect(pages).toHaveLength(LIMIT);
      expect(new Set(pages).size).toBe(LIMIT);
      const byA = recs.filter((r) => r.file.includes('TROVE-a-') && r.type === 'response' && r.targetUri!.endsWith('.html')).length;
      expect(byA).toBeGreaterThan(0);
      expect(byA).toBeLessThan(LIMIT); // both took part
      const db = new pg.Client({ connectionString: pgs.url });
      await db.connect();
      expect((await db.query(`SELECT pages FROM ${crawl}.crawl_state`)).rows[0].pages).toBe(LIMIT);
      await db.end();
    } finally {
      await Promise.all(hosts.map((h) => h.s.close()));
    }
  }, 120_000);
});
