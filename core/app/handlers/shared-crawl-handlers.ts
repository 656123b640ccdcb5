/**
 * The app's commands for a crawl shared by several workers over PostgreSQL (`shared.*`, issue
 * 39): open it by its postgres:// URL to watch it (totals, every worker, hosts) and pause, resume
 * or stop it, as `trove status|pause|resume|stop <crawl-url>` do. Each call is one short look at
 * the crawl's database (core/frontier/postgres-crawl-view.ts); the app holds nothing open between
 * them, so a crawl the app watches is not kept alive or slowed by it.
 */
import { readSharedCrawlView, setSharedCrawlControlAsync } from '../../frontier/postgres-crawl-view.ts';
import type { AppContext, RoomHandlers } from './app-context.ts';

export function sharedCrawlHandlers(_ctx: AppContext): RoomHandlers<'shared'> {
  return {
    'shared.status': ({ url }) => readSharedCrawlView(url),
    'shared.control': async ({ url, control }) => {
      await setSharedCrawlControlAsync(url, control);
      return readSharedCrawlView(url);
    },
  };
}
