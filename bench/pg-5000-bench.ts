/**
 * The shared crawl's "done when" run (issue 18) as a benchmark: three `trove` workers crawl a
 * 5,000-page, 20-host loopback site (each response takes LATENCY_MS: latency-bound) on one
 * PostgreSQL crawl; the second is killed with SIGKILL once 40 % of the pages are done and started
 * again at the end. Prints pass/fail of each condition (every page captured, captured twice only
 * where the killed worker held it, never more than --per-host 1 request at once per server, no
 * gap below the delay, workers ending well with WARCs sealed), the time until the killed
 * worker's leases were taken over, and pages/s. The same procedure runs small as a test
 * (test/frontier/postgres-shared-crawl.test.ts).
 *
 * Needs PostgreSQL (a throw-away cluster as the tests start it, or TROVE_TEST_PG_URL).
 * Run: npm run bench -- pg-5000   or   node bench/pg-5000-bench.ts [--pages-per-host 250] [--hosts 20]
 * Exits 1 when a condition fails.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startTestPostgres } from '../test/helpers/postgres-server.ts';
import { runDoneWhen } from '../test/helpers/shared-crawl-run.ts';

const { values } = parseArgs({
  options: { hosts: { type: 'string', default: '20' }, 'pages-per-host': { type: 'string', default: '250' }, concurrency: { type: 'string', default: '8' } },
  allowPositionals: true,
});
const HOSTS = Number(values.hosts);
const PAGES = Number(values['pages-per-host']);
const LATENCY_MS = 50;
const DELAY_MS = 50;
const LEASE_S = 3;

const server = await startTestPostgres();
if (typeof server === 'string') {
  console.log(`pg-5000 skipped: ${server}`);
} else {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-pg-5000-'));
  try {
    const r = await runDoneWhen({
      dbUrl: server.url, crawl: server.freshSchema('done_when'), dir: tmp, hosts: HOSTS, pages: PAGES, latencyMs: LATENCY_MS, delayMs: DELAY_MS,
      concurrency: Number(values.concurrency), killAt: 0.4, leaseS: LEASE_S,
    });
    console.log(`3 workers, ${HOSTS} hosts x ${PAGES} pages = ${HOSTS * PAGES} pages, ${LATENCY_MS} ms per response, --per-host 1, delay ${DELAY_MS} ms, --concurrency ${values.concurrency} per worker, ${os.cpus().length} CPUs`);
    console.log(`${r.pages} pages in ${r.seconds.toFixed(1)} s = ${r.pagesPerSec.toFixed(1)} pages/s (including the kill and the takeover)`);
    console.log(`killed worker b at 40 %: it held ${r.heldAtKill} URIs in flight; no URI leased to it ${r.takeoverMs} ms after the kill (lease ${LEASE_S} s)`);
    for (const c of r.conditions) console.log(`${c.ok ? 'PASS' : 'FAIL'}  ${c.name}: ${c.detail}`);
    if (!r.conditions.every((c) => c.ok)) process.exitCode = 1;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
    await server.stop();
  }
}
