/**
 * What the extractor is given (DocumentInput) and what it gives back (DocumentExtraction), in a
 * file of types alone: the extractor, the header-only path (document-headers.ts), the empty
 * result (empty-extraction.ts), the pool and the worker all name them, and none of them has to
 * import another for it, so the extract room has no import circle.
 */
import type { Outlink } from './outlink.ts';

export interface DocumentInput {
  url: string;
  status: number;
  headers: [string, string][];
  /** The content-decoded entity body. */
  body: Buffer;
  /** MIME type; parameters are ignored (the charset is read from the Content-Type header). */
  mime: string;
  maxLinks: number;
  /** Our robots agent token, for `X-Robots-Tag: token: nofollow` and `<meta name=token>`. */
  agentToken?: string;
}

/** `stream`: an HLS or DASH manifest (stream-links.ts). */
export type DocumentKind = 'html' | 'css' | 'sitemap' | 'stream' | 'other';

export interface DocumentExtraction {
  outlinks: Outlink[];
  title: string | null;
  text: string;
  nofollow: boolean;
  noindex: boolean;
  truncatedLinks: boolean;
  isHtml: boolean;
  /** Which extractor read the body. */
  kind: DocumentKind;
  /** Values that looked like URLs but did not parse. */
  skipped: number;
  /** Set when the body extractor failed; header links are still returned. */
  error?: string;
}
