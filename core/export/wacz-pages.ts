/**
 * `pages/pages.jsonl` of a WACZ (WACZ 1.1.1 "Pages"): a header line (`hasText` when the lines carry
 * text, as py-wacz marks it), then one JSON line per page (an HTML 200
 * capture, as the capture index marks them), with `id`, `url`, `ts` (ISO 8601), `title` when the
 * page has one, and `text` (the indexed visible text) when asked for. Rows are read in keyset
 * pages, so a crawl with millions of pages streams.
 *
 * Also picks the package's main page: the first seed that was captured as a page, else the
 * earliest page.
 */
import { createHash } from 'node:crypto';
import type { Archive } from '../archive/archive-dir.ts';
import type { PageRow } from '../archive/capture-scans.ts';
import { timestampFromWarcDate } from '../archive/capture-timestamp.ts';
import { surtKey } from '../scope/surt.ts';
import { isoFromTimestamp14 } from '../formats/timestamp.ts';

export const PAGES_HEADER = { format: 'json-pages-1.0', id: 'pages', title: 'All Pages' };

const PAGE = 1000;

export interface PageLine {
  id: string;
  url: string;
  ts: string;
  title?: string;
  text?: string;
}

export function countPages(archive: Archive): number {
  return archive.index.countPages();
}

/** The ISO date of a capture: its WARC-Date when that is a clean ISO date, else from the 14-digit ts. */
export function pageDate(date: string | null, ts: string): string {
  if (date && timestampFromWarcDate(date) !== null) return date.trim();
  return isoFromTimestamp14(ts);
}

/** A stable page id: the same capture gets the same id in every export. */
function pageId(r: PageRow): string {
  return createHash('sha256').update(r.recordId ?? `${r.targetUri} ${r.ts}`).digest('hex').slice(0, 24);
}

/** The JSON lines of pages.jsonl (header first), each with its trailing newline. */
export function* pageLines(archive: Archive, opts: { text?: boolean; onPage?: () => void } = {}): Generator<string> {
  yield JSON.stringify(opts.text ? { ...PAGES_HEADER, hasText: true } : PAGES_HEADER) + '\n';
  let after = 0;
  for (;;) {
    const rows = archive.index.pagesAfter(after, PAGE);
    if (rows.length === 0) return;
    after = rows.at(-1)!.id;
    for (const r of rows) {
      if (!r.targetUri || !r.ts) continue;
      const line: PageLine = { id: pageId(r), url: r.targetUri, ts: pageDate(r.date, r.ts) };
      if (r.title) line.title = r.title;
      if (opts.text) {
        const t = archive.index.pageText(r.id);
        if (t) line.text = t;
      }
      opts.onPage?.();
      yield JSON.stringify(line) + '\n';
    }
  }
}

/** The main page: the first seed captured as a page, else the earliest page; null when there are none. */
export function mainPage(archive: Archive, seeds: readonly string[]): { url: string; date: string } | null {
  for (const seed of seeds) {
    const r = archive.index.firstPage(surtKey(seed));
    if (r?.targetUri && r.ts) return { url: r.targetUri, date: pageDate(r.date, r.ts) };
  }
  const first = archive.index.firstPage();
  return first?.targetUri && first.ts ? { url: first.targetUri, date: pageDate(first.date, first.ts) } : null;
}
