/**
 * A crawl over time in the app (issue 38, `series.*`): "Crawl again" (a recrawl of the series'
 * latest crawl, core/crawl/recrawl.ts), the series of a crawl with each recrawl's change summary
 * against the one before, its schedule (core/app/recrawl-scheduler.ts) with what happened to its
 * runs, and the compare view of one page at two captures (text diff, screenshots). A series is
 * known by its first crawl's library id; its recrawls are the entries beside it that link back.
 */
import fs from 'node:fs';
import path from 'node:path';
import { diffLines } from 'diff';
import type { CompareSide, PageCompare, SeriesCrawl, SeriesDetail } from '../../api/series-types.ts';
import { TroveError } from '../../errors.ts';
import type { Archive } from '../../archive/archive-dir.ts';
import { pageScreenshot } from '../../archive/page-screenshot.ts';
import { surtKey } from '../../scope/surt.ts';
import { defaultRecrawlDir, planRecrawl, seriesBeside } from '../../crawl/recrawl.ts';
import { cronOfSchedule } from '../../crawl/recrawl-schedule.ts';
import { changeReport, changeSummary, normalizedTextAt, pagesOf, sentenceLines, textChangeSize, visibleTextAt } from '../../export/change-report.ts';
import { normalizePageUrl } from '../../export/change-noise.ts';
import { screenshotMatch } from '../../qa/qa-score.ts';
import { RecrawlScheduler, type SchedulerClock, type StartedRun } from '../recrawl-scheduler.ts';
import { ScheduleStore } from '../schedule-store.ts';
import type { AppContext, RoomHandlers } from './app-context.ts';

/** A recrawl's change summary against the crawl before it, kept in its directory once it is done. */
const CHANGES_FILE = 'changes.json';

interface StoredChanges {
  against: string;
  counts: { added: number; removed: number; changed: number; unchanged: number };
  summary: string;
}

export interface SeriesRoom {
  handlers: RoomHandlers<'series'>;
  scheduler: RecrawlScheduler;
}

export function seriesHandlers(ctx: AppContext, clock?: SchedulerClock): SeriesRoom {
  const { library } = ctx;
  const store = new ScheduleStore(library.dir);

  /** The series' first crawl: the end of the entry's chain of earlier crawls, inside the library. */
  const rootOf = (id: string): string => {
    const archive = ctx.archive(id);
    const last = archive.earlier().at(-1);
    return last && path.dirname(last.dir) === library.dir ? path.basename(last.dir) : id;
  };
  const seriesIds = (root: string) => seriesBeside(library.requireEntry(root)).map((d) => path.basename(d));

  const recrawl = async (id: string): Promise<StartedRun> => {
    const ids = seriesIds(rootOf(id));
    // A worker that has finished but not exited yet does not count (AppContext.entry says so).
    const running = ids.find((x) => ctx.entry(x).running);
    if (running) throw new TroveError('CRAWL_RUNNING', `${running} of this series is still running: crawl again once it is done`, { id: running });
    const latest = library.requireEntry(ids.at(-1)!);
    const dir = defaultRecrawlDir(latest, new Date());
    const plan = planRecrawl(latest, dir);
    await ctx.startWorker(path.basename(dir), dir, plan.settings, plan.from);
    const runId = path.basename(dir);
    const done = ctx.runner.exited(runId).then(() => (library.readSnapshot(runId)?.state === 'finished' ? ('finished' as const) : ('failed' as const)));
    return { runId, done };
  };

  const scheduler = new RecrawlScheduler({ store, start: recrawl, ...(clock ? { clock } : {}) });

  const handlers: RoomHandlers<'series'> = {
    'series.recrawl': async ({ id }) => ({ id: (await recrawl(id)).runId }),
    'series.detail': async ({ id }) => seriesDetail(ctx, rootOf(id), seriesIds, store, scheduler),
    'series.setSchedule': ({ id, spec }) => {
      const root = rootOf(id);
      library.requireEntry(root);
      return scheduler.set(root, spec === null ? null : normalizeSpec(spec));
    },
    'series.compare': ({ url, a, b }) => comparePage(ctx, url, a, b),
  };
  return { handlers, scheduler };
}

/** `daily`, `weekly` or the cron expression, checked by croner (SCHEDULE_INVALID). */
function normalizeSpec(spec: string): string {
  const s = spec.trim();
  cronOfSchedule(s);
  return /^(daily|weekly)$/i.test(s) ? s.toLowerCase() : s;
}

async function seriesDetail(ctx: AppContext, root: string, seriesIds: (root: string) => string[], store: ScheduleStore, scheduler: RecrawlScheduler): Promise<SeriesDetail> {
  const ids = seriesIds(root);
  const crawls: SeriesCrawl[] = [];
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    const e = ctx.entry(id);
    const changes = i > 0 && !e.running ? await changesOf(ctx, ids[i - 1]!, id) : null;
    crawls.push({ id, createdAt: e.createdAt, state: e.state, pages: e.downloaded, summary: changes?.summary ?? null, counts: changes?.counts ?? null });
  }
  return { id: root, crawls, schedule: scheduler.get(root), events: store.events(root) };
}

/** The change summary of a finished recrawl against the crawl before it (computed once, then read). */
async function changesOf(ctx: AppContext, before: string, id: string): Promise<StoredChanges | null> {
  const file = path.join(ctx.library.pathOf(id), CHANGES_FILE);
  try {
    const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as StoredChanges;
    if (stored.against === before) return stored;
  } catch {
    // Not computed yet.
  }
  const report = await changeReport({ archive: ctx.archive(before) }, { archive: ctx.archive(id) });
  const changes: StoredChanges = { against: before, counts: report.counts, summary: changeSummary(report.counts) };
  fs.writeFileSync(file, JSON.stringify(changes));
  return changes;
}

async function comparePage(ctx: AppContext, url: string, a: { archiveId: string; ts?: string }, b: { archiveId: string; ts?: string }): Promise<PageCompare> {
  const sa = await compareSide(ctx.archive(a.archiveId), a.archiveId, url, a.ts);
  const sb = await compareSide(ctx.archive(b.archiveId), b.archiveId, url, b.ts);
  const parts = diffLines(sa?.text ?? '', sb?.text ?? '').map((p) => ({ value: p.value, ...(p.added ? { added: true } : {}), ...(p.removed ? { removed: true } : {}) }));
  const textChange = sa && sb ? textChangeSize(await normalizedTextAt(ctx.archive(a.archiveId), sa.url, sa.ts), await normalizedTextAt(ctx.archive(b.archiveId), sb.url, sb.ts)) : 0;
  return { a: sa, b: sb, parts, textChange, screenshotDiff: screenshotDiff(sa?.screenshot ?? null, sb?.screenshot ?? null) };
}

const PNG_DATA_URL = 'data:image/png;base64,';

/** The two screenshots compared as QA compares a replay with its capture (qa/qa-score.ts); null unless both are PNG. */
export function screenshotDiff(a: string | null, b: string | null): { score: number; image: string } | null {
  if (!a?.startsWith(PNG_DATA_URL) || !b?.startsWith(PNG_DATA_URL)) return null;
  try {
    const m = screenshotMatch(Buffer.from(a.slice(PNG_DATA_URL.length), 'base64'), Buffer.from(b.slice(PNG_DATA_URL.length), 'base64'));
    return { score: m.score, image: PNG_DATA_URL + m.diff.toString('base64') };
  } catch {
    return null; // a PNG pngjs cannot read: the two screenshots are still shown side by side
  }
}

/** The page in one archive: at `ts` when given, else as the archive's pages list holds it. */
async function compareSide(archive: Archive, archiveId: string, url: string, ts: string | undefined): Promise<CompareSide | null> {
  const at = ts ?? pagesOf({ archive }).get(normalizePageUrl(url))?.ts;
  if (!at) return null;
  const text = sentenceLines(await visibleTextAt(archive, url, at));
  const page = archive.index.findCaptures(surtKey(url)).find((c) => c.ts === at && (c.recordType === 'response' || c.recordType === 'revisit'));
  const shot = page ? await pageScreenshot(archive, page.id) : null;
  return { archiveId, url, ts: at, text, screenshot: shot?.dataUrl ?? null };
}
