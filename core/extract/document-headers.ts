/**
 * The parts of a document's extraction that need no body parser: which extractor a response
 * goes to, its header links (Link, Location, Refresh…), the X-Robots-Tag directives and the
 * nofollow filter, and with them the whole extraction of an empty body. A module of its own so
 * that a crawl whose responses have no body to parse (core/crawl/chain/extract-links.ts) does not
 * load the HTML extractor and parse5 (~4 MiB RSS, bench/touch-rss-probe.ts): those load at the
 * first body, which extract-pool.ts extracts on the crawl thread or, past 4 MiB, in a worker.
 */
import { emptyExtraction } from './empty-extraction.ts';
import type { DocumentExtraction, DocumentInput, DocumentKind } from './extraction-types.ts';
import { fieldValues } from '../formats/http-fields.ts';
import { isHtmlType, mediaType } from '../formats/media-type.ts';
import { OutlinkList, type Outlink } from './outlink.ts';
import { extractFromHeaders } from './header-links.ts';
import { looksLikeSitemapUrl, sniffSitemapRoot } from './sitemap.ts';
import { streamKind } from '../formats/stream-kind.ts';
import { parseRobotsDirectives } from '../robots/meta-robots.ts';

const GZIP_MIMES = new Set(['application/gzip', 'application/x-gzip', 'application/gzip-compressed', 'application/x-gunzip']);

/** Which extractor reads the body; `mime` is the bare media type. */
export function documentKind(mime: string, input: DocumentInput): DocumentKind {
  if (isHtmlType(mime)) return 'html';
  if (mime === 'text/css') return 'css';
  if (input.body.length === 0) return 'other';
  // Before the sitemap sniff: a DASH manifest is XML too.
  if (streamKind(input.url, mime, input.body) !== null) return 'stream';
  const xmlish = mime === 'text/xml' || mime === 'application/xml' || mime.endsWith('+xml') || GZIP_MIMES.has(mime);
  if ((xmlish || looksLikeSitemapUrl(input.url)) && sniffSitemapRoot(input.body) !== 'unknown') return 'sitemap';
  return 'other';
}

/**
 * The extraction's outlinks: the header links, then the body's, capped at maxLinks; then each
 * X-Robots-Tag header's directives, and under nofollow only embeds and redirects kept.
 */
export function finishExtraction(input: DocumentInput, result: DocumentExtraction, body: readonly Outlink[]): DocumentExtraction {
  const list = new OutlinkList(input.maxLinks);
  for (const link of extractFromHeaders(input.status, input.headers, input.url)) list.add(link);
  for (const link of body) list.add(link);
  result.truncatedLinks ||= list.truncated;

  // Each X-Robots-Tag header separately: a `bot:` scope must not run on into the next header.
  for (const value of fieldValues(input.headers, 'x-robots-tag')) {
    const d = parseRobotsDirectives(value, input.agentToken);
    result.nofollow ||= d.nofollow;
    result.noindex ||= d.noindex;
  }
  result.outlinks = result.nofollow ? list.outlinks.filter((l) => l.hop === 'E' || l.hop === 'R') : list.outlinks;
  return result;
}

/**
 * extractDocument for a response with an empty body (an image not read, a redirect, a 204): no
 * body extractor has anything to read, so only the headers count. The same result as
 * extractDocument gives it (test/extract/document-headers.test.ts).
 */
export function extractHeadersOnly(input: DocumentInput): DocumentExtraction {
  if (input.body.length > 0) throw new Error('extractHeadersOnly: the body is not empty; extractDocument reads it');
  const kind = documentKind(mediaType(input.mime) ?? '', input);
  return finishExtraction(input, emptyExtraction(kind, kind === 'html'), []);
}
