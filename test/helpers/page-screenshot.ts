/**
 * Whether a page of an archive has its screenshot, asked the way the Pages view asks (the page's
 * row from records.pages, then records.screenshot by its id): the Record tests wait on it.
 */
import type { AppHandlers } from '../../core/app/app-service.ts';

export async function hasScreenshot(handlers: AppHandlers, archiveId: string, pathname: string): Promise<boolean> {
  const row = (await handlers['records.pages']({ archiveId, limit: 10 })).rows.find((r) => new URL(r.url).pathname === pathname);
  return row ? (await handlers['records.screenshot']({ archiveId, pageId: row.id })) !== null : false;
}
