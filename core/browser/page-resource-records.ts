/**
 * The WARC `resource` records a browser capture adds beside the page's own exchanges: its
 * screenshot, so the monitor and the pages list can show what the page looked like. Named as
 * Browsertrix Crawler names them (src/util/warcresourcewriter.ts: WARC-Target-URI
 * `urn:<kind>:<page URL>`, `urn:view:` for the viewport screenshot, `urn:text:` for extracted
 * text), so tools that know Browsertrix archives find them.
 */
import type { RecordInput } from '../warc/write-record-input.ts';
import { SCREENSHOT_URN_PREFIX, TEXT_URN_PREFIX } from '../formats/page-resource-urns.ts';

export { SCREENSHOT_URN_PREFIX, TEXT_URN_PREFIX };

/** The page's screenshot (PNG) as a resource record, tied to the page's response when given. */
export function screenshotRecord(pageUrl: string, date: Date, png: Buffer, concurrentTo?: string | null): RecordInput {
  return {
    type: 'resource',
    targetUri: SCREENSHOT_URN_PREFIX + pageUrl,
    date,
    contentType: 'image/png',
    fields: concurrentTo ? [['WARC-Concurrent-To', concurrentTo]] : [],
    blockParts: [png],
  };
}

/** The page's rendered text (innerText after behaviors) as a resource record. */
export function pageTextRecord(pageUrl: string, date: Date, text: string, concurrentTo?: string | null): RecordInput {
  return {
    type: 'resource',
    targetUri: TEXT_URN_PREFIX + pageUrl,
    date,
    contentType: 'text/plain; charset=utf-8',
    fields: concurrentTo ? [['WARC-Concurrent-To', concurrentTo]] : [],
    blockParts: [Buffer.from(text, 'utf8')],
  };
}
