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
  /** The body the browser got, content-decoded; large bodies spooled to a file the sink owns. */
  body: Buffer | { path: string; size: number };
  date: Date;
  remoteAddress?: string;
  /** CDP resource type: Document, Script, Image, XHR, Fetch, Font, Media, … */
  resourceType: string;
  /** The top-level document of the page being captured (a main-frame navigation). */
  isPageDocument: boolean;
}

export interface RecordSink {
  exchange(x: RecordedExchange): Promise<void>;
}

/** Bytes held by an exchange's body. */
export function bodySize(x: RecordedExchange): number {
  return Buffer.isBuffer(x.body) ? x.body.length : x.body.size;
}
