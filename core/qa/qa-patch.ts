/**
 * `trove qa --patch`: a continuation of the archive's own crawl that fetches exactly what QA
 * found missing — every URL replay could not answer for a page that is not good, and every page
 * scored severe — with the crawl's settings, scope, robots and politeness (startCrawl on the
 * crawl's directory with `refetch`: forced re-fetches, a resource decided by the scope as an
 * embed of its page). What it fetches is written to the crawl's WARCs and index like any capture,
 * so replay, `trove get`, the app and exports serve it from then on. Then the pages that were
 * not good are scored again (a run marked `afterPatchOf`) and their bands given before → after.
 *
 * An archive made only by imports has no crawl to continue: not done yet (QA_PATCH_NOT_A_CRAWL).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { QaPatchOptions, QaPatchProgress, QaPatchResult, QaPageResult } from '../api/qa-types.ts';
import { TroveError } from '../errors.ts';
import { listQaPages, listQaRuns } from '../archive/qa-store.ts';
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
  if (!isCrawl(dir)) throw new TroveError('QA_PATCH_NOT_A_CRAWL', `${dir} holds no crawl to continue (an archive made by imports): patching it is not built yet`, { dir });

  const targets = patchTargets(before);
  const outOfScope: string[] = [];
  if (targets.length > 0) {
    events.onProgress?.({ phase: 'crawl', done: 0, total: targets.length, url: null });
    const crawl = await startCrawl({ dir, refetch: { urls: targets, onRefused: (url) => outOfScope.push(url) } });
    const counted = (s: { downloaded: number; failed: number }) => s.downloaded + s.failed;
    const start = counted(crawl.snapshot());
    crawl.on((e) => {
      if (e.type === 'snapshot') events.onProgress?.({ phase: 'crawl', done: Math.min(targets.length, Math.max(0, counted(e.snapshot) - start)), total: targets.length, url: null });
    });
    const stop = () => crawl.stop();
    events.signal?.addEventListener('abort', stop, { once: true });
    try {
      await crawl.finished();
    } finally {
      events.signal?.removeEventListener('abort', stop);
    }
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
  };
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
