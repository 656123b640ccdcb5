/**
 * What the shared-crawl (PostgreSQL frontier) tests and benchmarks crawl and how they run it: a
 * site of several loopback HTTP servers, one per host, each answering `/p<i>.html` after a set
 * latency with links to p(i+1), p(2i+1) and the same page on the next host, and counting what it
 * saw (requests at once, smallest gap between two requests, every page request) so politeness
 * across all workers is checked where it matters, at the server. Plus `trove` as a real child
 * process and a wait for a shared crawl's settings to be stored (workers join after that).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { repoRoot } from './corpus.ts';
import { startHttpServer, type LocalServer } from './local-server.ts';

export interface SiteHost {
  s: LocalServer;
  active: number;
  maxActive: number;
  lastEnd: number;
  minGap: number;
  /** Page requests answered, by path (a page fetched twice counts twice). */
  hits: Map<string, number>;
}

export interface SiteOptions {
  hosts: number;
  pages: number;
  /** How long each response takes. Default 10 ms. */
  latencyMs?: number;
  /** Link each page to the same page on the next host (default true). */
  crossHost?: boolean;
  /** Answers wait for this (a test that needs every worker started before any page is done). */
  hold?: Promise<unknown>;
}

export async function startSite(o: SiteOptions): Promise<SiteHost[]> {
  const latency = o.latencyMs ?? 10;
  const hosts: SiteHost[] = [];
  for (let h = 0; h < o.hosts; h++) {
    const host = { active: 0, maxActive: 0, lastEnd: 0, minGap: Infinity, hits: new Map() } as SiteHost;
    host.s = await startHttpServer((req, res) => {
      const start = Date.now();
      if (host.lastEnd > 0) host.minGap = Math.min(host.minGap, start - host.lastEnd);
      host.active++;
      host.maxActive = Math.max(host.maxActive, host.active);
      const m = /^\/p(\d+)\.html$/.exec(req.url!);
      const answer = () => setTimeout(() => {
        host.active--;
        host.lastEnd = Date.now();
        if (!m || Number(m[1]) >= o.pages) return void res.writeHead(404, { 'content-type': 'text/plain' }).end(`no ${req.url} on host ${h}`);
        host.hits.set(req.url!, (host.hits.get(req.url!) ?? 0) + 1);
        const i = Number(m[1]);
        const links = [i + 1, 2 * i + 1].filter((k) => k < o.pages).map((k) => `<a href="/p${k}.html">${k}</a>`);
        if (o.crossHost !== false) links.push(`<a href="${hosts[(h + 1) % o.hosts]!.s.origin}/p${i}.html">next host</a>`);
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>${h}/${i}</title>${links.join(' ')}`);
      }, latency);
      void (o.hold ?? Promise.resolve()).then(answer);
    });
    hosts.push(host);
  }
  return hosts;
}

/** Every page URL of the site. */
export function sitePages(hosts: readonly SiteHost[], pages: number): string[] {
  return hosts.flatMap((h) => Array.from({ length: pages }, (_, i) => `${h.s.origin}/p${i}.html`));
}

export type TroveRun = Promise<{ code: number | null; signal: string | null; out: string; err: string }> & { proc: ChildProcess };

/** `trove <args>` as a child process; resolves when it exits, with its output. */
export function trove(args: string[]): TroveRun {
  const proc = spawn(process.execPath, [path.join(repoRoot, 'bin', 'trove.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (err += d));
  const done = new Promise<{ code: number | null; signal: string | null; out: string; err: string }>((resolve) =>
    proc.on('close', (code, signal) => resolve({ code, signal, out, err })),
  );
  return Object.assign(done, { proc });
}

/** Resolves once `trove crawl --frontier` has stored the crawl's settings (workers can join). */
/** Resolves once the shared crawl's workers table names `worker` (it has started and registered). */
export async function whenWorkerJoined(url: string, crawl: string, worker: string): Promise<void> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    for (;;) {
      const r = await db.query(`SELECT EXISTS (SELECT 1 FROM ${crawl}.workers WHERE name = $1) AS ok`, [worker]).catch(() => ({ rows: [{ ok: false }] }));
      if (r.rows[0].ok) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await db.end();
  }
}

export async function whenSettingsStored(url: string, crawl: string): Promise<void> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    for (;;) {
      const r = await db
        .query(`SELECT to_regclass($1) IS NOT NULL AND EXISTS (SELECT 1 FROM ${crawl}.meta WHERE key = 'settings') AS ok`, [`${crawl}.meta`])
        .catch(() => ({ rows: [{ ok: false }] }));
      if (r.rows[0].ok) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await db.end();
  }
}

/**
 * Crawl flags for these sites: robots ignored, --per-host 1, a fixed delay, no retries, and hops
 * without a limit that matters. A site of N pages a host is about 2·log2(N) hops deep at its
 * shortest (24 at 10,000), and a shared crawl does not discover pages in breadth-first order, so
 * the default --max-hops 20 left 9–11 % of a 200,000-page site out of scope (pg-200k).
 */
export const sharedCrawlFlags = (delayMs: number, concurrency = 4) => [
  '--robots', 'ignore', '--per-host', '1', '--concurrency', String(concurrency), '--min-delay-ms', String(delayMs), '--max-delay-ms', String(delayMs),
  '--delay-factor', '0', '--max-retries', '0', '--min-free-disk', '0', '--max-hops', '1000', '--no-progress',
];
