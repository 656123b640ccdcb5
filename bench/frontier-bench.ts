/**
 * Frontier benchmark: 1,000,000 URLs over ~1,000 hosts in a temp file, each figure beside a plain
 * SQLite baseline measured in the same run on the same disk with the same pragmas.
 *
 *   enqueue          URIs arrive as outlinks, 50 per `complete` (claim → complete with 50 new)
 *                    vs. plain: one transaction per batch = UPDATE one row + INSERT 50 rows, one table, no index
 *                    and vs. the same table with UNIQUE(fingerprint), the least any seen-set needs
 *                    (outlinks are spread over 50 different hosts per batch: the worst case for index locality)
 *   claim+complete   one claim and one complete (each its own transaction) per URI
 *                    vs. plain: SELECT the next row by rowid + UPDATE it, in two transactions
 *   resume           a child process leaves leases and is killed with SIGKILL (WAL not checkpointed);
 *                    then open + createSqliteFrontier + recoverInFlight + counts + first claim
 *                    vs. plain: open + read the first unfinished row
 *
 * Run: node bench/frontier-bench.ts [n]
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import type { Candidate } from '../core/frontier/frontier.ts';
import { createSqliteFrontier } from '../core/frontier/sqlite-frontier.ts';
import { closeDatabase, openDatabase } from '../core/storage/open-database.ts';

const BATCH = 50;

export interface FrontierBenchOptions {
  /** URLs to enqueue (default 1,000,000). */
  n?: number;
  /** Hosts (default n / 1000, at least 10). */
  hosts?: number;
  /** Print the table (the standalone run does; default false). */
  print?: boolean;
}

export async function runFrontierBench(opts: FrontierBenchOptions = {}): Promise<Record<string, number>> {
  const n = opts.n ?? 1_000_000;
  const hosts = opts.hosts ?? Math.max(10, Math.round(n / 1000));
  const print = opts.print ?? false;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-frontier-bench-'));
  const log = (s: string) => print && console.log(s);
  try {
    const plainFile = path.join(dir, 'plain.sqlite');
    const crawlFile = path.join(dir, 'crawl.sqlite');
    log(`frontier bench: ${n.toLocaleString('en')} URLs over ${hosts} hosts in ${dir}`);

    // --- enqueue, as outlinks arrive ---
    let db = openDatabase(crawlFile);
    let frontier = createSqliteFrontier(db);
    const rssSamples: number[] = [];
    const heapSamples: number[] = [];
    let now = 1;
    let next = 0;
    const t0 = performance.now();
    next += frontier.schedule(Array.from({ length: hosts }, (_, h) => candidate(h, hosts, null)));
    let nextSample = n / 4;
    while (next < n) {
      const uri = frontier.claim(now++);
      if (!uri) throw new Error('bench: frontier ran dry while enqueueing');
      const links: Candidate[] = [];
      for (let k = 0; k < BATCH && next < n; k++) links.push(candidate(next++, hosts, uri.url));
      frontier.complete(uri, { status: 200, queueReadyAt: now, bytes: 1000, mime: 'text/html' }, links);
      if (next >= nextSample) {
        const mem = process.memoryUsage();
        rssSamples.push(mem.rss);
        heapSamples.push(mem.heapUsed);
        nextSample += n / 4;
      }
    }
    const enqueueSec = (performance.now() - t0) / 1000;

    // --- claim + complete ---
    const m = Math.min(100_000, Math.floor(n / 5));
    const t1 = performance.now();
    for (let i = 0; i < m; i++) {
      const uri = frontier.claim(now++)!;
      frontier.complete(uri, { status: 200, queueReadyAt: now, bytes: 1000, mime: 'text/html' });
    }
    const claimSec = (performance.now() - t1) / 1000;
    const before = frontier.counts(now);
    closeDatabase(db);

    // --- a process that dies holding leases ---
    const leases = Math.min(hosts, 500);
    const killed = killWithLeases(crawlFile, leases, now);
    const walBytes = fileSize(crawlFile + '-wal');

    // --- resume ---
    const t2 = performance.now();
    db = openDatabase(crawlFile);
    frontier = createSqliteFrontier(db);
    const recovered = frontier.recoverInFlight();
    const after = frontier.counts(now);
    const first = frontier.claim(now);
    const resumeMs = performance.now() - t2;
    if (recovered !== leases || !killed || !first || after.pending !== before.pending) {
      throw new Error(`bench: resume check failed (recovered ${recovered} of ${leases}, pending ${after.pending} vs ${before.pending})`);
    }
    closeDatabase(db);
    const fileBytes = fileSize(crawlFile);
    // Measured before the baselines run, so it is the frontier's peak alone.
    const peakRss = process.resourceUsage().maxRSS * 1024;

    const plain = plainBaseline(plainFile, n, hosts, false);
    const unique = plainBaseline(path.join(dir, 'plain-unique.sqlite'), n, hosts, true);

    const r: Record<string, number> = {
      n,
      hosts,
      enqueuePerSec: n / enqueueSec,
      plainEnqueuePerSec: n / plain.insertSec,
      plainUniqueEnqueuePerSec: n / unique.insertSec,
      claimCompletePerSec: m / claimSec,
      plainClaimCompletePerSec: plain.updates / plain.updateSec,
      resumeMs,
      plainResumeMs: plain.resumeMs,
      plainCountAllMs: plain.countMs,
      walBytesAtKill: walBytes,
      fileBytes,
      plainFileBytes: plain.fileBytes,
      peakRssBytes: peakRss,
      ...Object.fromEntries(rssSamples.map((v, i) => [`rssAt${(i + 1) * 25}PctBytes`, v])),
    };
    if (print) printTable(r, rssSamples, heapSamples);
    return r;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The candidate for URL number i: a page on one of `hosts` hosts. */
function candidate(i: number, hosts: number, via: string | null): Candidate {
  const h = i < hosts && via === null ? i : (i * 7919) % hosts;
  const host = `www.host${h}.example${h % 7}.test`;
  const url = via === null ? `https://${host}/` : `https://${host}/section/${i % 97}/page-${i}.html?ref=${i % 13}`;
  return {
    url,
    canonical: url,
    fingerprint: fingerprint(host, url),
    queueKey: host,
    hopsPath: via === null ? '' : 'L',
    via,
    viaContext: via === null ? undefined : 'a/@href',
    seed: via === null,
  };
}

/** Heritrix-style 64-bit fingerprint: 24 bits of the host hash, 40 bits of the URL hash. */
function fingerprint(host: string, url: string): bigint {
  return (BigInt(fnv32(host) & 0xffffff) << 40n) | (BigInt(fnv32(url)) << 8n) | BigInt(fnv32(url + '#') & 0xff);
}

function fnv32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * The same rows into one table with no index but the rowid (`uniqueFingerprint`: plus the one
 * index any seen-set needs), same pragmas as openDatabase, same batching.
 */
function plainBaseline(file: string, n: number, hosts: number, uniqueFingerprint: boolean) {
  let db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('cache_size = -65536');
  db.pragma('wal_autocheckpoint = 4096');
  db.exec(
    `CREATE TABLE plain (id INTEGER PRIMARY KEY, fingerprint INTEGER ${uniqueFingerprint ? 'UNIQUE' : ''}, queue TEXT, url TEXT,
     hops TEXT, via TEXT, via_context TEXT, status INTEGER)`,
  );
  const insert = db.prepare('INSERT INTO plain (fingerprint, queue, url, hops, via, via_context) VALUES (?, ?, ?, ?, ?, ?)');
  const mark = db.prepare('UPDATE plain SET status = 200 WHERE id = ?');
  const nextRow = db.prepare<[number], { id: number }>('SELECT id FROM plain WHERE id > ? AND status IS NULL ORDER BY id LIMIT 1');
  const batch = db.transaction((rows: Candidate[], done: number) => {
    mark.run(done);
    for (const c of rows) insert.run(BigInt.asIntN(64, c.fingerprint), c.queueKey, c.url, c.hopsPath, c.via, c.viaContext ?? null);
  });
  const t0 = performance.now();
  let i = 0;
  batch(Array.from({ length: hosts }, (_, h) => candidate(h, hosts, null)), 0);
  i = hosts;
  let page = 1;
  while (i < n) {
    const rows: Candidate[] = [];
    for (let k = 0; k < BATCH && i < n; k++) rows.push(candidate(i++, hosts, 'https://www.host0.example0.test/'));
    batch(rows, page++);
  }
  const insertSec = (performance.now() - t0) / 1000;
  if (uniqueFingerprint) {
    db.close();
    return { insertSec, updates: 0, updateSec: 0, resumeMs: 0, countMs: 0, fileBytes: fileSize(file) };
  }

  const updates = Math.min(100_000, Math.floor(n / 5));
  const claimTx = db.transaction((after: number) => nextRow.get(after)!.id);
  const completeTx = db.transaction((id: number) => mark.run(id));
  const t1 = performance.now();
  let last = 0;
  for (let k = 0; k < updates; k++) {
    last = claimTx(last);
    completeTx(last);
  }
  const updateSec = (performance.now() - t1) / 1000;
  db.close();

  const t2 = performance.now();
  db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.prepare('SELECT * FROM plain WHERE status IS NULL ORDER BY id LIMIT 1').get();
  const resumeMs = performance.now() - t2;
  const t3 = performance.now();
  db.prepare('SELECT COUNT(*) FROM plain').get();
  const countMs = performance.now() - t3;
  db.close();
  return { insertSec, updates, updateSec, resumeMs, countMs, fileBytes: fileSize(file) };
}

/** Claim `leases` URIs in a child process that then dies by SIGKILL, leaving them in flight. */
function killWithLeases(file: string, leases: number, now: number): boolean {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const mod = (p: string) => JSON.stringify(pathToFileURL(path.join(here, '..', p)).href);
  const script = `
    import { openDatabase } from ${mod('core/storage/open-database.ts')};
    import { createSqliteFrontier } from ${mod('core/frontier/sqlite-frontier.ts')};
    const f = createSqliteFrontier(openDatabase(${JSON.stringify(file)}));
    for (let i = 0; i < ${leases}; i++) if (!f.claim(${now})) throw new Error('no URI to lease');
    process.kill(process.pid, 'SIGKILL');
  `;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  if (r.signal !== 'SIGKILL') throw new Error(`bench: lease child did not die as planned: ${r.stderr}`);
  return true;
}

function fileSize(p: string): number {
  try {
    return fs.statSync(p).size;
  } catch {
    return 0;
  }
}

function printTable(r: Record<string, number>, rss: number[], heap: number[]): void {
  const mb = (b: number) => (b / 1048576).toFixed(1);
  const num = (v: number) => Math.round(v).toLocaleString('en');
  const rows: [string, string, string, string][] = [
    ['enqueue, 50 per complete (URIs/s)', num(r.enqueuePerSec!), num(r.plainEnqueuePerSec!), (r.enqueuePerSec! / r.plainEnqueuePerSec!).toFixed(2)],
    ['  vs plain + UNIQUE(fingerprint)', num(r.enqueuePerSec!), num(r.plainUniqueEnqueuePerSec!), (r.enqueuePerSec! / r.plainUniqueEnqueuePerSec!).toFixed(2)],
    ['claim + complete (URIs/s)', num(r.claimCompletePerSec!), num(r.plainClaimCompletePerSec!), (r.claimCompletePerSec! / r.plainClaimCompletePerSec!).toFixed(2)],
    ['resume after SIGKILL (ms)', r.resumeMs!.toFixed(1), r.plainResumeMs!.toFixed(1), (r.resumeMs! / r.plainResumeMs!).toFixed(2)],
    ['file size (MB)', mb(r.fileBytes!), mb(r.plainFileBytes!), (r.fileBytes! / r.plainFileBytes!).toFixed(2)],
  ];
  const w = [36, 14, 14, 7];
  const line = (c: string[]) => c.map((s, i) => (i === 0 ? s.padEnd(w[i]!) : s.padStart(w[i]!))).join('  ');
  console.log('');
  console.log(line(['metric', 'trove', 'plain sqlite', 'ratio']));
  console.log(line(['-'.repeat(36), '-'.repeat(14), '-'.repeat(14), '-'.repeat(7)]));
  for (const row of rows) console.log(line(row));
  console.log('');
  console.log(`plain COUNT(*) over all rows on open: ${r.plainCountAllMs!.toFixed(1)} ms (the frontier keeps counters instead)`);
  console.log(`WAL left by the killed process: ${mb(r.walBytesAtKill!)} MB`);
  console.log(`RSS during enqueue at 25/50/75/100%: ${rss.map(mb).join(' / ')} MB (JS heap ${heap.map(mb).join(' / ')} MB)`);
  console.log(`peak RSS through resume: ${mb(r.peakRssBytes!)} MB (measured before the baselines ran; SQLite's page cache is capped by openDatabase's cache_size, the plain baselines' at 64 MiB)`);
  console.log(`targets: resume < 2000 ms ${r.resumeMs! < 2000 ? 'OK' : 'MISSED'}; peak RSS < 300 MB ${r.peakRssBytes! < 300 * 1048576 ? 'OK' : 'MISSED'}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const n = process.argv[2] ? Number(process.argv[2]) : undefined;
  await runFrontierBench({ n, print: true });
}
