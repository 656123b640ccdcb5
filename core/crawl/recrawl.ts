/**
 * `trove recrawl <crawl>` (and the app's "Crawl again", and each run of a schedule): a new crawl
 * with the earlier crawl's settings and seeds, in a new crawl directory linked to it
 * (RECRAWL_OF_META in the new crawl's database: the one home of the chain; the earlier crawl's
 * own link leads on). The earlier crawls of the chain become its `dedupFrom` sources, so URLs
 * they hold are asked for conditionally (If-None-Match / If-Modified-Since), a 304 is written as
 * a server-not-modified revisit and an unchanged 200 as an identical-payload-digest revisit
 * (fetch-http.ts, dedup-digest.ts); replay follows the link to their payloads
 * (archive-revisit.ts, resolveRevisitInChain).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { CrawlSettings } from '../api/settings.ts';
import { openArchive } from '../archive/archive-dir.ts';
import { timestamp14 } from '../formats/timestamp.ts';
import { TroveError } from '../errors.ts';
import { crawlPaths } from './crawl-dir.ts';
import { startCrawl, type CrawlController, type StartCrawlOptions } from './start-crawl.ts';

export interface RecrawlPlan {
  /** The earlier crawl, absolute. */
  from: string;
  /** The new crawl directory, absolute. */
  dir: string;
  /** The earlier crawl and the crawls it repeats, nearest first: the new crawl's dedupFrom. */
  chain: string[];
  settings: CrawlSettings;
}

/** A recrawl's folder name after its series' base name: the time it started, `-2`, `-3`… when that second was taken. */
const RUN_SUFFIX = /-\d{14}(?:-\d+)?$/;

/**
 * Where a recrawl goes when no directory is named: beside the earlier one, named for the time.
 * Two runs started in one second (a scheduled run due just after one started by hand) get
 * `-2`, `-3`… rather than the second one failing on the first one's folder.
 */
export function defaultRecrawlDir(from: string, now: Date): string {
  const base = path.basename(path.resolve(from)).replace(RUN_SUFFIX, '');
  const named = path.join(path.dirname(path.resolve(from)), `${base}-${timestamp14(now)}`);
  let dir = named;
  for (let n = 2; fs.existsSync(dir); n++) dir = `${named}-${n}`;
  return dir;
}

/** The new crawl's settings and chain, read from the earlier crawl (nothing is written). */
export function planRecrawl(from: string, out: string | undefined, now = new Date()): RecrawlPlan {
  const src = path.resolve(from);
  if (!fs.existsSync(crawlPaths(src).db)) throw new TroveError('CRAWL_NOT_FOUND', `no crawl in ${src} (crawl.sqlite is missing)`, { dir: src });
  const archive = openArchive(src, { create: false });
  let stored: CrawlSettings | undefined;
  let chain: string[];
  try {
    stored = archive.meta<CrawlSettings>('settings');
    chain = [src, ...archive.earlier().map((e) => e.dir)];
  } finally {
    archive.close();
  }
  if (!stored || stored.seeds.length === 0) throw new TroveError('CRAWL_NOT_FOUND', `${src} holds no crawl settings to repeat (an archive made by imports only?)`, { dir: src });
  const dir = path.resolve(out ?? defaultRecrawlDir(src, now));
  if (fs.existsSync(crawlPaths(dir).db)) throw new TroveError('CRAWL_OUT_INVALID', `--out ${dir}: already holds a crawl (a recrawl starts a new one)`, { out: dir });
  // The chain's crawls, then any other source the earlier crawl deduplicated against.
  const dedupFrom = [...new Set([...chain, ...stored.dedupFrom.filter((p) => fs.existsSync(p))])];
  const settings: CrawlSettings = { ...stored, dedupFrom, dedup: stored.dedup === 'off' ? 'digest' : stored.dedup };
  return { from: src, dir, chain, settings };
}

/** Start the recrawl a plan describes. */
export function startRecrawl(plan: RecrawlPlan, opts: Omit<StartCrawlOptions, 'dir' | 'settings' | 'recrawlOf'> = {}): Promise<CrawlController> {
  return startCrawl({ ...opts, dir: plan.dir, settings: plan.settings, recrawlOf: plan.from });
}

/**
 * The series a crawl starts: the crawl itself, then the recrawls beside it (`<name>-<14 digits>`,
 * the default names) whose chain leads back to it, oldest first. The chain is read from each
 * directory's link, so a recrawl given another name elsewhere is found by the app's library, not here.
 */
export function seriesBeside(dir: string): string[] {
  const first = path.resolve(dir);
  const base = path.basename(first).replace(RUN_SUFFIX, '');
  const parent = path.dirname(first);
  const named = fs
    .readdirSync(parent)
    .filter((n) => n.startsWith(base + '-') && /^\d{14}(?:-\d+)?$/.test(n.slice(base.length + 1)))
    .sort()
    .map((n) => path.join(parent, n));
  const out = [first];
  for (const d of named) {
    if (d === first || !fs.existsSync(crawlPaths(d).db)) continue;
    const a = openArchive(d, { create: false });
    try {
      if (a.earlier().some((e) => e.dir === first)) out.push(d);
    } finally {
      a.close();
    }
  }
  return out;
}
