/**
 * PostgreSQL frontier benchmark (issue 18), each figure beside the SQLite frontier measured in
 * the same run on the same machine:
 *
 *   complete+20     claim, then complete with 20 new outlinks (the enqueue path), per URI claimed
 *   claim+complete  one claim and one complete without outlinks, per URI
 *   thread hop      the same on the async store directly, without the synchronous bridge
 *                   (postgres-frontier.ts), so the bridge's own cost per call shows
 *   workers         1, 2 and 4 processes claiming and completing on one crawl at once: total
 *                   claim+complete per second and the ratio to one process
 *
 * Needs PostgreSQL: a throw-away cluster as the tests start (Debian package postgresql), or
 * TROVE_TEST_PG_URL. Skips with a message without one.
 *
 * Run: node bench/pg-frontier-bench.ts [uris]   (default 20,000; the crawl bench is pg-crawl-bench.ts)
 *
 * At scale: `npm run bench -- pg --uris 1000000` fills each frontier with that many URIs first
 * (batches of 10,000 through `schedule`: one multi-row INSERT … SELECT FROM unnest(…) per batch on
 * PostgreSQL, so a million loads in about a minute rather than as a million round trips), then
 * measures claim + complete with 20 new outlinks, and claim + complete, on the full frontier,
 * 8 claims at a time as a worker with 8 free fetch slots makes them (PostgreSQL: claimMany, and
 * completions written behind, as `trove worker` opens its frontier); `--batch 1` claims one at
 * a time, as every figure before the batches was taken. Below the figures it prints, per batch
 * (per URI with --batch 1), the round trips to PostgreSQL and the frontier thread's time in each
 * store method (completeThenClaimMany: a batch's completions and the next claim in one trip),
 * which a loaded machine does not change the way it changes the rates.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Candidate, ClaimedUri, Frontier } from '../core/frontier/frontier.ts';
import { createPostgresFrontier } from '../core/frontier/postgres-frontier.ts';
import type { CallStats } from '../core/frontier/postgres-frontier-store-types.ts';
import { openPostgresFrontierStore } from '../core/frontier/postgres-frontier-store.ts';
import { createSqliteFrontier } from '../core/frontier/sqlite-frontier.ts';
import { closeDatabase, openDatabase } from '../core/storage/open-database.ts';
import { startTestPostgres } from '../test/helpers/postgres-server.ts';

const OUTLINKS = 20;
/** Claims at once at scale (`--batch`; 1: one at a time): a worker's default fetch slots (`--concurrency` 8). */
const BATCH = 8;
const HOSTS = 200;
const here = path.dirname(fileURLToPath(import.meta.url));

/** Something with the Frontier methods the bench uses, sync or async. */
interface Ops {
  schedule(c: Candidate[]): unknown;
  claim(now: number): ReturnType<Frontier['claim']> | Promise<ReturnType<Frontier['claim']>>;
  claimMany?(now: number, max: number): ClaimedUri[] | Promise<ClaimedUri[]>;
  complete(...a: Parameters<Frontier['complete']>): unknown;
  counts(now: number): unknown;
  /** PostgreSQL: per store method, the calls, round trips and time the frontier's thread spent. */
  callStats?(): Record<string, CallStats>;
}

function candidate(i: number, via: string | null): Candidate {
  const h = via === null ? i : (i * 7919) % HOSTS;
  const host = `www.host${h}.test`;
  const url = via === null ? `https://${host}/` : `https://${host}/section/${i % 97}/page-${i}.html`;
  // A 64-bit fingerprint from a native hash: a million of them in a second, not a BigInt loop per character.
  const fp = createHash('md5').update(url).digest().readBigUInt64LE(0);
  return { url, canonical: url, fingerprint: fp, queueKey: host, hopsPath: via === null ? '' : 'L', via, seed: via === null };
}

/** Enqueue n URIs as outlinks (OUTLINKS per complete), then claim+complete m of them. */
async function workload(f: Ops, n: number): Promise<{ enqueuePerSec: number; completesWithLinksPerSec: number; claimCompletePerSec: number }> {
  let now = 1;
  let next = HOSTS;
  await f.schedule(Array.from({ length: HOSTS }, (_, h) => candidate(h, null)));
  let completes = 0;
  const t0 = performance.now();
  while (next < n) {
    const uri = await f.claim(now++);
    if (!uri) throw new Error('bench: frontier ran dry');
    const links: Candidate[] = [];
    for (let k = 0; k < OUTLINKS && next < n; k++) links.push(candidate(next++, uri.url));
    await f.complete(uri, { status: 200, queueReadyAt: now, bytes: 1000, mime: 'text/html' }, links);
    completes++;
  }
  const enqSec = (performance.now() - t0) / 1000;
  const m = Math.floor(n / 5);
  const t1 = performance.now();
  for (let i = 0; i < m; i++) {
    const uri = (await f.claim(now++))!;
    await f.complete(uri, { status: 200, queueReadyAt: now });
  }
  const ccSec = (performance.now() - t1) / 1000;
  return { enqueuePerSec: (n - HOSTS) / enqSec, completesWithLinksPerSec: completes / enqSec, claimCompletePerSec: m / ccSec };
}

/** k processes claim+complete on one pre-filled crawl for `ms`; total per second. */
async function workers(url: string, crawl: string, k: number, ms: number): Promise<number> {
  const child = path.join(here, 'pg-frontier-bench.ts');
  const counts = await Promise.all(
    Array.from({ length: k }, (_, i) =>
      new Promise<number>((resolve, reject) => {
        const p = spawn(process.execPath, [child, '--worker', url, crawl, `w${i}`, String(ms)], { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        p.stdout.on('data', (d) => (out += d));
        p.on('exit', (code) => (code === 0 ? resolve(Number(out.trim())) : reject(new Error(`worker exited ${code}`))));
      }),
    ),
  );
  return counts.reduce((a, b) => a + b, 0) / (ms / 1000);
}

async function workerMain(url: string, crawl: string, name: string, ms: number): Promise<void> {
  const f = createPostgresFrontier({ url, crawl, worker: name, clock: 'caller', leaseMs: 3_600_000 });
  let done = 0;
  const end = performance.now() + ms;
  let now = 1;
  while (performance.now() < end) {
    const uri = f.claim(now++);
    if (!uri) continue;
    // No politeness delay: each process counts its own synthetic time, so a delay set on one
    // process's clock would snooze the queue for the others.
    f.complete(uri, { status: 200, queueReadyAt: 0 });
    done++;
  }
  f.close();
  process.stdout.write(`${done}\n`);
}

const FILL_BATCH = 10_000;

/** Fill with n URIs (seeds of HOSTS hosts, the rest as outlinks), in batches; URIs loaded per second. */
async function fill(f: Ops, n: number): Promise<number> {
  const t0 = performance.now();
  await f.schedule(Array.from({ length: HOSTS }, (_, h) => candidate(h, null)));
  for (let i = HOSTS; i < n; i += FILL_BATCH) {
    await f.schedule(Array.from({ length: Math.min(FILL_BATCH, n - i) }, (_, k) => candidate(i + k, 'https://www.host0.test/')));
  }
  return n / ((performance.now() - t0) / 1000);
}

/**
 * `batch` claims at once (claimMany where the frontier has it, else that many claims in a row),
 * then their completions: a worker with `batch` free fetch slots.
 */
async function claimThenComplete(f: Ops, now: number, batch: number, done: (uri: ClaimedUri) => unknown): Promise<number> {
  const uris: ClaimedUri[] = f.claimMany ? await f.claimMany(now, batch) : [];
  if (!f.claimMany) for (let i = 0; i < batch; i++) uris.push((await f.claim(now))!);
  if (uris.length !== batch || uris.some((u) => !u)) throw new Error(`bench: claimed ${uris.length} of ${batch}`);
  for (const uri of uris) await done(uri);
  return uris.length;
}

/**
 * Where a batch's time went on PostgreSQL (the thread's call stats between two snapshots): per
 * batch, the round trips and the thread's time in each store method, and the wall time; what
 * the wall has beyond the thread's calls is the bridge (thread hops) and the bench's own work.
 * Round trips per batch are what a loaded machine does not change.
 */
function perBatch(f: Ops, before: Record<string, CallStats> | undefined, batches: number, wallMs: number): string {
  if (!f.callStats || !before) return '';
  const after = f.callStats();
  const parts: string[] = [];
  let trips = 0;
  let ms = 0;
  for (const [name, a] of Object.entries(after)) {
    const b = before[name] ?? { calls: 0, roundTrips: 0, ms: 0 };
    if (name === 'counts' || a.calls === b.calls) continue;
    trips += a.roundTrips - b.roundTrips;
    ms += a.ms - b.ms;
    parts.push(`${name} ${((a.roundTrips - b.roundTrips) / batches).toFixed(2)} trips ${((a.ms - b.ms) / batches).toFixed(2)} ms (${((a.calls - b.calls) / batches).toFixed(2)} calls)`);
  }
  return `${(trips / batches).toFixed(2)} round trips, ${(wallMs / batches).toFixed(2)} ms wall (${(ms / batches).toFixed(2)} in the thread's calls: ${parts.join(', ')})`;
}

/**
 * On a frontier holding n URIs: claim + complete with 20 new outlinks (k times), then claim +
 * complete (k times), `batch` claims at a time. The counts read at the end of each is in its time,
 * so completions written behind are all in the database when the clock stops.
 */
async function atScale(f: Ops, n: number, k: number, batch: number): Promise<{ withLinksPerSec: number; claimCompletePerSec: number; batches: [string, string] }> {
  let now = 1;
  let next = n;
  let batches = 0;
  let before = f.callStats?.();
  const t0 = performance.now();
  for (let i = 0; i < k; now++, batches++) {
    i += await claimThenComplete(f, now, batch, (uri) => {
      const links: Candidate[] = [];
      for (let j = 0; j < OUTLINKS; j++) links.push(candidate(next++, uri.url));
      return f.complete(uri, { status: 200, queueReadyAt: now + 1, bytes: 1000, mime: 'text/html' }, links);
    });
  }
  await f.counts(now);
  const withLinksMs = performance.now() - t0;
  const withLinks = perBatch(f, before, batches, withLinksMs);
  before = f.callStats?.();
  batches = 0;
  const t1 = performance.now();
  for (let i = 0; i < k; now++, batches++) i += await claimThenComplete(f, now, batch, (uri) => f.complete(uri, { status: 200, queueReadyAt: now + 1 }));
  await f.counts(now);
  const plainMs = performance.now() - t1;
  return { withLinksPerSec: k / (withLinksMs / 1000), claimCompletePerSec: k / (plainMs / 1000), batches: [withLinks, perBatch(f, before, batches, plainMs)] };
}

async function scaleMain(n: number, batch: number): Promise<void> {
  const k = 1000;
  const server = await startTestPostgres();
  if (typeof server === 'string') {
    console.log(`pg bench skipped: ${server}`);
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-pg-bench-'));
  try {
    const db = openDatabase(path.join(dir, 'crawl.sqlite'));
    const sqliteF = createSqliteFrontier(db);
    const sqliteLoad = await fill(sqliteF, n);
    const sqlite = await atScale(sqliteF, n, k, batch);
    closeDatabase(db);
    // As a worker of `trove crawl --frontier` opens it: completions written behind, claims in batches.
    const pgF = createPostgresFrontier({ url: server.url, crawl: server.freshSchema('scale'), clock: 'caller', writeBehind: batch > 1 });
    const pgLoad = await fill(pgF, n);
    const pgRes = await atScale(batch > 1 ? pgF : { ...pgF, claimMany: undefined }, n, k, batch);
    pgF.close();
    const row = (name: string, s: number, p: number) => console.log(`${name.padEnd(40)} ${s.toFixed(0).padStart(9)} ${p.toFixed(0).padStart(9)}   PG/SQLite ${(p / s).toFixed(3)}`);
    const how = batch > 1 ? `${batch} claims at once as a worker with ${batch} free fetch slots makes them (claimMany on PostgreSQL, completions written behind)` : 'one claim at a time';
    console.log(`frontier at ${n.toLocaleString('en')} URIs over ${HOSTS} hosts (${k.toLocaleString('en')} operations each, on the full frontier; ${how}), ${os.cpus().length} CPUs, load ${os.loadavg()[0]!.toFixed(2)}`);
    console.log(`${'per second'.padEnd(40)} ${'SQLite'.padStart(9)} ${'PG'.padStart(9)}`);
    row(`bulk load (batches of ${FILL_BATCH.toLocaleString('en')})`, sqliteLoad, pgLoad);
    row('claim + complete with 20 outlinks', sqlite.withLinksPerSec, pgRes.withLinksPerSec);
    row('claim + complete', sqlite.claimCompletePerSec, pgRes.claimCompletePerSec);
    const unit = batch > 1 ? `batch of ${batch}` : 'URI';
    console.log(`PG per ${unit}, claim + complete with 20 outlinks: ${pgRes.batches[0]}`);
    console.log(`PG per ${unit}, claim + complete: ${pgRes.batches[1]}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await server.stop();
  }
}

async function main(): Promise<void> {
  if (process.argv[2] === '--worker') {
    const [, , , url, crawl, name, ms] = process.argv;
    return workerMain(url!, crawl!, name!, Number(ms));
  }
  const at = process.argv.indexOf('--uris');
  const b = process.argv.indexOf('--batch');
  if (at >= 0) return scaleMain(Number(process.argv[at + 1]), b >= 0 ? Number(process.argv[b + 1]) : BATCH);
  const n = Number(process.argv[2] ?? 20_000);
  const server = await startTestPostgres();
  if (typeof server === 'string') {
    console.log(`pg bench skipped: ${server}`);
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-pg-bench-'));
  try {
    const db = openDatabase(path.join(dir, 'crawl.sqlite'));
    const sqlite = await workload(createSqliteFrontier(db), n);
    closeDatabase(db);

    const pgSync = createPostgresFrontier({ url: server.url, crawl: server.freshSchema('bench'), clock: 'caller' });
    const pgRes = await workload(pgSync, n);
    pgSync.close();

    const store = await openPostgresFrontierStore({ url: server.url, crawl: server.freshSchema('bench'), clock: 'caller' });
    const pgAsync = await workload(store, n);
    await store.close();

    // The floor under every PostgreSQL figure: one statement's round trip on this machine.
    const probe = new pg.Client({ connectionString: server.url });
    await probe.connect();
    const t = performance.now();
    for (let i = 0; i < 2000; i++) await probe.query('SELECT 1');
    const roundTripUs = ((performance.now() - t) / 2000) * 1000;
    await probe.end();

    // Scaling of the frontier alone: a crawl pre-filled with 4n URIs over HOSTS hosts.
    const crawl = server.freshSchema('scale');
    const fill = createPostgresFrontier({ url: server.url, crawl, clock: 'caller', defaultMaxInFlight: 1 });
    for (let i = 0; i < 4 * n; i += 5000) fill.schedule(Array.from({ length: Math.min(5000, 4 * n - i) }, (_, k) => candidate(HOSTS + i + k, 'x')));
    fill.close();
    const ms = 5000;
    const scale = [] as [number, number][];
    for (const k of [1, 2, 4]) scale.push([k, await workers(server.url, crawl, k, ms)]);

    const row = (name: string, s: number, p: number, a: number) =>
      console.log(`${name.padEnd(34)} ${s.toFixed(0).padStart(9)} ${p.toFixed(0).padStart(9)} ${a.toFixed(0).padStart(9)}   PG/SQLite ${(p / s).toFixed(3)}`);
    console.log(`PostgreSQL frontier bench: ${n.toLocaleString('en')} URIs over ${HOSTS} hosts, ${OUTLINKS} outlinks per complete`);
    console.log(`${'per second'.padEnd(34)} ${'SQLite'.padStart(9)} ${'PG sync'.padStart(9)} ${'PG async'.padStart(9)}`);
    row('URIs enqueued (as outlinks)', sqlite.enqueuePerSec, pgRes.enqueuePerSec, pgAsync.enqueuePerSec);
    row('claim + complete with 20 outlinks', sqlite.completesWithLinksPerSec, pgRes.completesWithLinksPerSec, pgAsync.completesWithLinksPerSec);
    row('claim + complete', sqlite.claimCompletePerSec, pgRes.claimCompletePerSec, pgAsync.claimCompletePerSec);
    console.log(`one SELECT 1 round trip: ${roundTripUs.toFixed(0)} µs (a claim is one statement; a complete one statement, or two round trips with outlinks; see bench/README.md)`);
    console.log(`bridge cost per claim+complete pair: ${((1 / pgRes.claimCompletePerSec - 1 / pgAsync.claimCompletePerSec) * 1e6).toFixed(0)} µs`);
    console.log(`\nworkers (processes) claiming + completing on one crawl for ${ms / 1000} s each, ${os.cpus().length} CPUs:`);
    for (const [k, v] of scale) console.log(`  ${k} worker(s): ${v.toFixed(0)} claim+complete/s, ratio to 1 worker ${(v / scale[0]![1]).toFixed(2)}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await server.stop();
  }
}

await main();
