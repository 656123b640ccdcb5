/**
 * The crawl engine, unchanged, over the PostgreSQL frontier: the fixture site crawled once with
 * the directory's SQLite frontier and once with a PostgreSQL one gives the same captures (WARC
 * records read back with warcio) and the same outcome counts. A completion written behind that
 * comes back refused (its lease moved to another worker while the page was fetched) reaches the
 * crawl's log as COMPLETION_REFUSED.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { FAST } from '../helpers/run-crawl.ts';
import { startCrawl } from '../../core/crawl/start-crawl.ts';
import type { CrawlSettings } from '../../core/api/settings.ts';
import { createPostgresFrontier } from '../../core/frontier/postgres-frontier.ts';
import type { PostgresFrontier } from '../../core/frontier/postgres-frontier.ts';
import { startFixtureSite } from '../fixtures/fixture-site.ts';
import { readWarcDir } from '../helpers/read-warcs.ts';
import { startTestPostgres } from '../helpers/postgres-server.ts';
import { startSharedCrawl } from '../../core/cli/worker-command.ts';
import { readSharedCrawlStatus } from '../../core/cli/shared-crawl-command.ts';
import type { WorkerRow } from '../../core/api/crawl-snapshot.ts';

const server = await startTestPostgres();
if (typeof server === 'string') console.warn(`PostgreSQL crawl test skipped: ${server}`);
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  if (typeof server !== 'string') await server.stop();
});

const settings = (origin: string): Partial<CrawlSettings> => ({
  ...FAST,
  name: 'fixture',
  seeds: [origin + '/'],
});

describe.skipIf(typeof server === 'string')('a crawl over the PostgreSQL frontier', () => {
  it('captures what the same crawl over SQLite captures', async () => {
    const pgs = server as Exclude<typeof server, string>;
    const site = await startFixtureSite();
    try {
      const crawlOnce = async (frontier?: () => PostgresFrontier) => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-pg-crawl-'));
        dirs.push(dir);
        let pgf: PostgresFrontier | undefined;
        const crawl = await startCrawl({
          dir,
          settings: settings(site.origin),
          frontier: frontier && (() => (pgf = frontier())),
        });
        const final = await crawl.finished();
        pgf?.close();
        const records = await readWarcDir(path.join(dir, 'warcs'));
        const captured = records.filter((r) => r.type === 'response').map((r) => r.targetUri).sort();
        return { final, captured };
      };
      const sqlite = await crawlOnce();
      const crawl = pgs.freshSchema('crawl');
      const viaPg = await crawlOnce(() => createPostgresFrontier({ url: pgs.url, crawl, worker: 'only' }));
      expect(viaPg.final).toMatchObject({ state: 'finished', finishReason: 'frontier-empty', queued: 0 });
      expect(viaPg.captured.length).toBeGreaterThan(10);
      expect(viaPg.captured).toEqual(sqlite.captured);
      for (const k of ['downloaded', 'failed'] as const) expect(viaPg.final[k]).toBe(sqlite.final[k]);
    } finally {
      await site.close();
    }
  }, 120_000);

  it('a shared crawl\'s snapshot lists its workers (what the CLI progress and the app Monitor show), and its report stays in the database', async () => {
    const pgs = server as Exclude<typeof server, string>;
    const site = await startFixtureSite();
    try {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-pg-snap-'));
      dirs.push(dir);
      const url = `${pgs.url}/${pgs.freshSchema('snap')}`;
      const crawl = await startSharedCrawl({ frontier: url, dir, worker: 'solo', settings: settings(site.origin), reportMs: 50 });
      const seen: WorkerRow[][] = [];
      crawl.on((e) => {
        if (e.type === 'snapshot' && e.snapshot.workers) seen.push(e.snapshot.workers);
      });
      const final = await crawl.finished();
      expect(final.state).toBe('finished');
      const mine = seen.flat().filter((w) => w.name === 'solo');
      expect(mine.length).toBeGreaterThan(0);
      expect(mine[0]).toMatchObject({ host: os.hostname(), pid: process.pid, alive: true });
      expect(mine.every((w) => w.heartbeatAgoMs !== null && w.heartbeatAgoMs >= 0)).toBe(true);
      expect(final.workers?.map((w) => w.name)).toEqual(['solo']);
      const status = readSharedCrawlStatus(url);
      expect(status.control).toBe('running');
      expect(status.workers).toEqual([]); // it left the crawl when it finished
      expect(status.reports).toEqual([expect.objectContaining({ name: 'solo', stats: expect.objectContaining({ state: 'finished', downloaded: final.downloaded, pages: final.pages, dir: path.resolve(dir) }) })]);
      expect(status.counts.done).toBe(final.downloaded);
    } finally {
      await site.close();
    }
  }, 120_000);
});

describe.skipIf(typeof server === 'string')('a crawl whose completion comes back refused', () => {
  it('logs COMPLETION_REFUSED when a completion written behind finds its lease gone to another worker', async () => {
    const pgs = server as Exclude<typeof server, string>;
    // `/` links to `/held`, whose answer waits until the test has moved its lease.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let asked!: () => void;
    const requested = new Promise<void>((r) => (asked = r));
    const site = http.createServer((req, res) => {
      if (req.url === '/held') {
        asked();
        void held.then(() => res.end('<html><body>late</body></html>'));
        return;
      }
      res.setHeader('content-type', 'text/html');
      res.end(req.url === '/' ? '<html><body><a href="/held">held</a></body></html>' : 'no');
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    const schema = pgs.freshSchema('refused');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-pg-refused-'));
    dirs.push(dir);
    const sql = new pg.Client({ connectionString: pgs.url });
    await sql.connect();
    let pgf: PostgresFrontier | undefined;
    try {
      const crawl = await startCrawl({
        dir,
        settings: settings(origin),
        frontier: () => (pgf = createPostgresFrontier({ url: pgs.url, crawl: schema, worker: 'a', writeBehind: true })),
      });
      const refused = new Promise<string>((resolve) =>
        crawl.on((e) => {
          if (e.type === 'log' && e.code === 'COMPLETION_REFUSED') resolve(e.message);
        }),
      );
      await requested;
      // Another worker now holds the lease (as after a takeover); a's completion must be refused.
      const moved = await sql.query(`UPDATE "${schema}".uris SET leased_by = 'b' WHERE url = $1 AND leased_by = 'a'`, [origin + '/held']);
      expect(moved.rowCount).toBe(1);
      release();
      expect(await refused).toContain(origin + '/held');
      crawl.stop();
      await crawl.finished();
    } finally {
      pgf?.close();
      await sql.end();
      await new Promise<void>((r) => site.close(() => r()));
    }
  }, 60_000);
});
