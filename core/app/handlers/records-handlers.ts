/**
 * The commands that read an archive of the library (`records.*`: the records table, a record's
 * detail, a URL's captures, full-text search, the Pages view and its screenshots) and
 * `replay.info`, each through the entry's open archive (AppContext.archive).
 */
import { latestScreenshot, pageScreenshot } from '../../archive/page-screenshot.ts';
import { listPages, queryRecords, searchText, sortedPages, timeline } from '../../archive/record-query.ts';
import { recordDetail } from '../../archive/record-query-detail.ts';
import { replayInfo } from '../replay-bridge.ts';
import type { AppContext, RoomHandlers } from './app-context.ts';

export function recordsHandlers(ctx: AppContext): RoomHandlers<'records'> & RoomHandlers<'replay'> {
  const archive = (id: string) => ctx.archive(id);
  return {
    'records.query': ({ archiveId, filter, limit, after }) => queryRecords(archive(archiveId), filter, { limit, after }),
    'records.detail': ({ archiveId, id }) => recordDetail(archive(archiveId), id),
    'records.timeline': ({ archiveId, url }) => timeline(archive(archiveId), url),
    'records.search': ({ archiveId, q, limit }) => searchText(archive(archiveId), q, limit ?? 50),
    'records.pages': ({ archiveId, limit, after }) => listPages(archive(archiveId), limit, after),

    // ── replay features (issue #16: Pages view) ──
    'records.sortedPages': ({ archiveId, ...opts }) => sortedPages(archive(archiveId), opts),
    'records.screenshot': ({ archiveId, pageId }) => (pageId === undefined ? latestScreenshot(archive(archiveId)) : pageScreenshot(archive(archiveId), pageId)),

    'replay.info': ({ archiveId, url, at }) => replayInfo(archive(archiveId), url, at),
  };
}
