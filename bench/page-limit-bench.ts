/**
 * Page-limit benchmark: what holding pages back costs the frontier. Near the end of a crawl
 * with --limit-pages, every claim asks for a URI that cannot be a page (an embed, a redirect
 * from one, a prerequisite) while the queues hold mostly pages. Measured on one file, in one run:
 *
 *   claim+complete (pages held back)   of the embeds among N pending pages in one queue
 *   vs. claim+complete (normal)        of the next URI, the crawl's usual claim
 *   claim (nothing left but pages)     the crawl loop's poll once the embeds are done
 *   nextReadyAt (pages held back)      the crawl loop's "anything left?" question
 *
 * Without the partial index uris_pending_non_page each held-back claim read every pending page
 * of the queue (about 300 ms at 200,000 on 2 cores).
 *
 * Then, where nginx and python3-doc are installed, a crawl of Debian's Python docs with
 * --limit-pages 100 --per-host 8 --concurrency 8: pages captured against the limit, and every
 * captured page replayed through core replay() with each stylesheet (@imports followed),
 * script and image it needs looked up (test/helpers/replay-embeds.ts).
 *
 * Run: node bench/page-limit-bench.ts [n]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSqliteFrontier } from '../core/frontier/sqlite-frontier.ts';
import { closeDatabase, openDatabase } from '../core/storage/open-database.ts';
import { fingerprint } from '../core/scope/fingerprint.ts';
import type { Candidate } from '../core/frontier/frontier.ts';
import { startCrawl } from '../core/crawl/start-crawl.ts';
import { openArchive } from '../core/archive/archive-dir.ts';
import { missingEmbeds } from '../test/helpers/replay-embeds.ts';
import { nginxAvailable, startNginx } from './bench-nginx.ts';

const DOCS = '/usr/share/doc/python3-doc/html';
const LIMIT = 100;

const n = Number(process.argv[2] ?? 200_000);
const EMBEDS = 500;

function cand(url: string, hopsPath: string): Candidate {
  return { url, canonical: url, fingerprint: fingerprint(url), queueKey: 'example.org', hopsPath, via: null };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-page-limit-bench-'));
try {
  const db = openDatabase(path.join(dir, 'crawl.sqlite'));
  const f = createSqliteFrontier(db, { defaultMaxInFlight: 8 });
  for (let i = 0; i < n; i += 10_000) {
    f.schedule(Array.from({ length: Math.min(10_000, n - i) }, (_, j) => cand(`http://example.org/p/${i + j}.html`, 'LL')));
  }
  f.schedule(Array.from({ length: 2 * EMBEDS }, (_, j) => cand(`http://example.org/img/${j}.png`, 'LLE')));
  const perOp = (count: number, fn: () => void): number => {
    const t = performance.now();
    for (let i = 0; i < count; i++) fn();
    return (performance.now() - t) / count;
  };
  const done = { status: 200, queueReadyAt: 0 };
  const normal = perOp(EMBEDS, () => f.complete(f.claim(0)!, done));
  let embeds = 0;
  const held = perOp(EMBEDS, () => {
    const u = f.claim(0, { pages: false });
    if (u) {
      embeds++;
      f.complete(u, done);
    }
  });
  // Drain the rest of the embeds, then time the polls that find nothing.
  for (let u = f.claim(0, { pages: false }); u; u = f.claim(0, { pages: false })) f.complete(u, done);
  const none = perOp(200, () => void f.claim(0, { pages: false }));
  const next = perOp(200, () => void f.nextReadyAt({ pages: false }));
  closeDatabase(db);
  console.log(`page-limit bench: ${n.toLocaleString('en')} pending pages in one queue, ${2 * EMBEDS} embeds`);
  console.log(`  claim+complete, normal            ${normal.toFixed(3)} ms (reference)`);
  console.log(`  claim+complete, pages held back   ${held.toFixed(3)} ms  ${(held / normal).toFixed(2)}× normal  (${embeds} embeds claimed)`);
  console.log(`  claim, nothing but pages left     ${none.toFixed(3)} ms  ${(none / normal).toFixed(2)}× normal`);
  console.log(`  nextReadyAt, pages held back      ${next.toFixed(3)} ms  ${(next / normal).toFixed(2)}× normal`);
  if (embeds !== EMBEDS) process.exitCode = 1;
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}

if (!nginxAvailable() || !fs.existsSync(DOCS)) {
  console.log('page-limit crawl skipped: needs Debian packages nginx and python3-doc (apt-get install nginx python3-doc)');
} else {
  const nginx = await startNginx(fs.realpathSync(DOCS));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-page-limit-crawl-'));
  try {
    const settings = { seeds: [nginx.origin + '/'], limitPages: LIMIT, perHost: 8, concurrency: 8, delayFactor: 0, minDelayMs: 0, maxDelayMs: 0, minFreeDiskBytes: 0, name: 'bench' };
    const crawl = await startCrawl({ dir: work, settings });
    let fetchedAtLimit = -1;
    crawl.on((e) => {
      if (e.type === 'log' && /^page limit reached/.test(e.message)) fetchedAtLimit = crawl.snapshot().downloaded;
    });
    const final = await crawl.finished();
    const log = fs.readFileSync(path.join(work, 'logs', 'crawl.log'), 'utf8').trim().split('\n').map((l) => l.split(/\s+/));
    // crawl.log: time status size url hops via mime …; a page is HTML 200 reached as a page.
    const pages = log.filter((f) => f[1] === '200' && /^text\/html/.test(f[6] ?? '') && !/[EXIPS]R*$/.test(f[4] === '-' ? '' : (f[4] ?? ''))).map((f) => f[3]!);
    const archive = openArchive(work, { create: false });
    const check = await missingEmbeds(archive, new Set(pages), (u) => u.startsWith(nginx.origin));
    archive.close();
    console.log(`page-limit crawl: Python docs, --limit-pages ${LIMIT} --per-host 8 --concurrency 8 (finished: ${final.finishReason})`);
    console.log(`  pages captured          ${final.pages} (${(final.pages / LIMIT).toFixed(2)}× the limit; ${new Set(pages).size} distinct in crawl.log)`);
    console.log(`  URIs fetched            ${final.downloaded + final.failed} (${fetchedAtLimit} when the limit was reached; the rest are the pages' embeds)`);
    console.log(`  replayed resources      ${check.checked.size}, in-scope embeds missing: ${check.missing.length}`);
    for (const m of check.missing.slice(0, 10)) console.log(`    missing ${m}`);
    if (final.pages !== LIMIT || check.missing.length > 0) process.exitCode = 1;
  } finally {
    await nginx.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}
