/**
 * The shared crawl's "done when" run (issue 18), one procedure for the test (small) and the
 * `pg-5000` benchmark (5,000 pages on 20 hosts): three `trove` processes crawl one PostgreSQL
 * crawl of a loopback site; one of them is killed with SIGKILL mid-crawl and started again at the
 * end (its open WARC is recovered). Returns the figures and whether each condition held: every
 * page captured (read back from the three WARC folders with warcio), captured twice only where
 * the killed worker held it in flight, the servers never seeing more than --per-host requests at
 * once nor a gap below the delay, and every surviving worker ending well.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { readWarcDir } from './read-warcs.ts';
import { sharedCrawlFlags, sitePages, startSite, trove, whenSettingsStored } from './shared-crawl-site.ts';

export interface DoneWhenOptions {
  /** postgres://…/<database> and a fresh crawl (schema) name in it. */
  dbUrl: string;
  crawl: string;
  /** Folder the three workers' crawl directories go in. */
  dir: string;
  hosts: number;
  pages: number;
  latencyMs: number;
  delayMs: number;
  concurrency: number;
  /** Kill the second worker once this share of the pages is done (0 < killAt < 1). */
  killAt: number;
  /** The killed worker's lease, seconds. */
  leaseS: number;
}

export interface DoneWhenResult {
  pages: number;
  seconds: number;
  pagesPerSec: number;
  /** URIs the killed worker held in flight at the kill, and ms until no URI was leased to it. */
  heldAtKill: number;
  takeoverMs: number;
  /** Page URLs with more than one response record across the folders, and those not held by the killed worker. */
  capturedTwice: number;
  twiceNotHeld: string[];
  missing: string[];
  maxActive: number;
  minGap: number;
  exits: (number | null)[];
  conditions: { name: string; ok: boolean; detail: string }[];
}

export async function runDoneWhen(o: DoneWhenOptions): Promise<DoneWhenResult> {
  const hosts = await startSite({ hosts: o.hosts, pages: o.pages, latencyMs: o.latencyMs });
  const url = `${o.dbUrl}/${o.crawl}`;
  const dir = (w: string) => path.join(o.dir, w);
  const db = new pg.Client({ connectionString: o.dbUrl });
  await db.connect();
  const one = async (sql: string) => (await db.query(sql)).rows[0];
  try {
    const flags = sharedCrawlFlags(o.delayMs, o.concurrency);
    const t0 = performance.now();
    const a = trove(['crawl', ...hosts.map((h) => `${h.s.origin}/p0.html`), '--frontier', url, '--worker-name', 'a', '--out', dir('a'), ...flags]);
    await whenSettingsStored(o.dbUrl, o.crawl);
    const b = trove(['worker', url, '--worker-name', 'b', '--lease-s', String(o.leaseS), '--out', dir('b'), '--no-progress']);
    const c = trove(['worker', url, '--worker-name', 'c', '--out', dir('c'), '--no-progress']);
    const total = o.hosts * o.pages;
    for (;;) {
      const r = await one(`SELECT count(*) FILTER (WHERE state = 3 AND status = 200)::int AS done, count(*) FILTER (WHERE state = 2 AND leased_by = 'b')::int AS held FROM ${o.crawl}.uris`);
      if (r.done >= total * o.killAt && r.held > 0) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    b.proc.kill('SIGKILL');
    await b;
    const held = new Set((await db.query(`SELECT url FROM ${o.crawl}.uris WHERE state = 2 AND leased_by = 'b'`)).rows.map((r) => r.url as string));
    const killedAt = Date.now();
    let takeoverMs = -1;
    while (takeoverMs < 0) {
      if ((await one(`SELECT count(*)::int AS n FROM ${o.crawl}.uris WHERE state = 2 AND leased_by = 'b'`)).n === 0) takeoverMs = Date.now() - killedAt;
      else await new Promise((r) => setTimeout(r, 20));
    }
    const [ra, rc] = await Promise.all([a, c]);
    const seconds = (performance.now() - t0) / 1000;
    // b again, on its own folder: its open WARC is recovered, and there is nothing left to crawl.
    const rb = await trove(['worker', url, '--worker-name', 'b', '--out', dir('b'), '--no-progress']);
    const open = ['a', 'b', 'c'].flatMap((w) => fs.readdirSync(path.join(dir(w), 'warcs')).filter((n) => n.endsWith('.open')));

    const recs = (await Promise.all(['a', 'b', 'c'].map((w) => readWarcDir(path.join(dir(w), 'warcs'))))).flat();
    const captured = recs.filter((r) => r.type === 'response' && r.targetUri!.endsWith('.html')).map((r) => r.targetUri!);
    const counts = new Map<string, number>();
    for (const u of captured) counts.set(u, (counts.get(u) ?? 0) + 1);
    const expected = sitePages(hosts, o.pages);
    const missing = expected.filter((u) => !counts.has(u));
    const twice = [...counts].filter(([, n]) => n > 1).map(([u]) => u);
    const twiceNotHeld = twice.filter((u) => !held.has(u));
    const maxActive = Math.max(...hosts.map((h) => h.maxActive));
    const minGap = Math.min(...hosts.map((h) => h.minGap));
    const exits = [ra.code, rc.code, rb.code];
    const conditions = [
      { name: 'every page captured', ok: missing.length === 0, detail: `${counts.size} of ${expected.length} pages in the WARCs (warcio), ${missing.length} missing` },
      { name: 'captured once, bar the killed worker\'s in-flight', ok: twiceNotHeld.length === 0, detail: `${twice.length} captured twice, all of them among the ${held.size} URIs the killed worker held` + (twiceNotHeld.length ? `; NOT held: ${twiceNotHeld.slice(0, 5).join(' ')}` : '') },
      { name: 'never more than --per-host 1 at once', ok: maxActive <= 1, detail: `most requests one server had at once: ${maxActive}` },
      { name: `no gap below the delay (${o.delayMs} ms)`, ok: minGap >= o.delayMs, detail: `smallest gap one server saw: ${minGap} ms` },
      { name: 'workers ended well, WARCs sealed', ok: exits.every((e) => e === 0) && open.length === 0, detail: `exit codes a ${ra.code}, c ${rc.code}, b restarted ${rb.code}; open WARCs left: ${open.length}` },
    ];
    return { pages: counts.size, seconds, pagesPerSec: counts.size / seconds, heldAtKill: held.size, takeoverMs, capturedTwice: twice.length, twiceNotHeld, missing, maxActive, minGap, exits, conditions };
  } finally {
    await db.end();
    await Promise.all(hosts.map((h) => h.s.close()));
  }
}
