/**
 * Page screenshots asked of core (records.screenshot) once per page and kept for a while: the
 * Pages list is reloaded every second while a crawl runs, and its thumbnails must not be asked
 * again each time. Bounded, oldest first out: a screenshot is a few hundred KB as a data: URL.
 */
import type { PageScreenshot } from '../../../core/api/app-types.ts';
import { unwrap, type TroveApi } from './bridge.ts';

export const SCREENSHOT_CACHE_SIZE = 64;

export class ScreenshotCache {
  private readonly shots = new Map<string, Promise<PageScreenshot | null>>();
  private readonly api: TroveApi;
  private readonly size: number;

  constructor(api: TroveApi, size = SCREENSHOT_CACHE_SIZE) {
    this.api = api;
    this.size = size;
  }

  /** The page's screenshot, or null when it has none (or it could not be read: a thumbnail is not worth an error). */
  get(archiveId: string, pageId: number): Promise<PageScreenshot | null> {
    const key = `${archiveId}\n${pageId}`;
    const had = this.shots.get(key);
    if (had) {
      this.shots.delete(key);
      this.shots.set(key, had);
      return had;
    }
    const p = unwrap(this.api.records.screenshot({ archiveId, pageId })).catch(() => null);
    this.shots.set(key, p);
    while (this.shots.size > this.size) this.shots.delete(this.shots.keys().next().value!);
    return p;
  }
}
