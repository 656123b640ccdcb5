/**
 * Progress against each crawl limit, with an ETA from the average rate so far (Heritrix's
 * console shows the same). The engine counts the same quantities when it checks the limits
 * (core/crawl/crawl-controller.ts, checkLimits): pages, URIs with a final outcome, bytes
 * downloaded, elapsed crawl time.
 */
import type { CrawlSnapshot } from '../../../core/api/crawl-snapshot.ts';
import type { CrawlSettings } from '../../../core/api/settings.ts';

export type LimitKey = 'limitPages' | 'limitUris' | 'limitBytes' | 'limitTimeS';

export interface LimitProgress {
  key: LimitKey;
  label: string;
  done: number;
  limit: number;
  /** 0…1 */
  share: number;
  /** ms until the limit is reached at the average rate so far; null when not moving or reached. */
  etaMs: number | null;
  reached: boolean;
}

/** The limits the monitor measures, with the short name its progress bars use (units, bounds and form labels are the settings registry's). */
export const LIMITS: { key: LimitKey; label: string }[] = [
  { key: 'limitPages', label: 'Pages' },
  { key: 'limitUris', label: 'URIs' },
  { key: 'limitBytes', label: 'Downloaded' },
  { key: 'limitTimeS', label: 'Time' },
];

/** The limits set (non-zero) in `settings`, measured against the snapshot. */
export function limitProgress(s: CrawlSnapshot, settings: Pick<CrawlSettings, LimitKey> | null): LimitProgress[] {
  if (!settings) return [];
  const out: LimitProgress[] = [];
  // ETAs at the average rate over the time the crawl ran (paused time left out).
  const elapsed = Math.max(s.elapsedMs - (s.pausedMs ?? 0), 1);
  for (const { key, label } of LIMITS) {
    const limit = settings[key];
    if (!(limit > 0)) continue;
    const done =
      key === 'limitPages'
        ? s.pages
        : key === 'limitUris'
          ? s.downloaded - (s.browserLoads ?? 0) + s.failed // the URI limit counts the frontier's URIs, not what tabs loaded beside them
          : key === 'limitBytes'
            ? s.bytes
            : Math.floor(s.elapsedMs / 1000);
    const reached = done >= limit;
    let etaMs: number | null = null;
    if (!reached) {
      if (key === 'limitTimeS') etaMs = limit * 1000 - s.elapsedMs;
      else if (done > 0) etaMs = ((limit - done) * elapsed) / done;
    }
    out.push({ key, label, done, limit, share: Math.min(1, done / limit), etaMs, reached });
  }
  return out;
}
