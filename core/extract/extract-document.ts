/**
 * One entry point for the crawl: given a fetched response (body already content-decoded), find
 * its outlinks by MIME type, add the header links, de-duplicate, and apply robots directives.
 *
 * Dispatch: text/html and application/xhtml+xml → HTML; text/css → CSS; XML (or gzip, or a URL
 * that looks like a sitemap) whose root is `<urlset>`/`<sitemapindex>` → sitemap (hop M);
 * an HLS or DASH manifest (by type, extension or first bytes) → its playlists and segments
 * (stream-links.ts, hop E); anything else → header links only.
 *
 * nofollow (meta robots or X-Robots-Tag, `nofollow`/`none`, unscoped or for our agent token):
 * Heritrix's ExtractorHTML with obey-meta-robots stops extracting links altogether. Trove keeps
 * embeds and redirects (E and R) so the archived page still replays with its stylesheets, images
 * and its redirect target, and drops everything that would navigate further: L links, X
 * speculative links and M sitemap entries. noindex is reported, not acted on (the page is still
 * archived), as in Heritrix.
 *
 * Never throws on bad input: an extractor failure keeps the header links and sets `error`.
 */
import { emptyExtraction } from './empty-extraction.ts';
import { fieldValue } from '../formats/http-fields.ts';
import { mediaType } from '../formats/media-type.ts';
import type { Outlink } from './outlink.ts';
import { extractHtml } from './html-links.ts';
import { extractCss } from './css-links.ts';
import { extractSitemap } from './sitemap.ts';
import { extractStream } from './stream-links.ts';
import { streamKind } from '../formats/stream-kind.ts';
import { charsetParam, canonicalEncoding } from './html-charset.ts';
import { documentKind, finishExtraction } from './document-headers.ts';
import type { DocumentExtraction, DocumentInput } from './extraction-types.ts';

export type { DocumentExtraction, DocumentInput, DocumentKind } from './extraction-types.ts';

export function extractDocument(input: DocumentInput): DocumentExtraction {
  const mime = mediaType(input.mime) ?? '';
  const contentType = fieldValue(input.headers, 'content-type') ?? undefined;
  const kind = documentKind(mime, input);

  const result = emptyExtraction(kind, kind === 'html');
  let body: Outlink[] = [];
  try {
    if (kind === 'html') {
      const html = extractHtml(input.body, {
        baseUrl: input.url,
        maxLinks: input.maxLinks,
        ...(contentType !== undefined ? { contentType } : {}),
        ...(input.agentToken !== undefined ? { agentToken: input.agentToken } : {}),
      });
      body = html.outlinks;
      result.title = html.title;
      result.text = html.text;
      result.nofollow = html.metaRobots.nofollow;
      result.noindex = html.metaRobots.noindex;
      result.truncatedLinks = html.truncatedLinks;
      result.skipped = html.skipped;
    } else if (kind === 'css') {
      body = extractCss(decodeCss(input.body, contentType), input.url, input.maxLinks + 1);
      if (body.length > input.maxLinks) result.truncatedLinks = true;
    } else if (kind === 'sitemap') {
      const sm = extractSitemap(input.body, input.url, input.maxLinks);
      body = [
        ...sm.sitemaps.map((url): Outlink => ({ url, hop: 'M', context: 'sitemapindex/loc' })),
        ...sm.urls.map((url): Outlink => ({ url, hop: 'M', context: 'sitemap/loc' })),
      ];
      result.truncatedLinks = sm.truncated;
      if (sm.error !== undefined) result.error = sm.error;
    } else if (kind === 'stream') {
      const st = extractStream(streamKind(input.url, mime, input.body)!, input.body, input.url, input.maxLinks);
      body = st.outlinks;
      result.truncatedLinks = st.truncated;
    }
  } catch (err) {
    result.error = `${kind} extraction failed: ${err instanceof Error ? err.message : String(err)}`;
  }
  return finishExtraction(input, result, body);
}

/** CSS bytes to text: BOM, then the Content-Type charset, then `@charset "…";`, else UTF-8 (CSS Syntax §3.2). */
function decodeCss(body: Buffer, contentType: string | undefined): string {
  let encoding = 'utf-8';
  const fromHeader = charsetParam(contentType);
  const bom = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf;
  if (!bom && fromHeader) encoding = canonicalEncoding(fromHeader) ?? 'utf-8';
  else if (!bom) {
    const m = /^@charset "([^"]{1,40})";/.exec(body.toString('latin1', 0, 64));
    if (m) encoding = canonicalEncoding(m[1]!) ?? 'utf-8';
  }
  return new TextDecoder(encoding, { fatal: false }).decode(body);
}
