/**
 * `trove changes A B`: which pages were added, removed, changed or left unchanged between two
 * captures of a site — two crawls (a crawl and its recrawl, say), or one archive at two times
 * (`dir@2026` … `dir@20261205`: each page as its latest capture at or before that time).
 *
 * A page is a GET capture that replays as a 2xx HTML document (a revisit counts as its original;
 * a 304 revisit as the page it stands for), known by its URL without cache-busting parameters
 * (change-noise.ts). Two captures with the same payload digest are unchanged without reading
 * them; otherwise both are replayed (so a recrawl's revisits resolve across its chain) and their
 * visible text compared after the noise is masked. The size of a change is the number of
 * characters of normalized text removed plus added (a word diff, npm `diff`).
 */
import { diffWordsWithSpace, createTwoFilesPatch } from 'diff';
import type { Archive } from '../archive/archive-dir.ts';
import type { CdxjSourceRow } from '../archive/capture-scans.ts';
import { resolveRevisitInChain } from '../archive/archive-revisit.ts';
import { extractHtml } from '../extract/html-links.ts';
import { replay } from '../replay/replay.ts';
import { normalizePageText, normalizePageUrl } from './change-noise.ts';

/** One side of the comparison: an archive, and the time its pages are taken at (latest when absent). */
export interface ChangeSide {
  archive: Archive;
  /** 14-digit UTC timestamp (partial allowed): each page's latest capture at or before it. */
  at?: string;
}

export type ChangeKind = 'added' | 'removed' | 'changed' | 'unchanged';

export interface PageChange {
  /** The page's URL (the newer capture's, or the older's for a removed page), cache busters dropped. */
  url: string;
  kind: ChangeKind;
  /** The capture on each side (URL as archived and 14-digit time), when the side has the page. */
  a: { url: string; ts: string } | null;
  b: { url: string; ts: string } | null;
  /** Characters of normalized text removed plus added (changed pages only; else 0). */
  textChange: number;
}

export interface ChangeReport {
  pages: PageChange[];
  counts: Record<ChangeKind, number>;
}

interface PageCapture {
  url: string;
  ts: string;
  digest: string | null;
}

const SCAN_PAGE = 5000;
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

/** Each page of one side, by normalized URL: the latest capture at or before the side's time. */
export function pagesOf(side: ChangeSide): Map<string, PageCapture> {
  // A partial time (`2026`, `202612`) means its whole period: the latest capture up to its end.
  const until = side.at === undefined ? null : side.at.padEnd(14, '9');
  const latest = new Map<string, CdxjSourceRow>();
  for (let after = 0; ; ) {
    const rows = side.archive.index.cdxjRows(after, SCAN_PAGE);
    if (rows.length === 0) break;
    for (const r of rows) {
      after = r.id;
      if ((r.recordType !== 'response' && r.recordType !== 'revisit') || !r.targetUri || !r.ts) continue;
      if ((r.method ?? 'GET').toUpperCase() !== 'GET' || (until !== null && r.ts > until)) continue;
      const key = normalizePageUrl(r.targetUri);
      const held = latest.get(key);
      if (!held || held.ts! <= r.ts) latest.set(key, r);
    }
  }
  const out = new Map<string, PageCapture>();
  for (const [key, r] of latest) {
    const page = asPage(side.archive, r);
    if (page) out.set(key, page);
  }
  return out;
}

/** A capture as a page (2xx HTML, a revisit through its original), or null. */
function asPage(archive: Archive, r: CdxjSourceRow): PageCapture | null {
  let status = r.status;
  let mime = r.mime;
  let digest = r.payloadDigest;
  if (r.recordType === 'revisit') {
    const row = archive.index.byId(r.id);
    const original = row ? resolveRevisitInChain(archive, row) : null;
    if (!original) return null;
    const notModified = status === null || status === 304;
    if (notModified) status = original.status;
    mime = mime && !notModified ? mime : original.mime;
    digest = original.payloadDigest ?? digest;
  }
  if (status === null || status < 200 || status > 299) return null;
  if (!mime || !HTML_TYPES.has(mime.split(';')[0]!.trim().toLowerCase())) return null;
  return { url: r.targetUri!, ts: r.ts!, digest };
}

/** The page's normalized visible text as replay serves it ('' when it does not replay). */
export async function normalizedTextAt(archive: Archive, url: string, ts: string): Promise<string> {
  return normalizePageText(await visibleTextAt(archive, url, ts));
}

export async function visibleTextAt(archive: Archive, url: string, ts: string): Promise<string> {
  const r = await replay(archive, { url, at: ts });
  if (r.kind !== 'archived') return '';
  const contentType = r.headers.find(([k]) => k.toLowerCase() === 'content-type')?.[1];
  return extractHtml(r.body, { baseUrl: url, maxLinks: 0, ...(contentType ? { contentType } : {}) }).text;
}

/** Characters removed plus added between two normalized texts. */
export function textChangeSize(a: string, b: string): number {
  let n = 0;
  for (const part of diffWordsWithSpace(a, b)) if (part.added || part.removed) n += part.value.length;
  return n;
}

export async function changeReport(a: ChangeSide, b: ChangeSide): Promise<ChangeReport> {
  const pa = pagesOf(a);
  const pb = pagesOf(b);
  const pages: PageChange[] = [];
  for (const [key, ca] of pa) {
    const cb = pb.get(key);
    if (!cb) {
      pages.push({ url: key, kind: 'removed', a: ref(ca), b: null, textChange: 0 });
      continue;
    }
    let size = 0;
    if (!ca.digest || ca.digest !== cb.digest) {
      size = textChangeSize(await normalizedTextAt(a.archive, ca.url, ca.ts), await normalizedTextAt(b.archive, cb.url, cb.ts));
    }
    pages.push({ url: key, kind: size > 0 ? 'changed' : 'unchanged', a: ref(ca), b: ref(cb), textChange: size });
  }
  for (const [key, cb] of pb) if (!pa.has(key)) pages.push({ url: key, kind: 'added', a: null, b: ref(cb), textChange: 0 });
  pages.sort((x, y) => (x.url < y.url ? -1 : x.url > y.url ? 1 : 0));
  const counts: Record<ChangeKind, number> = { added: 0, removed: 0, changed: 0, unchanged: 0 };
  for (const p of pages) counts[p.kind]++;
  return { pages, counts };
}

function ref(c: PageCapture): { url: string; ts: string } {
  return { url: c.url, ts: c.ts };
}

/** The unified diff of one page's visible text (one sentence a line, so the diff reads). */
export async function pageTextDiff(a: ChangeSide, b: ChangeSide, url: string): Promise<string | null> {
  const key = normalizePageUrl(url);
  const ca = pagesOf(a).get(key);
  const cb = pagesOf(b).get(key);
  if (!ca && !cb) return null;
  const lines = async (side: ChangeSide, c: PageCapture | undefined) => (c ? sentenceLines(await visibleTextAt(side.archive, c.url, c.ts)) : '');
  return createTwoFilesPatch(`a ${ca?.ts ?? '(none)'}`, `b ${cb?.ts ?? '(none)'}`, await lines(a, ca), await lines(b, cb), undefined, undefined, { context: 2 });
}

/** Visible text, one sentence a line. */
export function sentenceLines(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/([.!?:]) (?=\S)/g, '$1\n').trim() + '\n';
}

/** The one-line summary a series shows: "12 pages changed, 3 new, 1 gone". */
export function changeSummary(counts: Record<ChangeKind, number>): string {
  return `${counts.changed} page${counts.changed === 1 ? '' : 's'} changed, ${counts.added} new, ${counts.removed} gone`;
}
