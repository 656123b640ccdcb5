/**
 * The pages a QA run scores: the archive's pages (records marked as pages: HTML 200 responses,
 * browser-captured or fetched), the latest capture of each URL (QA asks "does the archive replay
 * this page now", and a patch's new capture of a page replaces the old one), filtered by URL
 * prefix, host or an explicit list, in the archive's page order, at most `pages` of them.
 */
import type { Archive } from '../archive/archive-dir.ts';
import type { QaOptions } from '../api/qa-types.ts';

export interface QaPage {
  /** records.id of the page's record. */
  id: number;
  url: string;
  ts: string;
}

const BATCH = 1000;

export function selectPages(archive: Archive, o: QaOptions): QaPage[] {
  const host = o.host?.toLowerCase();
  const only = o.only ? new Set(o.only.map((p) => p.url)) : null;
  const latest = new Map<string, QaPage>();
  for (let offset = 0; ; offset += BATCH) {
    const rows = archive.index.pages(BATCH, offset);
    for (const r of rows) {
      const url = r.targetUri;
      if (!url || !r.ts) continue;
      if (o.urlPrefix && !url.startsWith(o.urlPrefix)) continue;
      if (only && !only.has(url)) continue;
      if (host && hostOf(url) !== host) continue;
      const seen = latest.get(url);
      if (!seen || r.ts >= seen.ts) {
        // Keep first-seen order: delete + set would move it to the end.
        if (seen) Object.assign(seen, { id: r.id, ts: r.ts });
        else latest.set(url, { id: r.id, url, ts: r.ts });
      }
    }
    if (rows.length < BATCH) break;
  }
  const pages = [...latest.values()];
  return o.pages !== undefined ? pages.slice(0, Math.max(0, o.pages)) : pages;
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
}
