/**
 * Does every captured page replay complete? Replays each page through core replay() and follows
 * what a browser would load to show it — img/iframe/script src, stylesheet links, and in CSS
 * `@import` and `url()` — recursively, collecting those in scope that the archive does not hold.
 * The markup is read with plain regexes, independently of the crawler's own extractor.
 */
import type { Archive } from '../../core/archive/archive-dir.ts';
import { replay } from '../../core/replay/replay.ts';

/** URLs a document names that a browser would load to show it (not links). */
export function embedsOf(url: string, mime: string, body: string): string[] {
  const found: string[] = [];
  if (mime.startsWith('text/html')) {
    for (const m of body.matchAll(/<(?:img|iframe|script)\b[^>]*\bsrc="([^"]+)"/g)) found.push(m[1]!);
    for (const m of body.matchAll(/<link\b[^>]*\brel="stylesheet"[^>]*\bhref="([^"]+)"/g)) found.push(m[1]!);
  } else if (mime.startsWith('text/css')) {
    for (const m of body.matchAll(/@import\s+(?:url\()?\s*["']?([^"')\s;]+)/g)) found.push(m[1]!);
    for (const m of body.matchAll(/url\(\s*["']?([^"')]+)["']?\s*\)/g)) found.push(m[1]!);
  }
  const urls = found.filter((u) => !u.startsWith('data:')).map((u) => new URL(u.replace(/&amp;/g, '&'), url).href.replace(/#.*$/, ''));
  return [...new Set(urls)];
}

export interface EmbedCheck {
  /** `url (needed by …)` for each in-scope embed the archive does not hold. */
  missing: string[];
  /** Every URL replayed or looked for: the pages and all they need. */
  checked: Set<string>;
}

export async function missingEmbeds(archive: Archive, pages: Iterable<string>, inScope: (url: string) => boolean): Promise<EmbedCheck> {
  const missing: string[] = [];
  const checked = new Set<string>();
  const visit = async (url: string, from: string): Promise<void> => {
    if (checked.has(url)) return;
    checked.add(url);
    const r = await replay(archive, { url });
    if (r.kind !== 'archived') {
      if (inScope(url)) missing.push(`${url} (needed by ${from})`);
      return;
    }
    const mime = r.headers.find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? '';
    for (const e of embedsOf(url, mime, r.body.toString('utf8'))) await visit(e, url);
  };
  for (const p of pages) await visit(p, 'the page itself');
  return { missing, checked };
}
