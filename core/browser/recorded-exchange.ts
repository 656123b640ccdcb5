/**
 * One request/response pair a page made, as the network saw it: the shape the CDP recorder hands
 * to whatever stores it (the crawl's WARC writer through core/crawl/exchange-records.ts, the app's Record
 * window, a test). Bodies are the browser's: already content-decoded (see docs/FORMATS.md).
 */
import type { FetchResult } from '../fetch/fetch-types.ts';

export interface RecordedExchange {
  url: string;
  method: string;
  /** As sent (Network.requestWillBeSentExtraInfo when present). */
  requestHeaders: [string, string][];
  requestBody?: Buffer;
  status: number;
  statusText: string;
  /** e.g. 'HTTP/1.1'. */
  httpVersion: string;
  /** As received (Network.responseReceivedExtraInfo when present), before any fix-up. */
  responseHeaders: [string, string][];
  /**
   * The body the browser got, content-decoded; large bodies spooled to a file, which the sink
   * owns from then on (exchange-records.ts hands it to the capture's spool, which removes it).
   */
  body: Buffer | { path: string; size: number };
  date: Date;
  remoteAddress?: string;
  /** CDP resource type: Document, Script, Image, XHR, Fetch, Font, Media, … */
  resourceType: string;
  /**
   * The top-level document of the page being captured: a Document in the tab's main frame. Each
   * hop of a redirecting navigation is one (the last is the page; its status is the page's).
   */
  isPageDocument: boolean;
  /**
   * Set when Trove fetched this itself beside the page (a whole media file, a stream segment:
   * media-completer.ts): the HTTP fetcher's wire-exact result, written as an HTTP capture is,
   * in place of the fields above. `body` is then empty; the result's spools are the sink's.
   */
  fetched?: FetchResult;
}

export interface RecordSink {
  exchange(x: RecordedExchange): Promise<void>;
}
