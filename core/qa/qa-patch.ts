/**
 * `trove qa --patch`: a continuation of the archive's own crawl that fetches exactly what QA
 * found missing — every URL replay could not answer for a page that is not good, and every page
 * scored severe — with the crawl's settings, scope, robots and politeness (startCrawl on the
 * crawl's directory with `refetch`: forced re-fetches, a resource decided by the scope as an
 * embed of its page). What it fetches is written to the crawl's WARCs and index like any capture,
 * so replay, `trove get`, the app and exports serve it from then on. Then the pages that were
 * not good are scored again (a run marked `afterPatchOf`) and their bands given before → after.
 *
 * An archive made only by imports has no crawl to continue. Its patch is a new crawl stored
 * beside it (`<name>-patch`, so the library lists it as a crawl of its own), with the default
 * robots policy and the politeness asked for (polite unless told), whose seeds are the targets
 * and which follows no links (maxHops 0; a severe page's embeds are still fetched as
 * transclusions). A later patch continues that crawl with forced re-fetches, as for a crawl.
 * Its finished WARC files are then copied into the import's `warcs/` and indexed there (the
 * import's own `importFiles`), each once (archive/qa-store.ts keeps which): the import stays one
 * archive — one capture index and one set of WARC files — so its replay, `trove get`, the app,
 * its WACZ export and the re-scoring serve the patched captures with no knowledge of the patch,
 * and it keeps them if the patch crawl is deleted from the library.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { QaPatchOptions, QaPatchProgress, QaPatchResult, QaPageResult } from '../api/qa-types.ts';
import { TroveError } from '../errors.ts';
import { addJoinedPatchWarcs, importPatchCrawl, joinedPatchWarcs, listQaPages, listQaRuns, setImportPatchCrawl } from '../archive/qa-store.ts';
import { importFiles } from '../archive/import-warc.ts';
import { WARCS_FOLDER } from '../archive/archive-dir.ts';
import { POLITENESS_PRESETS, type CrawlSettings } from '../api/settings.ts';
import type { StartCrawlOptions } from '../crawl/start-crawl.ts';
import { crawlDatabasePath } from '../storage/open-database.ts';
import { openArchive } from '../archive/archive-dir.ts';
import { startCrawl } from '../crawl/start-crawl.ts';
import { runQa } from './qa-run.ts';

export interface QaPatchEvents {
  onProgress?(p: QaPatchProgress): void;
  signal?: AbortSignal;
}

/** What to fetch for the pages that are not good: their missing URLs (via the page), and severe pages themselves. */
export function patchTargets(pages: readonly QaPageResult[]): { url: string; via: string | null }[] {
  const out = new Map<string, string | null>();
  for (const p of pages) {
    if (p.band === 'good') continue;
    if (p.band === 'severe') out.set(p.url, null);
    for (const m of p.missingUrls) if (!out.has(m)) out.set(m, p.url);
  }
  return [...out].map(([url, via]) => ({ url, via }));
}

export async function patchFromQa(archiveDir: string, options: QaPatchOptions = {}, events: QaPatchEvents = {}): Promise<QaPatchResult> {
  const dir = path.resolve(archiveDir);
  const runs = listQaRuns(dir);
  if (runs.length === 0) throw new TroveError('QA_NO_RESULTS', `no QA results in ${dir}: run trove qa first`, { dir });
  const only = options.only ? new Set(options.only.map((p) => p.url)) : null;
  const before = listQaPages(dir).filter((p) => p.band !== 'good' && (!only || only.has(p.url)));
  const targets = patchTargets(before);
  const outOfScope: string[] = [];
  const crawlDir = isCrawl(dir) ? null : importPatchDir(dir);
  if (targets.length > 0) {
    events.onProgress?.({ phase: 'crawl', done: 0, total: targets.length, url: null });
    const refetch = { urls: targets, onRefused: (url: string) => outOfScope.push(url) };
    await runPatchCrawl(crawlDir ? importPatchCrawlStart(dir, crawlDir, refetch, options) : { dir, refetch }, targets.length, events);
    if (crawlDir) await joinPatchCrawl(dir, crawlDir);
    events.onProgress?.({ phase: 'crawl', done: targets.length, total: targets.length, url: null });
  }

  const beforeRun = runs[0]!;
  const after = await runQa(
    dir,
    {
      only: before.map((p) => ({ url: p.url, ts: p.ts })),
      afterPatchOf: beforeRun.id,
      ...(options.tabs !== undefined ? { tabs: options.tabs } : {}),
      ...(options.chromiumPath ? { chromiumPath: options.chromiumPath } : {}),
    },
    { onProgress: (p) => events.onProgress?.({ phase: 'rescore', done: p.done, total: p.total, url: p.url }), ...(events.signal ? { signal: events.signal } : {}) },
  );
  const now = new Map(listQaPages(dir).map((p) => [p.url, p]));
  return {
    requested: targets.map((t) => t.url),
    outOfScope,
    before: beforeRun,
    after,
    pages: before.map((p) => ({ url: p.url, ts: now.get(p.url)?.ts ?? p.ts, before: p.band, after: now.get(p.url)?.band ?? p.band })),
    ...(crawlDir && targets.length > 0 ? { crawlDir } : {}),
  };
}

/** Run the patch crawl to its end, its progress counted against the targets; the signal stops it. */
async function runPatchCrawl(start: StartCrawlOptions, total: number, events: QaPatchEvents): Promise<void> {
  const crawl = await startCrawl(start);
  const counted = (s: { downloaded: number; failed: number }) => s.downloaded + s.failed;
  const first = counted(crawl.snapshot());
  crawl.on((e) => {
    if (e.type === 'snapshot') events.onProgress?.({ phase: 'crawl', done: Math.min(total, Math.max(0, counted(e.snapshot) - first)), total, url: null });
  });
  const stop = () => crawl.stop();
  events.signal?.addEventListener('abort', stop, { once: true });
  try {
    await crawl.finished();
  } finally {
    events.signal?.removeEventListener('abort', stop);
  }
}

/** The patch crawl of an archive of imports: the one made for it before, else a new free name beside it. */
function importPatchDir(dir: string): string {
  const known = importPatchCrawl(dir);
  if (known && fs.existsSync(crawlDatabasePath(path.join(path.dirname(dir), known)))) return path.join(path.dirname(dir), known);
  for (let n = 1; ; n++) {
    const candidate = `${dir}-patch${n === 1 ? '' : `-${n}`}`;
    if (!fs.existsSync(candidate)) return candidate;
  }
}

/**
 * How the patch crawl of an import starts: continued with forced re-fetches when it exists; else
 * new, its seeds the targets (pages and resources alike), following no links.
 */
function importPatchCrawlStart(dir: string, crawlDir: string, refetch: NonNullable<StartCrawlOptions['refetch']>, options: QaPatchOptions): StartCrawlOptions {
  if (fs.existsSync(crawlDatabasePath(crawlDir))) return { dir: crawlDir, refetch };
  setImportPatchCrawl(dir, path.basename(crawlDir));
  const politeness = options.politeness ?? 'polite';
  const settings: Partial<CrawlSettings> = {
    name: `${path.basename(dir)} patch`,
    seeds: refetch.urls.map((t) => t.url),
    maxHops: 0,
    politeness,
    ...POLITENESS_PRESETS[politeness],
  };
  return { dir: crawlDir, settings };
}

/** Copy the patch crawl's finished WARC files not joined yet into the import, and index them there. */
async function joinPatchCrawl(dir: string, crawlDir: string): Promise<void> {
  const name = path.basename(crawlDir);
  const joined = joinedPatchWarcs(dir, name);
  const warcs = path.join(crawlDir, WARCS_FOLDER);
  const fresh = (fs.existsSync(warcs) ? fs.readdirSync(warcs) : []).filter((f) => /\.warc(\.gz)?$/i.test(f) && !joined.has(f)).sort();
  if (fresh.length === 0) return;
  await importFiles(dir, fresh.map((f) => path.join(warcs, f)), { copy: true });
  addJoinedPatchWarcs(dir, name, fresh);
}

/** A crawl directory: its database holds crawl settings (an import-only archive has none). */
function isCrawl(dir: string): boolean {
  if (!fs.existsSync(crawlDatabasePath(dir))) return false;
  const archive = openArchive(dir, { create: false });
  try {
    return archive.meta('settings') !== undefined;
  } finally {
    archive.close();
  }
}
