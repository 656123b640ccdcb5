/**
 * Three worker processes share one PostgreSQL frontier and crawl 20 hosts (20 HTTP servers on
 * loopback ports, each answering after a delay, so the crawl is latency-bound). The servers
 * record every request: no host ever sees more than one request at once or a gap below the
 * politeness delay, across all workers. One worker is killed with SIGKILL mid-crawl; the other two
 * finish, every page is fetched, and the only pages fetched twice are those the killed worker
 * held in flight (its leases expire and go back to the queue).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresFrontier } from '../../core/frontier/postgres-frontier.ts';
import { startTestPostgres } from '../helpers/postgres-server.ts';
import { candidateFor } from './postgres-worker-child.ts';

const server = await startTestPostgres();
if (typeof server === 'string') console.warn(`PostgreSQL worker tests skipped: ${server}`);
afterAll(async () => {
  if (typeof server !== 'string') await server.stop();
});

const HOSTS = 20;
const PAGES = 15;
const DELAY_MS = 40;
const LATENCY_MS = 15;
const child = path.join(path.dirname(fileURLToPath(import.meta.url)), 'postgres-worker-child.ts');

interface Host {
  srv: http.Server;
  base: string;
  active: number;
  maxActive: number;
  lastEnd: number;
  minGap: number;
  hits: Map<string, number>;
}

async function startHost(): Promise<Host> {
  const h = { active: 0, maxActive: 0, lastEnd: 0, minGap: Infinity, hits: new Map<string, number>() } as Host;
  h.srv = http.createServer((req, res) => {
    const start = Date.now();
    if (h.lastEnd > 0) h.minGap = Math.min(h.minGap, start - h.lastEnd);
    h.active++;
    h.maxActive = Math.max(h.maxActive, h.active);
    h.hits.set(req.url!, (h.hits.get(req.url!) ?? 0) + 1);
    const i = Number(/^\/p(\d+)$/.exec(req.url!)?.[1] ?? -1);
    const links = i < 0 ? [] : [i + 1, i + 2, 2 * i + 1].filter((k) => k < PAGES).map((k) => `${h.base}/p${k}`);
    setTimeout(() => {
      h.active--;
      h.lastEnd = Date.now();
      res.end(links.join('\n'));
    }, LATENCY_MS);
  });
  await new Promise<void>((r) => h.srv.listen(0, '127.0.0.1', r));
  h.base = `http://127.0.0.1:${(h.srv.address() as AddressInfo).port}`;
  return h;
}

function runWorker(url: string, crawl: string, name: string): { proc: ChildProcess; done: Promise<number | string>; fetched: () => number } {
  const proc = spawn(process.execPath, [child, url, crawl, name, String(DELAY_MS), '8'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let n = 0;
  proc.stdout!.on('data', (d: Buffer) => (n += d.toString().split('\n').filter((l) => l.startsWith('done')).length));
  const done = new Promise<number | string>((resolve) => proc.on('exit', (code, signal) => resolve(signal ?? code ?? -1)));
  return { proc, done, fetched: () => n };
}

describe.skipIf(typeof server === 'string')('three worker processes on one PostgreSQL frontier', () => {
  it('crawl 20 hosts politely; a worker killed with SIGKILL loses nothing', async () => {
    const pgs = server as Exclude<typeof server, string>;
    const hosts = await Promise.all(Array.from({ length: HOSTS }, startHost));
    const crawl = pgs.freshSchema('workers');
    try {
      const seeder = createPostgresFrontier({ url: pgs.url, crawl, worker: 'seeder' });
      seeder.schedule(hosts.map((h) => candidateFor(`${h.base}/p0`, null)));
      seeder.close();

      const workers = ['w0', 'w1', 'w2'].map((n) => runWorker(pgs.url, crawl, n));
      // Kill w0 once it has finished a few pages (so it holds leases mid-crawl).
      while (workers[0]!.fetched() < 10) await new Promise((r) => setTimeout(r, 5));
      workers[0]!.proc.kill('SIGKILL');
      expect(await workers[0]!.done).toBe('SIGKILL');
      const db = new pg.Client({ connectionString: pgs.url });
      await db.connect();
      const held = (await db.query(`SELECT url FROM ${crawl}.uris WHERE state = 2 AND leased_by = 'w0'`)).rows.map((r) => r.url as string);

      expect(await workers[1]!.done).toBe(0);
      expect(await workers[2]!.done).toBe(0);

      const counts = (await db.query(`SELECT state, count(*)::int AS n, count(*) FILTER (WHERE status = 200)::int AS ok FROM ${crawl}.uris GROUP BY state`)).rows;
      const workersLeft = (await db.query(`SELECT name FROM ${crawl}.workers ORDER BY name`)).rows.map((r) => r.name);
      await db.end();
      expect(counts).toEqual([{ state: 3, n: HOSTS * PAGES, ok: HOSTS * PAGES }]);
      expect(workersLeft).toEqual([]); // w0 reaped once its lease expired, the others left when done

      const twice: string[] = [];
      for (const h of hosts) {
        expect(h.maxActive).toBe(1); // --per-host 1 across all three workers
        expect(h.minGap).toBeGreaterThanOrEqual(DELAY_MS);
        expect(h.hits.size).toBe(PAGES);
        for (const [p, n] of h.hits) if (n > 1) twice.push(`${h.base}${p}`);
      }
      // Refetches only of what the killed worker held in flight (it may have fetched some of
      // those already without completing them), and never more than twice.
      for (const u of twice) expect(held).toContain(u);
      expect(Math.max(...hosts.flatMap((h) => [...h.hits.values()]))).toBeLessThanOrEqual(2);
      console.log(`w0 held ${held.length} leases when killed; ${twice.length} pages fetched twice`);
    } finally {
      await Promise.all(hosts.map((h) => new Promise((r) => h.srv.close(r))));
    }
  }, 120_000);
});
