/**
 * The app watches and steers a crawl shared over PostgreSQL (issue 39), in real Chromium with
 * `window.trove` wired to the real handlers: a throw-away PostgreSQL cluster, a real `trove crawl
 * --frontier` worker crawling a loopback site, and the Library's "Shared crawl…" action opening
 * it by its postgres:// URL. The panel shows the crawl's totals, its worker and its hosts as the
 * crawl goes; Pause all holds the worker (no request reaches the site), Resume all goes on, Stop
 * all ends the worker with its WARCs sealed. A crawl not in the database is a clear error.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestPostgres } from '../helpers/postgres-server.ts';
import { sharedCrawlFlags, startSite, trove, whenSettingsStored, type SiteHost } from '../helpers/shared-crawl-site.ts';
import { ARTIFACTS, findChromium, NO_CHROMIUM_MESSAGE, startAppSession } from './harness.ts';

const chromium = findChromium();
if (!chromium) console.warn(NO_CHROMIUM_MESSAGE);
const server = await startTestPostgres();
if (typeof server === 'string') console.warn(`shared crawl e2e test skipped: ${server}`);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-e2e-shared-'));
afterAll(async () => {
  fs.rmSync(tmp, { recursive: true, force: true });
  if (typeof server !== 'string') await server.stop();
});

const requests = (hosts: readonly SiteHost[]) => hosts.reduce((n, h) => n + [...h.hits.values()].reduce((a, b) => a + b, 0), 0);

describe.skipIf(!chromium || typeof server === 'string')('a shared crawl in the app, in Chromium', () => {
  it('opens a shared crawl by its URL, shows totals, its worker and hosts, and pauses, resumes and stops it', async () => {
    const pgs = server as Exclude<typeof server, string>;
    const hosts = await startSite({ hosts: 3, pages: 40 });
    const crawl = pgs.freshSchema('app');
    const url = `${pgs.url}/${crawl}`;
    const db = new pg.Client({ connectionString: pgs.url });
    await db.connect();
    const one = async (sql: string) => (await db.query(sql)).rows[0];
    const worker = trove(['crawl', ...hosts.map((h) => `${h.s.origin}/p0.html`), '--frontier', url, '--worker-name', 'w1', '--out', path.join(tmp, 'w1'), ...sharedCrawlFlags(200)]);
    const session = await startAppSession({ chromium: chromium!, viewport: { width: 1280, height: 800 } });
    const { page } = session;
    try {
      await whenSettingsStored(pgs.url, crawl);

      // A crawl that is not there: a clear error, nothing created.
      await page.getByTestId('open-shared-button').click();
      await page.getByTestId('shared-url').fill(`${pgs.url}/no_such_crawl`);
      await page.getByTestId('shared-open').click();
      await expect.poll(() => page.getByTestId('shared-error').textContent(), { timeout: 30_000 }).toMatch(/no shared crawl "no_such_crawl"/);
      expect((await one(`SELECT to_regnamespace('no_such_crawl') AS s`)).s).toBeNull();

      await page.getByTestId('open-shared-button').click();
      await page.getByTestId('shared-url').fill(url);
      await page.getByTestId('shared-open').click();
      const panel = page.getByTestId('shared-crawl');
      // The worker, its hosts, and the totals growing as it crawls.
      await expect.poll(() => panel.getByTestId('workers-table').textContent(), { timeout: 60_000 }).toContain('w1');
      await expect.poll(() => panel.getByTestId('shared-hosts').locator('tbody tr').count(), { timeout: 30_000 }).toBe(3);
      const doneNow = async () => Number(((await panel.getByTestId('shared-done').textContent()) ?? '0').replace(/\D/g, ''));
      await expect.poll(doneNow, { timeout: 60_000 }).toBeGreaterThan(3);
      expect(await panel.textContent()).toContain(crawl);
      await page.screenshot({ path: path.join(ARTIFACTS, 'shared-crawl-running.png') });

      // Pause all: the control row says so, the worker reports paused with nothing in flight, no request reaches the site.
      await panel.getByTestId('shared-pause').click();
      await expect.poll(async () => (await one(`SELECT control FROM ${crawl}.crawl_state`)).control, { timeout: 30_000 }).toBe('paused');
      await expect.poll(async () => (await one(`SELECT stats->>'state' AS s FROM ${crawl}.worker_stats WHERE name = 'w1'`))?.s, { timeout: 60_000 }).toBe('paused');
      await expect.poll(async () => (await one(`SELECT count(*)::int AS n FROM ${crawl}.uris WHERE state = 2`)).n, { timeout: 30_000 }).toBe(0);
      const seen = requests(hosts);
      await expect.poll(() => panel.textContent(), { timeout: 30_000 }).toMatch(/paused/);
      await new Promise((r) => setTimeout(r, 1500));
      expect(requests(hosts)).toBe(seen);
      await page.screenshot({ path: path.join(ARTIFACTS, 'shared-crawl-paused.png') });

      // Resume all: it goes on.
      await panel.getByTestId('shared-resume').click();
      await expect.poll(() => requests(hosts), { timeout: 60_000 }).toBeGreaterThan(seen);

      // Stop all: the worker ends well, its WARCs sealed (no .open file left).
      await panel.getByTestId('shared-stop').click();
      const ended = await worker;
      expect(ended.code).toBe(0);
      expect((await one(`SELECT control FROM ${crawl}.crawl_state`)).control).toBe('stopped');
      const warcs = fs.readdirSync(path.join(tmp, 'w1', 'warcs'));
      expect(warcs.some((f) => f.endsWith('.warc.gz'))).toBe(true);
      expect(warcs.filter((f) => f.endsWith('.open'))).toEqual([]);
      await expect.poll(() => panel.getByTestId('shared-no-workers').count(), { timeout: 30_000 }).toBe(1);
    } finally {
      worker.proc.kill('SIGKILL');
      await session.close();
      await db.end();
      for (const h of hosts) await h.s.close();
    }
  }, 300_000);
});
