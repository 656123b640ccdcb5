/**
 * The crawl commands (`crawl.*`: check, start, pause, resume, stop, the monitor's log tail and
 * queue pages, exclusions) and the settings checks the crawl form makes (`scope.test`,
 * `robots.test`). Crawls run in worker threads (crawl-runner.ts); exclusions are in
 * exclude-handlers.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { CrawlSettings } from '../../api/settings.ts';
import { TroveError } from '../../errors.ts';
import { crawlDatabasePath } from '../../storage/open-database.ts';
import { crawlPaths } from '../../crawl/crawl-dir.ts';
import { checkCrawl, robotsTest, scopeTest } from '../crawl-checks.ts';
import { CUSTOM_ROBOTS_FILE } from '../library.ts';
import { readLogTail } from '../crawl-log-tail.ts';
import { addExclude, excludePreview } from './exclude-handlers.ts';
import type { AppContext, RoomHandlers } from './app-context.ts';

export function crawlHandlers(ctx: AppContext): RoomHandlers<'crawl'> & RoomHandlers<'scope'> & RoomHandlers<'robots'> {
  const { library, runner, emit } = ctx;
  return {
    'crawl.check': (req) => {
      const { valid, seeds, urls, issues, scopeRules } = checkCrawl(req);
      return { valid, seeds, urls, issues, scopeRules };
    },

    'crawl.start': async ({ name, settings, customRobots }) => {
      const check = checkCrawl({ seedsText: (settings.seeds ?? []).join('\n'), settings, customRobots });
      if (!check.valid) {
        const first = check.issues[0]!;
        throw new TroveError('SETTINGS_INVALID', first.message, { field: first.field, issues: check.issues });
      }
      const displayName = name.trim() || new URL(check.urls[0]!).host;
      const id = library.allocateId(displayName);
      const dir = library.pathOf(id);
      const given: Partial<CrawlSettings> = { ...settings, seeds: check.urls, name: displayName };
      fs.mkdirSync(dir, { recursive: true });
      if (check.settings.robots === 'custom') {
        const file = path.join(dir, CUSTOM_ROBOTS_FILE);
        fs.writeFileSync(file, customRobots ?? '');
        given.robotsFile = file;
      }
      try {
        await ctx.startWorker(id, dir, given);
      } catch (err) {
        if (!fs.existsSync(crawlDatabasePath(dir))) fs.rmSync(dir, { recursive: true, force: true });
        throw err;
      }
      return { id };
    },

    'crawl.pause': ({ id }) => {
      runner.pause(id);
      return null;
    },

    'crawl.resume': async ({ id, settings }) => {
      if (ctx.isRecordingInto(id)) throw new TroveError('RECORDING', `stop recording into ${id} before resuming its crawl`, { id });
      if (runner.isRunning(id)) {
        if (!settings || Object.keys(settings).length === 0) {
          runner.resume(id);
          return { id };
        }
        // New settings (limits edited at resume) take a fresh run (a live exclusion does not: crawl.addExclude).
        emit('crawl.log', { id, level: 'info', code: 'CRAWL_RESTARTING', message: 'restarting with the edited settings' });
        runner.stop(id, false);
        await runner.exited(id);
      }
      const stored = library.readStored(id);
      if (stored.kind !== 'crawl') throw new TroveError('NOT_A_CRAWL', `${id} is an imported archive, not a crawl`, { id });
      await ctx.startWorker(id, library.pathOf(id), settings ?? {});
      return { id };
    },

    'crawl.stop': ({ id, now }) => {
      runner.stop(id, now ?? false);
      return null;
    },

    'crawl.snapshot': ({ id }) => runner.snapshot(id) ?? (library.exists(id) ? library.readSnapshot(id) : null),

    'crawl.addExclude': ({ id, pattern }) => addExclude(ctx, id, pattern),

    // ── monitor: log tail, queued URIs per host, exclusion preview ──
    'crawl.logTail': (req) => {
      const p = crawlPaths(library.requireEntry(req.id));
      return readLogTail(req.log === 'scope' ? p.scopeLog : p.crawlLog, req);
    },
    'crawl.queued': ({ id, queue, limit, after }) => ctx.archive(id).frontier.queuedPage(queue, limit, after ?? null),
    'crawl.excludePreview': ({ id, pattern, samples }) => excludePreview(ctx, id, pattern, samples),

    'scope.test': (req) => scopeTest(req),
    'robots.test': (req) => robotsTest(req),
  };
}
