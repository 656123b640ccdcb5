/**
 * One request/response pair a page made, as the network saw it: the shape the CDP recorder hands
 * to whatever stores it (the crawl's WARC writer through exchange-records.ts, the app's Record
 * window, a test). Bodies are the browser's: already content-decoded (see docs/FORMATS.md).
 */

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
}

export interface RecordSink {
  exchange(x: RecordedExchange): Promise<void>;
}
