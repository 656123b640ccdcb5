/**
 * `trove qa`: replay every page of an archive (or those asked for) in headless Chromium through
 * Trove's own replay, with the replay isolation policy on, score each against its reference and
 * keep the results with the archive (core/archive/qa-store.ts). The CLI, the app's QA view and
 * the patch's re-scoring all come through `runQa`.
 *
 * The reference, best first: the page's capture-time screenshot and text (browser captures);
 * with `againstLive`, the live page loaded in the same browser and viewport (qa-live.ts); else
 * none, and the band says what replay alone shows (qa-score.ts pageBand). Pages are replayed
 * `tabs` at a time, each in a fresh browser context; results are written as each page is scored.
 */
import type { QaOptions, QaPageResult, QaProgress, QaReference, QaRunInfo } from '../api/qa-types.ts';
import { TroveError } from '../errors.ts';
import { openArchive, type Archive } from '../archive/archive-dir.ts';
import { QaRunWriter, writeQaShot } from '../archive/qa-store.ts';
import { launchQaBrowser } from './qa-browser.ts';
import { selectPages, type QaPage } from './qa-pages.ts';
import { captureReference, type PageReference } from './qa-reference.ts';
import { QA_SHOT_SCALE, QaTab } from './qa-replay-tab.ts';
import { scoreView, worthRereading } from './qa-score.ts';
import { LiveReferences } from './qa-live.ts';
import { pngSize } from '../browser/viewport-shot.ts';
import type { QaPhaseTimes } from './qa-phases.ts';
import { ReplayAnswers } from './qa-replay-answers.ts';

export type { QaOptions } from '../api/qa-types.ts';

export interface QaEvents {
  onProgress?(p: QaProgress): void;
  signal?: AbortSignal;
  /** Filled with where the run's time went (the bench's phase table). */
  phases?: QaPhaseTimes;
}

export const QA_DEFAULT_TABS = 2;
export const QA_MAX_TABS = 16;
export const QA_VIEWPORT = { width: 1280, height: 800 };

export async function runQa(archiveDir: string, options: QaOptions, events: QaEvents = {}): Promise<QaRunInfo> {
  const archive = openArchive(archiveDir, { create: false });
  try {
    const pages = selectPages(archive, options);
    if (pages.length === 0) throw new TroveError('QA_NO_PAGES', `no pages to check in ${archive.dir}${filtersSaid(options)}`, { dir: archive.dir });
    const tabs = tabCount(options.tabs ?? QA_DEFAULT_TABS, pages.length);
    const browser = await launchQaBrowser(options.chromiumPath, tabs);
    const { only: _only, ...kept } = options;
    const writer = new QaRunWriter(archive.dir, kept, options.afterPatchOf ?? null);
    try {
      const live = options.againstLive ? new LiveReferences(browser, options.viewport ?? QA_VIEWPORT) : null;
      try {
        const phases = events.phases ?? null;
        const answers = new ReplayAnswers();
        await forEachPage(pages, tabs, events, () => QaTab.open(browser, options.viewport ?? QA_VIEWPORT, true, phases, answers), async (tab, page) => {
          const result = await scorePage(tab, archive, page, live, events.signal, phases);
          const t = performance.now();
          writer.add(result);
          phases?.add('store', t);
          return result;
        });
      } finally {
        await live?.close();
      }
      if (events.signal?.aborted) {
        writer.finish();
        throw new TroveError('QA_ABORTED', `QA of ${archive.dir} stopped`, { dir: archive.dir, run: writer.id });
      }
      return writer.finish();
    } finally {
      writer.close();
      await browser.close().catch(() => {});
    }
  } finally {
    archive.close();
  }
}

function filtersSaid(o: QaOptions): string {
  const f = [o.urlPrefix ? `--url-prefix ${o.urlPrefix}` : '', o.host ? `--host ${o.host}` : '', o.pages !== undefined ? `--pages ${o.pages}` : ''].filter(Boolean);
  return f.length ? ` with ${f.join(' ')}` : '';
}

/** The tabs a run opens: as asked, within 1..QA_MAX_TABS, no more than there are pages. */
function tabCount(tabs: number, pages: number): number {
  return Math.max(1, Math.min(QA_MAX_TABS, Math.floor(tabs), pages));
}

/** Run `score` over the pages in `tabs` tabs at once, reporting progress after each. */
async function forEachPage(
  pages: QaPage[],
  tabs: number,
  events: QaEvents,
  openTab: () => Promise<QaTab>,
  score: (tab: QaTab, p: QaPage) => Promise<QaPageResult>,
): Promise<void> {
  let next = 0;
  let done = 0;
  const total = pages.length;
  events.onProgress?.({ done, total, url: null });
  const worker = async (): Promise<void> => {
    const tab = await openTab();
    try {
      while (next < pages.length && !events.signal?.aborted) {
        const page = pages[next++]!;
        const r = await score(tab, page);
        done++;
        events.onProgress?.({ done, total, url: page.url, band: r.band });
      }
    } finally {
      await tab.close();
    }
  };
  await Promise.all(Array.from({ length: tabs }, worker));
}

/** Replay one page, compare it with its reference, keep its screenshots, and score it. */
export async function scorePage(tab: QaTab, archive: Archive, page: QaPage, live: LiveReferences | null, signal?: AbortSignal, phases: QaPhaseTimes | null = null): Promise<QaPageResult> {
  let t = performance.now();
  let ref: PageReference | null = await captureReference(archive, page.id);
  let reference: QaReference = ref ? 'capture' : 'replay-only';
  if (!ref && live) {
    ref = await live.load(page.url, signal);
    if (ref) reference = 'live';
  }
  // The replay is photographed at the reference's scale: a browser crawl keeps its screenshot at
  // half the viewport, a recording at full size; with none, at QA_SHOT_SCALE.
  const refSize = ref?.screenshot ? pngSize(ref.screenshot) : null;
  const shotScale = refSize ? Math.min(1, refSize.width / QA_VIEWPORT.width) : QA_SHOT_SCALE;
  if (phases) phases.add('reference', t);
  const viewOpts = { behaviors: reference === 'capture', shotScale, ...(signal ? { signal } : {}) };
  let seen = await tab.replay(archive, page, viewOpts);
  t = performance.now();
  let s = scoreView(reference, ref, seen);
  if (worthRereading(seen, s.band) && !signal?.aborted) {
    seen = await tab.replay(archive, page, { ...viewOpts, patient: true });
    t = performance.now();
    s = scoreView(reference, ref, seen);
  }
  const { screenshotScore, textScore, diff, resources, resourceScore: rScore, band } = s;
  if (phases) t = phases.add('score', t);
  writeQaShot(archive.dir, page.url, page.ts, 'replay', seen.screenshot);
  writeQaShot(archive.dir, page.url, page.ts, 'reference', ref?.screenshot ?? null);
  writeQaShot(archive.dir, page.url, page.ts, 'diff', diff);
  if (phases) {
    phases.add('store', t);
    phases.pages++;
  }
  return {
    url: page.url,
    ts: page.ts,
    reference,
    screenshotScore,
    textScore,
    resourceScore: rScore,
    resources,
    band,
    missingUrls: seen.missingUrls,
    errorUrls: seen.errorUrls,
    scriptErrors: seen.scriptErrors,
    verdict: null,
    note: null,
    ...(seen.title ? { title: seen.title } : {}),
  };
}
