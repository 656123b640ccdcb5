/**
 * The extraction of a document that yielded nothing yet: no links, no text. The extractor starts
 * from it and the pool answers a failed or timed-out job with it, so both agree on every field.
 * A file of its own (type imports only) because the pool runs on the crawl thread and must not
 * load parse5 by importing the extractor.
 */
import type { DocumentExtraction } from './extraction-types.ts';

export function emptyExtraction(kind: DocumentExtraction['kind'], isHtml: boolean): DocumentExtraction {
  return { outlinks: [], title: null, text: '', nofollow: false, noindex: false, truncatedLinks: false, isHtml, kind, skipped: 0 };
}
