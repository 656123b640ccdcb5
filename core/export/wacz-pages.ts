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
import { timestampFromWarcDate } from '../archive/capture-timestamp.ts';
import { surtKey } from '../scope/surt.ts';
import { isoFromTs14 } from './export-types.ts';

export const PAGES_HEADER = { format: 'json-pages-1.0', id: 'pages', title: 'All Pages' };

const PAGE = 1000;

interface PageRow {
  id: number;
  record_id: string | null;
  target_uri: string | null;
  ts: string | null;
  date: string | null;
  title: string | null;
}

export interface PageLine {
  id: string;
  url: string;
  ts: string;
  title?: string;
  text?: string;
}

export function countPages(archive: Archive): number {
  return (archive.db.prepare('SELECT COUNT(*) AS n FROM records WHERE page = 1').get() as { n: number }).n;
}

/** The ISO date of a capture: its WARC-Date when that is a clean ISO date, else from the 14-digit ts. */
export function pageDate(date: string | null, ts: string): string {
  if (date && timestampFromWarcDate(date) !== null) return date.trim();
  return isoFromTs14(ts);
}

/** A stable page id: the same capture gets the same id in every export. */
function pageId(r: PageRow): string {
  return createHash('sha256').update(r.record_id ?? `${r.target_uri} ${r.ts}`).digest('hex').slice(0, 24);
}

/** The JSON lines of pages.jsonl (header first), each with its trailing newline. */
export function* pageLines(archive: Archive, opts: { text?: boolean; onPage?: () => void } = {}): Generator<string> {
  yield JSON.stringify(opts.text ? { ...PAGES_HEADER, hasText: true } : PAGES_HEADER) + '\n';
  const stmt = archive.db.prepare<[number, number], PageRow>(
    'SELECT id, record_id, target_uri, ts, date, title FROM records WHERE page = 1 AND id > ? ORDER BY id LIMIT ?',
  );
  const textStmt = archive.db.prepare<[number], { text: string }>('SELECT text FROM page_text WHERE rowid = ?');
  let after = 0;
  for (;;) {
    const rows = stmt.all(after, PAGE);
    if (rows.length === 0) return;
    after = rows.at(-1)!.id;
    for (const r of rows) {
      if (!r.target_uri || !r.ts) continue;
      const line: PageLine = { id: pageId(r), url: r.target_uri, ts: pageDate(r.date, r.ts) };
      if (r.title) line.title = r.title;
      if (opts.text) {
        const t = textStmt.get(r.id)?.text;
        if (t) line.text = t;
      }
      opts.onPage?.();
      yield JSON.stringify(line) + '\n';
    }
  }
}

/** The main page: the first seed captured as a page, else the earliest page; null when there are none. */
export function mainPage(archive: Archive, seeds: readonly string[]): { url: string; date: string } | null {
  const bySeed = archive.db.prepare<[string], PageRow>(
    'SELECT id, record_id, target_uri, ts, date, title FROM records WHERE urlkey = ? AND page = 1 ORDER BY ts, id LIMIT 1',
  );
  for (const seed of seeds) {
    const r = bySeed.get(surtKey(seed));
    if (r?.target_uri && r.ts) return { url: r.target_uri, date: pageDate(r.date, r.ts) };
  }
  const first = archive.db
    .prepare<[], PageRow>('SELECT id, record_id, target_uri, ts, date, title FROM records WHERE page = 1 ORDER BY ts, id LIMIT 1')
    .get();
  return first?.target_uri && first.ts ? { url: first.target_uri, date: pageDate(first.date, first.ts) } : null;
}
