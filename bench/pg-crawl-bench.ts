/**
 * Crawl scaling on a shared PostgreSQL frontier (issue 18): a latency-bound site of 20 hosts
 * (20 HTTP servers on loopback ports, each answering after LATENCY_MS), crawled by 1, 2 and 4
 * worker processes (`trove crawl --frontier` + `trove worker`), and by one plain SQLite crawl as
 * the reference, all in this run. Prints pages/s, the ratio to one worker, and what the servers
 * saw: the most requests one host had at once and the smallest gap between two requests to one
 * host (must be --per-host 1 and >= the delay).
 *
 * Needs PostgreSQL (a throw-away cluster as the tests start it, or TROVE_TEST_PG_URL); skips
 * with a message without one. Run: node bench/pg-crawl-bench.ts [pagesPerHost] [concurrencyPerWorker]
 * With the default concurrency of 1 fetch per worker the crawl is bound by the workers, not by
 * the hosts' politeness, so adding workers can show; with more, 20 polite hosts are the limit.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startTestPostgres } from '../test/helpers/postgres-server.ts';
import { startSite } from '../test/helpers/shared-crawl-site.ts';

const HOSTS = 20;
const LATENCY_MS = 50;
const DELAY_MS = 50;
const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'trove.js');

function trove(args: string[]): Promise<number | null> {
  const p = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  return new Promise((resolve) => p.on('exit', (code) => resolve(code)));
}

const CONCURRENCY = Number(process.argv[3] ?? 1);
const flags = ['--robots', 'ignore', '--per-host', '1', '--concurrency', String(CONCURRENCY), '--min-delay-ms', String(DELAY_MS), '--max-delay-ms', String(DELAY_MS), '--delay-factor', '0', '--max-retries', '0', '--min-free-disk', '0', '--no-progress'];

async function run(pages: number, tmp: string, label: string, start: (seeds: string[], dir: string) => Promise<unknown>) {
  // The shared-crawl tests' site, without the links across hosts: each host is its own chain.
  const hosts = await startSite({ hosts: HOSTS, pages, latencyMs: LATENCY_MS, crossHost: false });
  const t0 = performance.now();
  await start(hosts.map((h) => `${h.s.origin}/p0.html`), path.join(tmp, label));
  const sec = (performance.now() - t0) / 1000;
  await Promise.all(hosts.map((h) => h.s.close()));
  const fetched = hosts.reduce((s, h) => s + [...h.hits.values()].reduce((a, b) => a + b, 0), 0);
  return { label, sec, fetched, pagesPerSec: fetched / sec, maxActive: Math.max(...hosts.map((h) => h.maxActive)), minGap: Math.min(...hosts.map((h) => h.minGap)) };
}

async function main(): Promise<void> {
  // 100 pages a host, the size the "as a user would" figure was taken on (20 hosts x 100
  // pages): at 25 a four-worker crawl lasts about 10 s, and each worker's start weighs on it.
  const pages = Number(process.argv[2] ?? 100);
  const server = await startTestPostgres();
  if (typeof server === 'string') {
    console.log(`pg crawl bench skipped: ${server}`);
    return;
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-pg-crawl-bench-'));
  try {
    const results = [];
    results.push(await run(pages, tmp, 'sqlite', (seeds, dir) => trove(['crawl', ...seeds, '--out', dir, ...flags])));
    for (const k of [1, 2, 4]) {
      const crawl = server.freshSchema('crawlbench');
      const url = `${server.url}/${crawl}`;
      results.push(
        await run(pages, tmp, `pg x${k}`, async (seeds, dir) => {
          const first = trove(['crawl', ...seeds, '--frontier', url, '--worker-name', 'w0', '--out', `${dir}-w0`, ...flags]);
          const db = new pg.Client({ connectionString: server.url });
          await db.connect();
          for (;;) {
            const r = await db.query(`SELECT to_regclass($1) IS NOT NULL AS ok`, [`${crawl}.meta`]);
            if (r.rows[0].ok && (await db.query(`SELECT 1 FROM ${crawl}.meta WHERE key = 'settings'`)).rowCount) break;
            await new Promise((r) => setTimeout(r, 10));
          }
          await db.end();
          const rest = Array.from({ length: k - 1 }, (_, i) => trove(['worker', url, '--worker-name', `w${i + 1}`, '--out', `${dir}-w${i + 1}`, '--no-progress']));
          return Promise.all([first, ...rest]);
        }),
      );
    }
    console.log(`crawl bench: ${HOSTS} hosts x ${pages} pages, ${LATENCY_MS} ms per response, delay ${DELAY_MS} ms, --per-host 1, --concurrency ${CONCURRENCY} per worker, ${os.cpus().length} CPUs`);
    const one = results.find((r) => r.label === 'pg x1')!;
    for (const r of results) {
      console.log(
        `${r.label.padEnd(8)} ${r.fetched} pages in ${r.sec.toFixed(2)} s = ${r.pagesPerSec.toFixed(1)} pages/s, ratio to 1 PG worker ${(r.pagesPerSec / one.pagesPerSec).toFixed(2)}; per host: max ${r.maxActive} at once, min gap ${r.minGap} ms`,
      );
    }
    const sq = results[0]!;
    console.log(`one worker, PostgreSQL vs SQLite frontier: ${(one.pagesPerSec / sq.pagesPerSec).toFixed(2)}`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
    await server.stop();
  }
}

await main();
