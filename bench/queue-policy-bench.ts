/**
 * The seed paper's experiment, locally ("基于 Heritrix 网络爬虫算法的研究与应用", docs/FORMATS.md
 * "Queue assignment"): one site crawled with Heritrix's one-queue-per-host policy and with the
 * paper's ELFHash policy (`elfhash:8`: the site spread over 8 queues), otherwise identical.
 *
 * The site answers every request after 20 ms (a node:http server with a setTimeout). It is run in
 * several URL shapes, since how ELFHash is reduced to a queue depends on the URLs' last characters:
 * paths ending in digits (`/p/3/17`), in `.html` (`/p/167.html`, each with an image
 * `/img/<k>.png?v=<n>`), in `/` (`/p/3/17/`), with query strings (`/item?cat=3&id=17`): a home
 * page, 40 index pages with 50 links each, 2,000 leaves. Then Debian's Python docs (nginx behind a
 * node proxy adding the same 20 ms), skipped with a message when nginx or python3-doc is missing.
 * Each crawl runs in its own process (bench/crawl-child.js) with concurrency 8, one request in
 * flight per queue, delay-factor 0, min-delay 0 ms (and once 20 ms, on the `.html` site), stopped
 * at the same URI limit.
 *
 * Printed per shape: URIs/s per policy side by side and the ratio (target: elfhash:8 ≥ 3× host),
 * the coefficient of variation of the 8 queues' sizes (target < 0.2), and checks from the
 * server's own request log: under `host` never more than one request open at a time; under both,
 * the gap from a request's end to the next start on the same queue never under min-delay (the
 * politeness delay runs from the end of a fetch, as in Heritrix) and so the gap between starts
 * never under 20 ms + min-delay. The price is plain in the numbers: elfhash:8 hits this one
 * server with up to 8 connections at once.
 *
 *   node bench/queue-policy-bench.ts [limitUris [shape]]   (shape: digits, .html, /-ending,
 *                                                           query string or "Python docs")
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { queueKeyFor } from '../core/frontier/queue-assignment.ts';
import { nginxAvailable, startNginx, type Nginx } from './bench-nginx.ts';
import { cliNodeEnv, cliNodeFlags } from './cli-node-flags.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const RESPONSE_MS = 20;
const INDEX_PAGES = 40;
const LINKS_PER_INDEX = 50;
const QUEUES = 8;
const DOCS = '/usr/share/doc/python3-doc/html';

interface Hit {
  start: number;
  end: number;
  path: string;
  socket: number;
}

interface Site {
  origin: string;
  /** Every path the site serves (for the queue spread over the whole site, not just the crawled part). */
  paths: string[];
  hits: Hit[];
  reset(): void;
  close(): Promise<void>;
}

/** A URL shape of the generated site: where index page i and leaf j of index i live. */
interface Shape {
  name: string;
  index(i: number): string;
  leaf(i: number, j: number): string;
  /** Extra links of a leaf page (the `.html` site's versioned image). */
  embeds?(i: number, j: number): string[];
}

const SHAPES: Shape[] = [
  { name: 'digits', index: (i) => `/i/${i}`, leaf: (i, j) => `/p/${i}/${j}` },
  {
    name: '.html',
    index: (i) => `/list/${i}.html`,
    leaf: (i, j) => `/p/${i * LINKS_PER_INDEX + j}.html`,
    embeds: (i, j) => [`/img/${(i * LINKS_PER_INDEX + j) % 40}.png?v=${i * LINKS_PER_INDEX + j}`],
  },
  { name: '/-ending', index: (i) => `/i/${i}/`, leaf: (i, j) => `/p/${i}/${j}/` },
  { name: 'query string', index: (i) => `/list?cat=${i}`, leaf: (i, j) => `/item?cat=${i}&id=${j}` },
];

function page(title: string, links: string[], images: string[] = []): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>\n${images.map((l) => `<img src="${l}" alt="">`).join('\n')}${links.map((l) => `<a href="${l}">${l}</a>`).join('\n')}\n</body></html>`;
}

type Answer = { status: number; type: string; body: Buffer | string } | 'pass';

/** The shape's site: `/` → 40 index pages → 50 leaves each; everything else 404. */
function shapeSite(shape: Shape): { answer: (p: string) => Answer; paths: string[] } {
  const routes = new Map<string, () => Answer>();
  const html = (body: string): Answer => ({ status: 200, type: 'text/html; charset=utf-8', body });
  routes.set('/', () => html(page('Home', Array.from({ length: INDEX_PAGES }, (_, i) => shape.index(i)))));
  for (let i = 0; i < INDEX_PAGES; i++) {
    routes.set(shape.index(i), () => html(page(`Index ${i}`, Array.from({ length: LINKS_PER_INDEX }, (_, j) => shape.leaf(i, j)))));
    for (let j = 0; j < LINKS_PER_INDEX; j++) {
      const embeds = shape.embeds?.(i, j) ?? [];
      routes.set(shape.leaf(i, j), () => html(page(`Page ${i}/${j}`, ['/'], embeds)));
      for (const e of embeds) routes.set(e, () => ({ status: 200, type: 'image/png', body: Buffer.from('89504e470d0a1a0a', 'hex') }));
    }
  }
  return { answer: (p) => routes.get(p)?.() ?? { status: 404, type: 'text/html; charset=utf-8', body: page('Not found', []) }, paths: [...routes.keys()] };
}

/** The Python docs' files as paths (a folder's index.html also as the folder). */
function docsPaths(root: string): string[] {
  const out: string[] = [];
  for (const rel of fs.readdirSync(root, { recursive: true }) as string[]) {
    if (!fs.statSync(path.join(root, rel)).isFile()) continue;
    const p = '/' + rel.split(path.sep).join('/');
    out.push(p);
    if (p.endsWith('/index.html')) out.push(p.slice(0, -'index.html'.length));
  }
  return out;
}

/**
 * The site answering every request after 20 ms: from `answer`, or (answer 'pass') from the nginx
 * at `upstream`, the body relayed once the 20 ms have passed.
 */
async function startSlowSite(answer: (p: string) => Answer, paths: string[], upstream?: Nginx): Promise<Site> {
  let hits: Hit[] = [];
  const sockets = new Set<Socket>();
  const socketIds = new WeakMap<Socket, number>();
  let nextSocket = 0;
  const server = http.createServer((req, res) => {
    const hit: Hit = { start: performance.now(), end: 0, path: req.url ?? '/', socket: socketIds.get(req.socket) ?? -1 };
    hits.push(hit);
    const reply = (status: number, headers: http.OutgoingHttpHeaders, body: Buffer | string) => {
      res.writeHead(status, { ...headers, 'Content-Length': String(Buffer.byteLength(body)) });
      hit.end = performance.now();
      res.end(body);
    };
    const a = answer(hit.path);
    if (a !== 'pass') {
      setTimeout(() => reply(a.status, { 'Content-Type': a.type }, a.body), RESPONSE_MS);
      return;
    }
    const due = performance.now() + RESPONSE_MS;
    http
      .get(upstream!.origin + hit.path, (up) => {
        const chunks: Buffer[] = [];
        up.on('data', (c: Buffer) => chunks.push(c));
        up.on('end', () => {
          const headers: http.OutgoingHttpHeaders = {};
          for (const h of ['content-type', 'location', 'last-modified', 'etag']) if (up.headers[h]) headers[h] = up.headers[h];
          setTimeout(() => reply(up.statusCode ?? 502, headers, Buffer.concat(chunks)), Math.max(0, due - performance.now()));
        });
      })
      .on('error', () => reply(502, { 'Content-Type': 'text/plain' }, 'upstream failed'));
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
    paths,
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
    const child = spawn(process.execPath, [...cliNodeFlags(), path.join(here, 'crawl-child.js'), dir, JSON.stringify(settings)], { stdio: ['ignore', 'pipe', 'pipe'], env: cliNodeEnv() });
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
  /** Coefficient of variation (stdev / mean) of the site's URLs per queue: 0 is perfectly even. */
  queueCv: number;
  queueSizes: number[];
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
  // The spread is judged on every URL of the site: the crawled part alone is as even as the
  // crawler's round-robin claims make it, whatever the assignment.
  const perQueue = new Map<string, number>();
  for (const p of site.paths) {
    const key = queueKeyFor(origin + p, policy);
    perQueue.set(key, (perQueue.get(key) ?? 0) + 1);
  }
  const sizes = [...perQueue.values()];
  const n = policy.startsWith('elfhash:') ? Number(policy.slice(8)) : sizes.length;
  while (sizes.length < n) sizes.push(0);
  const mean = site.paths.length / n;
  const queueCv = Math.sqrt(sizes.reduce((a, x) => a + (x - mean) ** 2, 0) / n) / mean;
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
    queueCv,
    queueSizes: sizes.sort((a, b) => b - a),
  };
}

interface Case {
  name: string;
  site: Site;
  minDelayMs: number;
}

export async function runQueuePolicyBench(opts: { limitUris?: number; only?: string } = {}): Promise<Record<string, number>> {
  const limitUris = opts.limitUris ?? 600;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-queue-bench-'));
  const out: Record<string, number> = {};
  const failures: string[] = [];
  const sites: Site[] = [];
  let nginx: Nginx | undefined;
  try {
    const cases: Case[] = [];
    for (const shape of SHAPES) {
      if (opts.only && opts.only !== shape.name) continue;
      const { answer, paths } = shapeSite(shape);
      const site = await startSlowSite(answer, paths);
      sites.push(site);
      cases.push({ name: shape.name, site, minDelayMs: 0 });
      if (shape.name === '.html') cases.push({ name: shape.name, site, minDelayMs: 20 });
    }
    if (opts.only && opts.only !== 'Python docs') {
      // one shape asked for
    } else if (nginxAvailable() && fs.existsSync(DOCS)) {
      nginx = await startNginx(fs.realpathSync(DOCS));
      const site = await startSlowSite(() => 'pass', docsPaths(fs.realpathSync(DOCS)), nginx);
      sites.push(site);
      cases.push({ name: 'Python docs', site, minDelayMs: 0 });
    } else {
      console.log('queue policy: the Python docs case is skipped: needs Debian packages nginx and python3-doc');
    }
    console.log(`\nqueue policy: host vs elfhash:${QUEUES} (the seed paper), local sites answering every request after ${RESPONSE_MS} ms`);
    console.log(`  generated sites: ${1 + INDEX_PAGES + INDEX_PAGES * LINKS_PER_INDEX} pages; concurrency 8, 1 request per queue, delay-factor 0, limit ${limitUris} URIs per run`);
    const summary: string[] = [];
    for (const c of cases) {
      const { site, minDelayMs } = c;
      const stats: Record<string, RunStats> = {};
      for (const policy of ['host', `elfhash:${QUEUES}`]) {
        site.reset();
        const child = await crawlInChild(path.join(work, `${c.name.replace(/\W+/g, '_')}-${policy.replace(':', '-')}-${minDelayMs}`), {
          name: 'queue-bench',
          seeds: [site.origin + '/'],
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
      const e = stats[`elfhash:${QUEUES}`]!;
      const ratio = e.urisPerSec / h.urisPerSec;
      console.log(`\n  ${c.name}, min-delay ${minDelayMs} ms`);
      const row = (label: string, a: string, b: string) => console.log(`    ${label.padEnd(46)}${a.padStart(12)}${b.padStart(12)}`);
      row('', 'host', `elfhash:${QUEUES}`);
      row('URIs crawled', String(h.uris), String(e.uris));
      row('URIs/s (whole crawl, process start to finish)', h.urisPerSec.toFixed(1), e.urisPerSec.toFixed(1));
      row('requests/s at the server (first to last)', h.serverReqPerSec.toFixed(1), e.serverReqPerSec.toFixed(1));
      row('queues this site was spread over', String(h.queues), String(e.queues));
      console.log(`    the site's ${site.paths.length} URLs per queue under elfhash:${QUEUES}: ${e.queueSizes.join(' ')}  (CV ${e.queueCv.toFixed(3)})`);
      row('most requests open at once on this ONE server', String(h.maxOpen), String(e.maxOpen));
      row('TCP connections opened to it', String(h.connections), String(e.connections));
      row('min gap, end → next start, same queue (ms)', h.minEndToStartMs.toFixed(1), e.minEndToStartMs.toFixed(1));
      row('min gap between starts, same queue (ms)', h.minStartGapMs.toFixed(1), e.minStartGapMs.toFixed(1));
      console.log(`    ratio elfhash:${QUEUES} / host: ${ratio.toFixed(2)}×  (target ≥ 3×: ${ratio >= 3 ? 'met' : 'MISSED'})`);
      const check = (ok: boolean, text: string) => {
        console.log(`    check: ${text}: ${ok ? 'OK' : 'FAILED'}`);
        if (!ok) failures.push(`${c.name}, min-delay ${minDelayMs}: ${text}`);
      };
      check(e.queueCv < 0.2, `elfhash:${QUEUES} queue sizes' coefficient of variation ${e.queueCv.toFixed(3)} under 0.2`);
      check(h.maxOpen === 1, 'host kept exactly one request in flight at a time');
      // Timer granularity: the server stamps with performance.now(), the crawler with Date.now() (whole ms).
      for (const [name, st] of [['host', h], [`elfhash:${QUEUES}`, e]] as const) {
        check(st.minEndToStartMs >= minDelayMs - 1, `${name}: gap from a fetch's end to the next start on its queue never under min-delay ${minDelayMs} ms`);
        check(st.minStartGapMs >= RESPONSE_MS + minDelayMs - 1, `${name}: gap between request starts on a queue never under ${RESPONSE_MS} + ${minDelayMs} ms`);
      }
      const k = `${c.name.replace(/\W+/g, '') || 'slash'}MinDelay${minDelayMs}`;
      Object.assign(out, { [`${k}HostUrisPerSec`]: h.urisPerSec, [`${k}ElfhashUrisPerSec`]: e.urisPerSec, [`${k}Ratio`]: ratio, [`${k}QueueCv`]: e.queueCv });
      summary.push(`    ${`${c.name}, min-delay ${minDelayMs} ms`.padEnd(30)}${`${ratio.toFixed(2)}×`.padStart(10)}${e.queueCv.toFixed(3).padStart(10)}`);
    }
    console.log(`\n  summary: elfhash:${QUEUES} vs host (speed-up, CV of queue sizes)`);
    console.log(summary.join('\n'));
    console.log(`  note: elfhash:${QUEUES} is impolite by design — it opens up to ${QUEUES} requests at once on one server.`);
    out.checksFailed = failures.length;
    if (failures.length) console.log(`\n  FAILED checks:\n    ${failures.join('\n    ')}`);
    return out;
  } finally {
    for (const s of sites) await s.close();
    await nginx?.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const limit = process.argv[2] ? Number(process.argv[2]) : undefined;
  const r = await runQueuePolicyBench({ limitUris: limit, only: process.argv[3] });
  if (r.checksFailed) process.exitCode = 1;
}
