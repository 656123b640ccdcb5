/**
 * The seed paper's experiment, locally ("基于 Heritrix 网络爬虫算法的研究与应用", docs/FORMATS.md
 * "Queue assignment"): one site crawled with Heritrix's one-queue-per-host policy and with the
 * paper's ELFHash policy (`elfhash:8`: the site spread over 8 queues), otherwise identical.
 *
 * The site answers every request after 20 ms (a node:http server with a setTimeout): a home page,
 * 40 index pages with 50 links each, 2,000 leaf pages. Each crawl runs in its own process
 * (bench/crawl-child.js) with concurrency 8, one request in flight per queue, delay-factor 0, and
 * min-delay 0 ms, then 20 ms, stopped at the same URI limit (1,500).
 *
 * Printed: URIs/s per policy side by side and the ratio (target: elfhash:8 ≥ 3× host), and
 * checks from the server's own request log: under `host` never more than one request open at a
 * time; under both, the gap from a request's end to the next start on the same queue never under
 * min-delay (the politeness delay runs from the end of a fetch, as in Heritrix) and so the gap
 * between starts never under 20 ms + min-delay. The price is plain in the numbers: elfhash:8
 * hits this one server with up to 8 connections at once.
 *
 *   node bench/queue-policy-bench.ts [limitUris]
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { queueKeyFor } from '../core/frontier/queue-assignment.ts';
import { cliNodeFlags } from './cli-node-flags.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const RESPONSE_MS = 20;
const INDEX_PAGES = 40;
const LINKS_PER_INDEX = 50;

interface Hit {
  start: number;
  end: number;
  path: string;
  socket: number;
}

interface Site {
  origin: string;
  hits: Hit[];
  reset(): void;
  close(): Promise<void>;
}

function page(title: string, links: string[]): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>\n${links.map((l) => `<a href="${l}">${l}</a>`).join('\n')}\n</body></html>`;
}

/** The 20 ms site: `/` → `/i/N` (40) → `/p/N/M` (50 each); everything else 404. */
async function startSlowSite(): Promise<Site> {
  let hits: Hit[] = [];
  const sockets = new Set<Socket>();
  const socketIds = new WeakMap<Socket, number>();
  let nextSocket = 0;
  const server = http.createServer((req, res) => {
    const hit: Hit = { start: performance.now(), end: 0, path: req.url ?? '/', socket: socketIds.get(req.socket) ?? -1 };
    hits.push(hit);
    setTimeout(() => {
      const p = hit.path;
      let status = 200;
      let body: string;
      const idx = /^\/i\/(\d+)$/.exec(p);
      const leaf = /^\/p\/(\d+)\/(\d+)$/.exec(p);
      if (p === '/') body = page('Home', Array.from({ length: INDEX_PAGES }, (_, i) => `/i/${i}`));
      else if (idx && Number(idx[1]) < INDEX_PAGES) body = page(`Index ${idx[1]}`, Array.from({ length: LINKS_PER_INDEX }, (_, j) => `/p/${idx[1]}/${j}`));
      else if (leaf) body = page(`Page ${leaf[1]}/${leaf[2]}`, ['/']);
      else {
        status = 404;
        body = page('Not found', []);
      }
      res.writeHead(status, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': String(Buffer.byteLength(body)) });
      hit.end = performance.now();
      res.end(body);
    }, RESPONSE_MS);
  });
  server.on('connection', (s: Socket) => {
    socketIds.set(s, nextSocket++);
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    get hits() {
      return hits;
    },
    reset() {
      hits = [];
      nextSocket = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

interface ChildResult {
  ms: number;
  downloaded: number;
  failed: number;
  state: string;
  reason: string;
}

/** The crawl in its own process; asynchronously, since the site lives in this one's event loop. */
function crawlInChild(dir: string, settings: Record<string, unknown>): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...cliNodeFlags(), path.join(here, 'crawl-child.js'), dir, JSON.stringify(settings)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`crawl child failed (${code}): ${stderr}`));
      resolve(JSON.parse(stdout.trim().split('\n').pop()!) as ChildResult);
    });
  });
}

interface RunStats {
  uris: number;
  urisPerSec: number;
  serverReqPerSec: number;
  maxOpen: number;
  connections: number;
  queues: number;
  minEndToStartMs: number;
  minStartGapMs: number;
}

/** Server-side checks: requests open at once, and per queue the gaps end→next start and start→start. */
function analyse(site: Site, origin: string, policy: string, child: ChildResult): RunStats {
  const hits = [...site.hits].sort((a, b) => a.start - b.start);
  const events: [number, number][] = [];
  for (const h of hits) events.push([h.start, 1], [h.end, -1]);
  // An end and a start at the same instant: count the end first (the slot was already free).
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let maxOpen = 0;
  for (const [, d] of events) maxOpen = Math.max(maxOpen, (open += d));
  const byQueue = new Map<string, Hit[]>();
  for (const h of hits) {
    const key = queueKeyFor(origin + h.path, policy);
    let list = byQueue.get(key);
    if (!list) byQueue.set(key, (list = []));
    list.push(h);
  }
  let minEndToStart = Infinity;
  let minStartGap = Infinity;
  for (const list of byQueue.values()) {
    for (let i = 1; i < list.length; i++) {
      minEndToStart = Math.min(minEndToStart, list[i]!.start - list[i - 1]!.end);
      minStartGap = Math.min(minStartGap, list[i]!.start - list[i - 1]!.start);
    }
  }
  const uris = child.downloaded + child.failed;
  const span = (hits.at(-1)!.end - hits[0]!.start) / 1000;
  return {
    uris,
    urisPerSec: uris / (child.ms / 1000),
    serverReqPerSec: hits.length / span,
    maxOpen,
    connections: new Set(hits.map((h) => h.socket)).size,
    queues: byQueue.size,
    minEndToStartMs: minEndToStart,
    minStartGapMs: minStartGap,
  };
}

export async function runQueuePolicyBench(opts: { limitUris?: number } = {}): Promise<Record<string, number>> {
  const limitUris = opts.limitUris ?? 1500;
  const site = await startSlowSite();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-queue-bench-'));
  const out: Record<string, number> = {};
  const failures: string[] = [];
  try {
    const seed = site.origin + '/';
    console.log(`\nqueue policy: host vs elfhash:8 (the seed paper), one local site answering every request after ${RESPONSE_MS} ms`);
    console.log(`  ${1 + INDEX_PAGES + INDEX_PAGES * LINKS_PER_INDEX} pages; concurrency 8, 1 request per queue, delay-factor 0, limit ${limitUris} URIs per run`);
    for (const minDelayMs of [0, 20]) {
      const stats: Record<string, RunStats> = {};
      for (const policy of ['host', 'elfhash:8']) {
        site.reset();
        const child = await crawlInChild(path.join(work, `${policy.replace(':', '-')}-${minDelayMs}`), {
          name: 'queue-bench',
          seeds: [seed],
          queuePolicy: policy,
          concurrency: 8,
          perHost: 1,
          delayFactor: 0,
          minDelayMs,
          maxDelayMs: Math.max(1000, minDelayMs),
          limitUris,
          minFreeDiskBytes: 0,
        });
        stats[policy] = analyse(site, site.origin, policy, child);
      }
      const h = stats.host!;
      const e = stats['elfhash:8']!;
      const ratio = e.urisPerSec / h.urisPerSec;
      console.log(`\n  min-delay ${minDelayMs} ms`);
      const row = (label: string, a: string, b: string) => console.log(`    ${label.padEnd(46)}${a.padStart(12)}${b.padStart(12)}`);
      row('', 'host', 'elfhash:8');
      row('URIs crawled', String(h.uris), String(e.uris));
      row('URIs/s (whole crawl, process start to finish)', h.urisPerSec.toFixed(1), e.urisPerSec.toFixed(1));
      row('requests/s at the server (first to last)', h.serverReqPerSec.toFixed(1), e.serverReqPerSec.toFixed(1));
      row('queues this site was spread over', String(h.queues), String(e.queues));
      row('most requests open at once on this ONE server', String(h.maxOpen), String(e.maxOpen));
      row('TCP connections opened to it', String(h.connections), String(e.connections));
      row('min gap, end → next start, same queue (ms)', h.minEndToStartMs.toFixed(1), e.minEndToStartMs.toFixed(1));
      row('min gap between starts, same queue (ms)', h.minStartGapMs.toFixed(1), e.minStartGapMs.toFixed(1));
      console.log(`    ratio elfhash:8 / host: ${ratio.toFixed(2)}×  (target ≥ 3×: ${ratio >= 3 ? 'met' : 'MISSED'})`);
      const check = (ok: boolean, text: string) => {
        console.log(`    check: ${text}: ${ok ? 'OK' : 'FAILED'}`);
        if (!ok) failures.push(`min-delay ${minDelayMs}: ${text}`);
      };
      check(h.maxOpen === 1, 'host kept exactly one request in flight at a time');
      // Timer granularity: the server stamps with performance.now(), the crawler with Date.now() (whole ms).
      for (const [name, s] of [['host', h], ['elfhash:8', e]] as const) {
        check(s.minEndToStartMs >= minDelayMs - 1, `${name}: gap from a fetch's end to the next start on its queue never under min-delay ${minDelayMs} ms`);
        check(s.minStartGapMs >= RESPONSE_MS + minDelayMs - 1, `${name}: gap between request starts on a queue never under ${RESPONSE_MS} + ${minDelayMs} ms`);
      }
      console.log(`    note: elfhash:8 is impolite by design — it hit this one server with up to ${e.maxOpen} requests at once over ${e.connections} connections.`);
      const k = `minDelay${minDelayMs}`;
      Object.assign(out, {
        [`${k}HostUrisPerSec`]: h.urisPerSec,
        [`${k}ElfhashUrisPerSec`]: e.urisPerSec,
        [`${k}Ratio`]: ratio,
        [`${k}HostMaxOpen`]: h.maxOpen,
        [`${k}ElfhashMaxOpen`]: e.maxOpen,
        [`${k}MinEndToStartMs`]: Math.min(h.minEndToStartMs, e.minEndToStartMs),
      });
    }
    out.checksFailed = failures.length;
    if (failures.length) console.log(`\n  FAILED checks:\n    ${failures.join('\n    ')}`);
    return out;
  } finally {
    await site.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const limit = process.argv[2] ? Number(process.argv[2]) : undefined;
  const r = await runQueuePolicyBench({ limitUris: limit });
  if (r.checksFailed) process.exitCode = 1;
}
