/**
 * A big shared crawl (issue 39): four `trove` processes crawl one PostgreSQL crawl of a 20-host
 * loopback site of 200,000 pages; two of them are killed with SIGKILL along the way (at 30 % and
 * 60 % of the pages) and started again at once on their own folders. pg-5000 shows the same
 * conditions at 5,000 pages with one kill; this run asks whether they still hold, and whether the
 * rate holds, forty times larger: the pages/s of each tenth of the crawl (the last tenth at least
 * 90 % of the first), every page captured (warcio over every worker's WARCs, read as a stream so
 * the check itself stays small), pages captured twice only among the URIs a killed worker held in
 * flight, and the servers never seeing more than --per-host 1 request at once.
 *
 * Needs PostgreSQL (a throw-away cluster as the tests start it, or TROVE_TEST_PG_URL).
 * Run: npm run bench -- pg-200k [--hosts 20] [--pages-per-host 10000] [--latency-ms 5] [--concurrency 8]
 * A smoke run: --pages-per-host 250. Exits 1 when a condition fails.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { WARCParser } from 'warcio';
import { startTestPostgres } from '../test/helpers/postgres-server.ts';
import { sharedCrawlFlags, sitePages, startSite, trove, whenSettingsStored, type TroveRun } from '../test/helpers/shared-crawl-site.ts';

const { values } = parseArgs({
  options: {
    hosts: { type: 'string', default: '20' },
    'pages-per-host': { type: 'string', default: '10000' },
    'latency-ms': { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '8' },
  },
});
const HOSTS = Number(values.hosts);
const PAGES = Number(values['pages-per-host']);
const LATENCY_MS = Number(values['latency-ms']);
const CONCURRENCY = Number(values.concurrency);
const KILLS = [
  { worker: 'b', at: 0.3 },
  { worker: 'c', at: 0.6 },
];
const LEASE_S = 3;

/** Response records of .html pages in one worker's WARCs, counted by target URI, streamed. */
async function countPages(dir: string, counts: Map<string, number>): Promise<void> {
  for (const name of fs.readdirSync(dir).filter((n) => /\.warc(\.gz)?$/.test(n))) {
    for await (const r of new WARCParser(fs.createReadStream(path.join(dir, name)))) {
      const uri = r.warcTargetURI;
      if (r.warcType === 'response' && uri?.endsWith('.html')) counts.set(uri, (counts.get(uri) ?? 0) + 1);
    }
  }
}

/**
 * Pages missing: what the frontier says of them and of their queues, so a crawl that ended short
 * says why (URIs never scheduled, or stranded behind a queue whose counters or lease are wrong).
 */
async function whyMissing(db: pg.Client, crawl: string, missing: string[]): Promise<void> {
  const q = (text: string, values: unknown[] = []) => db.query(text.replaceAll('$s', crawl), values).then((r) => r.rows);
  console.log('missing pages by frontier state:', JSON.stringify(await q(`SELECT coalesce(u.state::text, 'never scheduled') AS state, count(*)::int AS n
    FROM unnest($1::text[]) AS m(url) LEFT JOIN $s.uris u ON u.url = m.url GROUP BY 1 ORDER BY 1`, [missing])));
  console.log('queues whose counters disagree with their URIs, or that hold pending URIs:');
  for (const r of await q(`SELECT q.key, q.pending, q.waiting, q.in_flight, q.max_in_flight, q.lease_owner, q.ready_at,
      count(*) FILTER (WHERE u.state = 0)::int AS pending_rows, count(*) FILTER (WHERE u.state = 1)::int AS waiting_rows,
      count(*) FILTER (WHERE u.state = 2)::int AS in_flight_rows, count(*) FILTER (WHERE u.state = 2 AND NOT u.slot_released)::int AS slots_held,
      string_agg(DISTINCT u.leased_by, ',') AS leased_by
    FROM $s.queues q LEFT JOIN $s.uris u ON u.queue_id = q.id GROUP BY q.id
    HAVING q.pending <> count(*) FILTER (WHERE u.state = 0) OR q.waiting <> count(*) FILTER (WHERE u.state = 1)
      OR q.in_flight <> count(*) FILTER (WHERE u.state = 2 AND NOT u.slot_released) OR count(*) FILTER (WHERE u.state IN (0, 1, 2)) > 0 ORDER BY q.key`)) {
    console.log('  ' + JSON.stringify(r));
  }
  console.log('workers:', JSON.stringify(await q(`SELECT name, lease_until, heartbeat_at FROM $s.workers ORDER BY name`)));
}

const server = await startTestPostgres();
if (typeof server === 'string') {
  console.log(`pg-200k skipped: ${server}`);
} else {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-pg-200k-'));
  const hosts = await startSite({ hosts: HOSTS, pages: PAGES, latencyMs: LATENCY_MS, crossHost: true });
  const crawl = server.freshSchema('big_crawl');
  const url = `${server.url}/${crawl}`;
  const db = new pg.Client({ connectionString: server.url });
  await db.connect();
  const total = HOSTS * PAGES;
  const dir = (w: string) => path.join(tmp, w);
  try {
    console.log(`4 workers, ${HOSTS} hosts x ${PAGES} pages = ${total} pages, ${LATENCY_MS} ms per response, --per-host 1, --concurrency ${CONCURRENCY} per worker, ${os.cpus().length} CPUs, load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    const t0 = performance.now();
    const running = new Map<string, TroveRun>();
    // Runs that have exited, noted as they exit (a race against a resolved promise cannot tell).
    const exited = new Set<TroveRun>();
    const start = (w: string, run: TroveRun) => {
      running.set(w, run);
      void run.then(() => exited.add(run));
    };
    start('a', trove(['crawl', ...hosts.map((h) => `${h.s.origin}/p0.html`), '--frontier', url, '--worker-name', 'a', '--out', dir('a'), ...sharedCrawlFlags(0, CONCURRENCY)]));
    await whenSettingsStored(server.url, crawl);
    for (const w of ['b', 'c', 'd']) start(w, trove(['worker', url, '--worker-name', w, '--lease-s', String(LEASE_S), '--out', dir(w), '--no-progress']));

    const tenths: number[] = [];
    const held = new Set<string>();
    const folders = ['a', 'b', 'c', 'd'].map((w) => dir(w));
    const kills = [...KILLS];
    for (;;) {
      const done = (await db.query(`SELECT count(*) FILTER (WHERE state = 3 AND status = 200)::int AS n FROM ${crawl}.uris`)).rows[0].n as number;
      const s = (performance.now() - t0) / 1000;
      while (tenths.length < 10 && done >= (total * (tenths.length + 1)) / 10) tenths.push(s);
      const k = kills[0];
      if (k && done >= total * k.at) {
        kills.shift();
        const victim = running.get(k.worker)!;
        victim.proc.kill('SIGKILL');
        await victim;
        for (const r of (await db.query(`SELECT url FROM ${crawl}.uris WHERE state = 2 AND leased_by = $1`, [k.worker])).rows) held.add(r.url);
        // Started again at once on its own folder, under the same name: it recovers the WARC the kill
        // left open and takes its own leases back.
        start(k.worker, trove(['worker', url, '--worker-name', k.worker, '--out', dir(k.worker), '--no-progress']));
        console.log(`${s.toFixed(1)} s: killed ${k.worker} at ${((100 * done) / total).toFixed(0)} % holding ${held.size} URIs in flight in all, started it again`);
      }
      if (tenths.length === 10) break;
      // Every worker gone before the last tenth: the crawl ended short; the conditions below say how.
      if (!kills.length && [...running.values()].every((r) => exited.has(r))) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const exits = await Promise.all([...running.values()]);
    const seconds = (performance.now() - t0) / 1000;

    const counts = new Map<string, number>();
    for (const f of folders) await countPages(path.join(f, 'warcs'), counts);
    const open = folders.flatMap((f) => fs.readdirSync(path.join(f, 'warcs')).filter((n) => n.endsWith('.open')));
    const expected = sitePages(hosts, PAGES);
    const missing = expected.filter((u) => !counts.has(u));
    const twice = [...counts].filter(([, n]) => n > 1).map(([u]) => u);
    const twiceNotHeld = twice.filter((u) => !held.has(u));
    const maxActive = Math.max(...hosts.map((h) => h.maxActive));
    while (tenths.length < 10) tenths.push(Infinity);
    const rates = tenths.map((t, i) => total / 10 / (t - (i ? tenths[i - 1]! : 0)));
    console.log(`${counts.size} pages in ${seconds.toFixed(1)} s = ${(counts.size / seconds).toFixed(1)} pages/s`);
    console.log(`pages/s per tenth: ${rates.map((r) => r.toFixed(0)).join(' ')}`);
    const conditions = [
      { name: 'every page captured', ok: missing.length === 0, detail: `${counts.size} of ${expected.length} pages in the WARCs (warcio), ${missing.length} missing` },
      { name: "captured once, bar the killed workers' in-flight", ok: twiceNotHeld.length === 0, detail: `${twice.length} captured twice, ${twiceNotHeld.length} of them not held by a killed worker` },
      { name: 'never more than --per-host 1 at once', ok: maxActive <= 1, detail: `most requests one server had at once: ${maxActive}` },
      { name: 'the last tenth at least 90 % of the first', ok: rates[9]! >= 0.9 * rates[0]!, detail: `${rates[9]!.toFixed(0)} against ${rates[0]!.toFixed(0)} pages/s (${((100 * rates[9]!) / rates[0]!).toFixed(0)} %)` },
      { name: 'workers ended well, WARCs sealed', ok: exits.every((e) => e.code === 0) && open.length === 0, detail: `exit codes ${exits.map((e) => e.code).join(' ')}; open WARCs left: ${open.length}` },
    ];
    for (const c of conditions) console.log(`${c.ok ? 'PASS' : 'FAIL'}  ${c.name}: ${c.detail}`);
    if (missing.length > 0) await whyMissing(db, crawl, missing);
    console.log(`load at the end ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    if (!conditions.every((c) => c.ok)) process.exitCode = 1;
  } finally {
    await db.end();
    await Promise.all(hosts.map((h) => h.s.close()));
    fs.rmSync(tmp, { recursive: true, force: true });
    await server.stop();
  }
}
